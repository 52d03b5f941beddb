"""Declaring reuse from Python (smv.Matrix(A, reuse=...), issue 23 item
3): the ctypes mirror of smv_matrix_options matches the C struct (offsets
and size; src/core/reuse.c asserts the same in C), reuse= turns into the
options the library reads (checked through the library's own
smv_matrix_reuse_declared, so the bytes cross the boundary as C reads
them), bad values are refused, and a Matrix made with reuse= gives the
same products as one without, on the CPU and on the GPU where there is
one (there the plan says "reuse declared")."""

import ctypes
import importlib

import numpy as np
import pytest
import scipy.sparse as sp

from smv_testing import BACKENDS, HAS_CUDA, smv
from smv import _lib as L

# The module, not smv._matrix (the package's helper function of that name).
_matrix = importlib.import_module("smv._matrix")


def test_options_layout():
    O = L.MatrixOptions
    assert O.flags.offset == 0
    assert O.tune_runs.offset == 4
    assert O.expected_calls.offset == 8
    assert ctypes.sizeof(O) == 16


def test_threshold_from_the_library():
    assert L.matrix_reuse_threshold(0) == 960
    assert L.matrix_reuse_threshold(1) == 240


def declared(o):
    return L.matrix_reuse_declared(ctypes.byref(o) if o else None)


def test_reuse_values():
    assert _matrix._matrix_options(None) is None
    assert _matrix._matrix_options(False) is None
    assert _matrix._matrix_options(0) is None
    o = _matrix._matrix_options(True)
    assert o.flags == L.SMV_MATRIX_REUSE and o.expected_calls == 0
    assert declared(o) == 1
    o = _matrix._matrix_options(5000)
    assert o.flags == 0 and o.expected_calls == 5000
    assert declared(o) == 1
    o = _matrix._matrix_options(np.int64(959))
    assert declared(o) == 0  # below the threshold: read by C as 959
    o = _matrix._matrix_options(2**40)
    assert o.expected_calls == 2**40 and declared(o) == 1
    with pytest.raises(ValueError):
        _matrix._matrix_options(-1)
    with pytest.raises(TypeError):
        _matrix._matrix_options(1.5)
    with pytest.raises(TypeError):
        _matrix._matrix_options("many")
    with pytest.raises(OverflowError):
        _matrix._matrix_options(2**63)


def lap2d(n):
    T = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n))
    I = sp.identity(n)
    S = sp.diags([-1.0, -1.0], [-1, 1], shape=(n, n))
    return sp.csr_matrix(sp.kron(I, T) + sp.kron(S, I))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reuse", [True, 10000, 100])
def test_products_with_reuse(backend, reuse):
    A = lap2d(40)
    x = np.random.default_rng(1).uniform(-1, 1, A.shape[1])
    with smv.Matrix(A, backend=backend) as M0, \
            smv.Matrix(A, backend=backend, reuse=reuse) as M1:
        y0 = M0 @ x
        y1 = M1 @ x
    np.testing.assert_allclose(y1, A @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(y0, y1, rtol=1e-12, atol=1e-12)


def test_bad_reuse_refused_before_anything():
    with pytest.raises(ValueError):
        smv.Matrix(lap2d(5), backend="cpu", reuse=-5)


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")
def test_solver_with_reuse_matrix():
    A = lap2d(30)
    b = np.ones(A.shape[0])
    x0, info0 = smv.cg(A, b, rtol=1e-10)
    with smv.Matrix(A, reuse=True) as M:
        x1, info1 = smv.cg(M, b, rtol=1e-10)
    # smv.cg's info is an smv.SolveInfo (not scipy's integer).
    assert info0.converged and info1.converged
    assert abs(info1.iterations - info0.iterations) <= 2
    np.testing.assert_allclose(A @ x1, b, rtol=1e-7, atol=1e-7)
