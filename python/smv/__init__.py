"""smv — sparse matrix-vector products on NVIDIA GPUs (and the CPU) from
Python, through ctypes on libsmv.so (no compiled extension).

    import scipy.sparse as sp, numpy as np, smv
    A = sp.random(1000, 1000, density=0.01, format="csr")
    with smv.Matrix(A, backend="auto") as M:      # GPU if there is one
        y = M.matvec(np.ones(1000))               # A x
        z = M.rmatvec(np.ones(1000))              # A^T x
        Y = M.matmat(np.ones((1000, 16)))         # A X, 16 columns
    x, info = scipy.sparse.linalg.cg(smv.aslinearoperator(A), b)
    x, info = smv.cg(L, b, rtol=1e-10)         # smv's own CG (L SPD)
    r, info = smv.pagerank(G, damping=0.85)    # G: adjacency, i -> j

    import cupy, cupyx.scipy.sparse as csp    # on the GPU, no copies:
    M = smv.Matrix(csp.csr_matrix(A))         # built on the device
    y = M @ cupy.ones(1000)                   # CuPy in, CuPy out, on
                                              # CuPy's current stream

Errors from the library raise smv.SmvError (status code and smv's own
message); wrong shapes raise ValueError; sizes beyond int32 OverflowError.
See docs/python.md.
"""

from ._lib import SmvError, path as library_path
from ._matrix import Matrix, SPMV_ALGS, SPMM_ALGS
from ._solve import SolveInfo
from . import _array
from . import _lib
from . import _matrix as _matrix_mod
from . import _solve as _solve_mod

__all__ = ["Matrix", "SmvError", "aslinearoperator", "spmv", "spmm",
           "cg", "bicgstab", "pagerank", "SolveInfo", "__version__",
           "version", "library_path", "has_cuda", "SPMV_ALGS", "SPMM_ALGS",
           "f32v_bound"]

__version__ = _lib.version().decode()
"""The library's version (smv.h's SMV_VERSION_STRING, e.g. "0.1.0")."""


def version():
    """The library's version string ("0.1.0")."""
    return _lib.version().decode()


def has_cuda(device=0):
    """True when libsmv was built with CUDA and a GPU is usable."""
    import ctypes

    device = _matrix_mod.check_int(device, "device")
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


def aslinearoperator(A, backend="auto", precision="float64", module=None):
    """A LinearOperator whose matvec, rmatvec and matmat run on smv (the
    GPU when backend is 'auto' and there is one): module='scipy' gives a
    scipy.sparse.linalg.LinearOperator (numpy vectors), 'cupy' a
    cupyx.scipy.sparse.linalg.LinearOperator (CuPy vectors, no copies);
    None picks 'cupy' for a cupyx.scipy.sparse A, else 'scipy'. The
    device matrix lives as long as the operator."""
    if module is None:
        module = ("cupy" if type(A).__module__.split(".")[0] == "cupyx"
                  else "scipy")
    M, _ = _matrix(A, backend, precision)
    return M.aslinearoperator(module)


def f32v_bound(A, x, alpha=1.0, beta=0.0, y0=None):
    """smv_spmv_f32v_bound: per row i, a bound on |y_i - y_exact_i| for
    y = alpha A x + beta y0 computed in precision 'f64-f32v' (the matrix's
    values rounded once to float32, everything else float64; see
    smv.Matrix). A: a scipy.sparse matrix (or a device one, read to the
    host) or an smv.Matrix made from host data; x and y0 (needed when
    beta != 0) host or device vectors. Evaluated on the host in float64,
    its own rounding allowed for; against a float64 result rather than the
    exact one allow twice it. Returns a numpy array of rows entries."""
    if isinstance(A, Matrix):
        return A.f32v_bound(x, alpha=alpha, beta=beta, y0=y0)
    shape, indptr, indices, data = _matrix_mod._to_csr(A)
    csr = _matrix_mod._csr_struct(shape, indptr, indices, data)
    return _matrix_mod.f32v_bound_csr(csr, shape, x, alpha, beta, y0)


def _solver_matrix(A, backend, precision, solver):
    """As _matrix, for the solvers: backend None means 'auto' (or, for a
    Matrix, its own), precision None 'float64' (or the Matrix's); a Matrix
    whose backend or precision disagrees with an explicit one is refused
    rather than silently used. A Matrix made here declares reuse
    (reuse=True); pass your own Matrix(A, reuse=...) to decide it.
    Precision f64-f32v is refused before any Matrix is made."""
    if precision is not None:
        _solve_mod.refuse_f32v(_matrix_mod._precision(precision), solver)
    if isinstance(A, Matrix):
        _solve_mod.refuse_f32v(A._prec, solver)
        if backend not in (None, "auto", A.backend):
            raise ValueError("smv: A is an smv.Matrix on %s; backend=%r "
                             "disagrees" % (A.backend, backend))
        if (precision is not None and
                _matrix_mod._precision(precision) != A._prec):
            raise ValueError("smv: A is an smv.Matrix in %s; precision=%r "
                             "disagrees" % (A.precision, precision))
        return A, False
    # A solver multiplies by A up to maxiter times: reuse is declared, so
    # on the GPU AUTO's rung is planned by measurement (Matrix, reuse=).
    return Matrix(A, backend=backend or "auto",
                  precision=precision or "float64", reuse=True), True


def _solve(method, A, b, x0, rtol, tol, atol, maxiter, M, callback,
           precond, backend, precision, history):
    if tol is not None:  # the former name of rtol
        if rtol is not None:
            raise TypeError("smv: give rtol or tol (its former name), not "
                            "both")
        rtol = tol
    if rtol is None:
        rtol = 1e-8
    Mat, own = _solver_matrix(A, backend, precision, method)
    try:
        return Mat.solve(b, method=method, x0=x0, tol=rtol, maxiter=maxiter,
                         precond=precond, history=history, atol=atol, M=M,
                         callback=callback)
    finally:
        if own:
            Mat.close()


