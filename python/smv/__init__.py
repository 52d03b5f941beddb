"""smv — sparse matrix-vector products on NVIDIA GPUs (and the CPU) from
Python, through ctypes on libsmv.so (no compiled extension).

    import scipy.sparse as sp, numpy as np, smv
    A = sp.random(1000, 1000, density=0.01, format="csr")
    with smv.Matrix(A, backend="auto") as M:      # GPU if there is one
        y = M.matvec(np.ones(1000))               # A x
        z = M.rmatvec(np.ones(1000))              # A^T x
        Y = M.matmat(np.ones((1000, 16)))         # A X, 16 columns
    x, info = scipy.sparse.linalg.cg(smv.aslinearoperator(A), b)

Errors from the library raise smv.SmvError (status code and smv's own
message); wrong shapes raise ValueError; sizes beyond int32 OverflowError.
See docs/python.md.
"""

from ._lib import SmvError, path as library_path
from ._matrix import Matrix, SPMV_ALGS, SPMM_ALGS
from . import _lib

__all__ = ["Matrix", "SmvError", "aslinearoperator", "spmv", "spmm",
           "version", "library_path", "has_cuda", "SPMV_ALGS", "SPMM_ALGS"]


def version():
    """The library's version string ("0.1.0")."""
    return _lib.version().decode()


def has_cuda(device=0):
    """True when libsmv was built with CUDA and a GPU is usable."""
    import ctypes

    ctx = ctypes.c_void_p()
    st = _lib.context_create(device, ctypes.byref(ctx))
    if st == _lib.SMV_OK:
        _lib.context_free(ctx)
        return True
    return False


def _matrix(A, backend, precision):
    """A Matrix for A (reused as is when A already is one) and whether the
    caller owns it (must close it). Shared by every one-shot function."""
    if isinstance(A, Matrix):
        return A, False
    return Matrix(A, backend=backend, precision=precision), True


def spmv(A, x, backend="auto", precision="float64", transpose=False):
    """One product A x (or A^T x): prepares A, multiplies, frees. For many
    products keep a Matrix instead."""
    M, own = _matrix(A, backend, precision)
    try:
        return M.spmv(x, transpose=transpose)
    finally:
        if own:
            M.close()


def spmm(A, X, backend="auto", precision="float64"):
    """One product A X for a dense X (cols x k)."""
    M, own = _matrix(A, backend, precision)
    try:
        return M.matmat(X)
    finally:
        if own:
            M.close()


def aslinearoperator(A, backend="auto", precision="float64"):
    """A scipy.sparse.linalg.LinearOperator whose matvec, rmatvec and
    matmat run on smv (the GPU when backend is 'auto' and there is one).
    The device matrix lives as long as the operator."""
    M, _ = _matrix(A, backend, precision)
    return M.aslinearoperator()
