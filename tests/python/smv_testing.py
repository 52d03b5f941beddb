"""What the Python tests share: the package (the source tree's, put on
sys.path by conftest.py), whether a GPU answers, and the backends to
parametrize over (the CUDA one skipped without a GPU)."""

import pytest

import smv

HAS_CUDA = smv.has_cuda()
BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not HAS_CUDA, reason="no CUDA device (or libsmv built without CUDA)"))]
PRECISIONS = ["float64", "float32"]
