"""smv — sparse matrix-vector products on NVIDIA GPUs (and the CPU) from
Python, through ctypes on libsmv.so (no compiled extension).

    import scipy.sparse as sp, numpy as np, smv
    A = sp.random(1000, 1000, density=0.01, format="csr")
    with smv.Matrix(A, backend="auto") as M:      # GPU if there is one
        y = M.matvec(np.ones(1000))               # A x
        z = M.rmatvec(np.ones(1000))              # A^T x
        Y = M.matmat(np.ones((1000, 16)))         # A X, 16 columns
    x, info = scipy.sparse.linalg.cg(smv.aslinearoperator(A), b)
    x, info = smv.cg(L, b, tol=1e-10)          # smv's own CG (L SPD)
    r, info = smv.pagerank(G, damping=0.85)    # G: adjacency, i -> j

Errors from the library raise smv.SmvError (status code and smv's own
message); wrong shapes raise ValueError; sizes beyond int32 OverflowError.
See docs/python.md.
"""

from ._lib import SmvError, path as library_path
from ._matrix import Matrix, SPMV_ALGS, SPMM_ALGS
from ._solve import SolveInfo
from . import _lib
from . import _matrix as _matrix_mod

__all__ = ["Matrix", "SmvError", "aslinearoperator", "spmv", "spmm",
           "cg", "bicgstab", "pagerank", "SolveInfo",
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


def _solver_matrix(A, backend, precision):
    """As _matrix, for the solvers: backend None means 'auto' (or, for a
    Matrix, its own), precision None 'float64' (or the Matrix's); a Matrix
    whose backend or precision disagrees with an explicit one is refused
    rather than silently used."""
    if isinstance(A, Matrix):
        if backend not in (None, "auto", A.backend):
            raise ValueError("smv: A is an smv.Matrix on %s; backend=%r "
                             "disagrees" % (A.backend, backend))
        if (precision is not None and
                _matrix_mod._precision(precision) != A._prec):
            raise ValueError("smv: A is an smv.Matrix in %s; precision=%r "
                             "disagrees" % (A.dtype.name, precision))
        return A, False
    return Matrix(A, backend=backend or "auto",
                  precision=precision or "float64"), True


def _solve(method, A, b, x0, tol, maxiter, precond, backend, precision,
           history):
    M, own = _solver_matrix(A, backend, precision)
    try:
        return M.solve(b, method=method, x0=x0, tol=tol, maxiter=maxiter,
                       precond=precond, history=history)
    finally:
        if own:
            M.close()


def cg(A, b, x0=None, tol=1e-8, maxiter=1000, precond="jacobi",
       backend=None, precision=None, history=False):
    """Conjugate gradients for A x = b, A symmetric positive definite.

    Returns (x, info): x in the solve's precision, info an smv.SolveInfo
    (iterations, relres, converged, breakdown, seconds, backend, precision,
    history, ...). Stops when the recurrence's ||r|| / ||b|| <= tol (tol
    is relative, like scipy's rtol with atol=0) or after maxiter
    iterations (None: 10 n, as scipy); not converging is not an error:
    info.converged is False. x0: initial guess (default zeros). precond:
    'jacobi' (default; needs a nonzero diagonal), 'chebyshev' (a
    Chebyshev polynomial in D^-1 A of degree 2: SpMVs only, also needs
    the diagonal) or 'none'. A: a
    scipy.sparse matrix (prepared and freed here) or an smv.Matrix (its
    backend, precision and device copy are reused). backend: 'auto'
    (default: the GPU if there is one), 'cpu' or 'cuda'. precision:
    'float64' (default) or 'float32' (vectors and SpMV in float, dot
    products in double). history=True: info.history holds relres after
    0, 1, ..., iterations iterations.
    """
    return _solve("cg", A, b, x0, tol, maxiter, precond, backend, precision,
                  history)


def bicgstab(A, b, x0=None, tol=1e-8, maxiter=1000, precond="jacobi",
             backend=None, precision=None, history=False):
    """BiCGStab for A x = b, any square nonsingular A; arguments and
    result as smv.cg."""
    return _solve("bicgstab", A, b, x0, tol, maxiter, precond, backend,
                  precision, history)


def pagerank(A, damping=0.85, tol=1e-10, maxiter=1000, personalization=None,
             backend=None, precision=None, pattern=False, history=False):
    """PageRank of the graph with a link i -> j for every stored A[i, j],
    weighted by A[i, j] (weights must be >= 0; pattern=True: every stored
    entry weighs 1). A dangling row's rank is spread over all nodes;
    personalization (n entries >= 0, normalised here) replaces the uniform
    teleport vector. Power iteration from the teleport vector until the
    L1 change of r is <= tol or maxiter steps; returns (r, info), r summing
    to 1 (networkx's pagerank with dangling=uniform). A: scipy.sparse or
    smv.Matrix; backend and precision as smv.cg (on the GPU the
    transition matrix is built on the host and uploaded for the call)."""
    if isinstance(A, Matrix):
        M, _ = _solver_matrix(A, backend, precision)
        return M.pagerank(damping=damping, tol=tol, maxiter=maxiter,
                          personalization=personalization, pattern=pattern,
                          history=history)
    # A scipy matrix: only a context is needed (no device copy of A).
    prec = _matrix_mod._precision(precision or "float64")
    arrays = _matrix_mod._to_csr(A)
    ctx = _matrix_mod.open_context(backend or "auto")
    try:
        return _matrix_mod.pagerank_csr(*arrays, ctx, prec, pattern, damping,
                                        tol, maxiter, personalization,
                                        history, "auto")
    finally:
        if ctx:
            _lib.context_free(ctx)