def cg(A, b, x0=None, *, rtol=None, atol=0.0, maxiter=1000, M=None,
       callback=None, tol=None, precond="jacobi", backend=None,
       precision=None, history=False):
    """Conjugate gradients for A x = b, A symmetric positive definite,
    with scipy.sparse.linalg.cg's keywords.

    Returns (x, info): x of b's kind (numpy for numpy; CuPy, PyTorch or
    JAX on the GPU for device vectors, solved in place on the device on
    b's stream with no host copy of the vectors), in the solve's
    precision; info an smv.SolveInfo (iterations, relres, converged,
    breakdown, seconds, backend, precision, history, ...). Stops when
    ||r|| <= max(rtol ||b||, atol) for the recurrence's r (rtol default
    1e-8; `tol` is accepted as rtol's former name) or after maxiter
    iterations (None: 10 n, as scipy); not converging is not an error:
    info.converged is False. x0: initial guess (default zeros).
    M: the preconditioner: None (then `precond` says: 'jacobi', the
    default, needs a nonzero diagonal; 'chebyshev', a Chebyshev
    polynomial in D^-1 A of degree 2: SpMVs only, also needs the
    diagonal; or 'none'), the strings 'jacobi' / 'chebyshev' / 'none',
    or an operator applying M^-1 (a LinearOperator, a matrix, a
    callable): smv's own solver runs for the first; an operator or a
    `callback` (called as callback(xk) after each iteration, as scipy
    does) runs the iteration in Python over smv's products, on the
    device for device vectors. A: a scipy.sparse matrix, a
    cupyx.scipy.sparse or torch sparse matrix on the GPU (prepared and
    freed here), or an smv.Matrix (its backend, precision and device copy
    are reused). backend: 'auto' (default: the GPU if there is one),
    'cpu' or 'cuda'. precision: 'float64' (default) or 'float32'
    (vectors and SpMV in float, dot products in double). history=True:
    info.history holds relres after 0, 1, ..., iterations iterations.
    """
    return _solve("cg", A, b, x0, rtol, tol, atol, maxiter, M, callback,
                  precond, backend, precision, history)


def bicgstab(A, b, x0=None, *, rtol=None, atol=0.0, maxiter=1000, M=None,
             callback=None, tol=None, precond="jacobi", backend=None,
             precision=None, history=False):
    """BiCGStab for A x = b, any square nonsingular A; arguments and
    result as smv.cg (scipy.sparse.linalg.bicgstab's keywords)."""
    return _solve("bicgstab", A, b, x0, rtol, tol, atol, maxiter, M,
                  callback, precond, backend, precision, history)


def pagerank(A, damping=0.85, tol=None, maxiter=1000, personalization=None,
             backend=None, precision=None, pattern=False, history=False, *,
             rtol=None):
    """PageRank of the graph with a link i -> j for every stored A[i, j],
    weighted by A[i, j] (weights must be >= 0; pattern=True: every stored
    entry weighs 1). A dangling row's rank is spread over all nodes;
    personalization (n entries >= 0, normalised here) replaces the uniform
    teleport vector. Power iteration from the teleport vector until the
    L1 change of r is <= tol or maxiter steps; returns (r, info), r summing
    to 1 (networkx's pagerank with dangling=uniform). A: scipy.sparse or
    smv.Matrix; backend and precision as smv.cg (on the GPU the
    transition matrix is built on the host and uploaded for the call).
    rtol is tol's scipy-style name (default 1e-10). A device A
    (cupyx.scipy.sparse, torch sparse on the GPU) or a device
    personalization is copied to the host for the call (the library's
    PageRank takes a host CSR) and r comes back in that library, on the
    GPU."""
    if rtol is not None and tol is not None:
        raise TypeError("smv: give rtol or tol, not both")
    tol = rtol if rtol is not None else (1e-10 if tol is None else tol)
    like = None
    for v in (personalization, A):
        if v is not None and _on_gpu(v):
            like = v
            break
    if personalization is not None and _on_gpu(personalization):
        personalization = _array.host_copy(personalization)
    r, info = _pagerank(A, damping, tol, maxiter, personalization, backend,
                        precision, pattern, history)
    return (r if like is None else _array.device_like(like, r)), info


def _on_gpu(v):
    mod = type(v).__module__.split(".")[0]
    if mod in ("cupy", "cupyx"):
        return True
    if mod == "torch":
        return bool(getattr(v, "is_cuda", False))
    if isinstance(v, Matrix) or not hasattr(v, "__cuda_array_interface__"):
        return False
    return True


def _pagerank(A, damping, tol, maxiter, personalization, backend, precision,
              pattern, history):
    if isinstance(A, Matrix):
        M, _ = _solver_matrix(A, backend, precision, "pagerank")
        return M.pagerank(damping=damping, tol=tol, maxiter=maxiter,
                          personalization=personalization, pattern=pattern,
                          history=history)
    # A scipy matrix: only a context is needed (no device copy of A).
    prec = _matrix_mod._precision(precision or "float64")
    _solve_mod.refuse_f32v(prec, "pagerank")
    arrays = _matrix_mod._to_csr(A)
    ctx = _matrix_mod.open_context(backend or "auto")
    try:
        return _matrix_mod.pagerank_csr(*arrays, ctx, prec, pattern, damping,
                                        tol, maxiter, personalization,
                                        history, "auto")
    finally:
        if ctx:
            _lib.context_free(ctx)
