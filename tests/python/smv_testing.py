"""What the Python tests share: the package imported from the source tree
(python/, ahead of any installed copy), whether a GPU answers, and the
backends to parametrize over (the CUDA one skipped without a GPU)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import smv  # noqa: E402

HAS_CUDA = smv.has_cuda()
BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not HAS_CUDA, reason="no CUDA device (or libsmv built without CUDA)"))]
PRECISIONS = ["float64", "float32"]
