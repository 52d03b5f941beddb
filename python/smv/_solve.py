"""The solvers behind smv.cg, smv.bicgstab and smv.pagerank (and
Matrix.solve / Matrix.pagerank): option structs in, the library's CPU
(smv_cg[_f32], smv_bicgstab[_f32], smv_pagerank[_f32]) or CUDA
(smv_solve_cuda_host, smv_pagerank_cuda) call, (x, SolveInfo) out.
Semantics are include/smv_solve.h's; docs/python.md has the user's view."""

import ctypes
from collections import namedtuple

import numpy as np

from . import _lib as L

SolveInfo = namedtuple("SolveInfo", [
    "method",      # 'cg', 'bicgstab' or 'pagerank'
    "iterations",  # completed iterations
    "relres",      # final ||r|| / ||b|| of the recurrence (PageRank: the
                   # last change of the rank vector, L1)
    "converged",   # relres <= tol within maxiter
    "breakdown",   # a zero (or non-finite) denominator stopped the method
    "seconds",     # wall time of the iterations (set-up excluded)
    "backend",     # 'cpu' or 'cuda'
    "precision",   # 'float64' or 'float32'
    "history",     # relres after k = 0..iterations iterations (numpy
                   # array, iterations + 1 entries) or None
    "graph_used",  # CUDA: the iterations ran as CUDA-graph replays
    "checks",      # CUDA: host convergence checks
    "persistent",  # CUDA: CG ran as the persistent cooperative kernel
    "precision_limited",  # float32: the recurrence met tol, the true
                   # residual (recomputed in double) did not: tol is below
                   # what float32 reaches; converged is then False
])
SolveInfo.__doc__ = ("Outcome of a solve: iterations, relres, converged, "
                     "breakdown, seconds, backend, precision, history, ...")

_METHODS = {"cg": L.SMV_METHOD_CG, "bicgstab": L.SMV_METHOD_BICGSTAB}
# The CPU entry points by (method, float32).
_CPU = {("cg", False): L.cg, ("cg", True): L.cg_f32,
        ("bicgstab", False): L.bicgstab, ("bicgstab", True): L.bicgstab_f32}
_PRECONDS = {"jacobi": L.SMV_PRECOND_JACOBI, "none": L.SMV_PRECOND_NONE,
             "chebyshev": L.SMV_PRECOND_CHEBYSHEV, None: L.SMV_PRECOND_NONE}


def _count(v, name, n):
    """maxiter as a C int (None: 10 n, scipy's default)."""
    if v is None:
        v = 10 * max(n, 1)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError("smv: %s must be an integer, not %r" % (name, v))
    if v > L.INT32_MAX:
        raise OverflowError("smv: %s = %d exceeds %d" % (name, v,
                                                          L.INT32_MAX))
    return int(v)  # negative values: the library's SMV_ERR_ARG


def _options(tol, maxiter, n, history, alg):
    """smv_solve_options from the library's defaults, and the history
    array it writes (or None); the array must outlive the call."""
    o = L.SolveOptions()
    L.solve_options_init(ctypes.byref(o))
    o.tol = float(tol)
    o.maxit = _count(maxiter, "maxiter", n)
    a = L.SPMV_ALGS.get(alg)
    if a is None:
        raise ValueError("smv: unknown SpMV algorithm %r (one of %s)"
                         % (alg, ", ".join(L.SPMV_ALGS)))
    o.alg = a
    hist = None
    if history:
        hist = np.zeros(max(o.maxit, 0) + 1)
        o.history = hist.ctypes.data_as(L.c_double_p)
        o.history_len = len(hist)
    return o, hist


def _info(method, res, hist, backend, prec):
    return SolveInfo(
        method=method, iterations=res.iterations, relres=res.relres,
        converged=bool(res.converged), breakdown=bool(res.breakdown),
        seconds=res.seconds, backend=backend,
        precision="float32" if prec == L.SMV_F32 else "float64",
        history=None if hist is None else hist[:res.history_count].copy(),
        graph_used=bool(res.graph_used), checks=res.checks,
        persistent=bool(res.persistent),
        precision_limited=bool(res.precision_limited))


def _square(shape, what):
    if shape[0] != shape[1]:
        raise ValueError("smv: %s needs a square matrix, not %d x %d"
                         % (what, shape[0], shape[1]))


def solve(M, method, b, x0, tol, maxiter, precond, history, alg):
    """CG or BiCGStab on the smv.Matrix M (its backend, precision and,
    on the GPU, its device matrix)."""
    m = _METHODS.get(method)
    if m is None:
        raise ValueError("smv: method must be 'cg' or 'bicgstab', not %r"
                         % (method,))
    p = _PRECONDS.get(precond) if isinstance(precond, (str, type(None))) \
        else None
    if p is None:
        raise ValueError("smv: precond must be 'jacobi', 'chebyshev' or "
                         "'none', not %r" % (precond,))
    _square(M.shape, method)
    n = M.shape[0]
    b = M._vector(b, n, "b")
    o, hist = _options(tol, maxiter, n, history, alg)
    o.precond = p
    f32 = M._prec == L.SMV_F32
    # The GPU entry point takes double vectors whatever the precision; the
    # CPU's f32 one float vectors.
    vt = np.float32 if f32 and M.backend == "cpu" else np.float64
    bv = np.ascontiguousarray(b, dtype=vt)
    x = np.zeros(n, dtype=vt)
    if x0 is not None:
        x0 = M._vector(x0, n, "x0")
        if not np.all(np.isfinite(x0)):
            raise ValueError("smv: x0 has entries that are not finite")
        x[:] = x0
        o.use_x0 = 1
    res = L.SolveResult()
    if M.backend == "cuda":
        dp = L.c_double_p
        L.check(L.solve_cuda_host(M._ctx, M._dA, m, bv.ctypes.data_as(dp),
                                  x.ctypes.data_as(dp), ctypes.byref(o),
                                  ctypes.byref(res)),
                "smv_solve_cuda_host(%s)" % method, M._ctx)
    else:
        err = L.Error()
        name = "smv_%s%s" % (method, "_f32" if f32 else "")
        f = _CPU[method, f32]
        vp = L.c_float_p if f32 else L.c_double_p
        L.check(f(ctypes.byref(M._csr), bv.ctypes.data_as(vp),
                  x.ctypes.data_as(vp), ctypes.byref(o), ctypes.byref(res),
                  ctypes.byref(err)), name, err=err)
    return (x.astype(M.dtype, copy=False),
            _info(method, res, hist, M.backend, M._prec))


def pagerank(csr, shape, ctx, prec, damping, tol, maxiter, personalization,
             history, alg):
    """PageRank of the host CSR struct `csr` (shape `shape`) on the GPU of
    `ctx` (smv_pagerank_cuda builds the transition matrix on the host and
    uploads it) or, when ctx is None, the CPU."""
    _square(shape, "pagerank")
    n = shape[0]
    o, hist = _options(tol, maxiter, n, history, alg)
    o.damping = float(damping)
    pers = None
    if personalization is not None:
        pers = np.asarray(personalization)
        if np.iscomplexobj(pers) or pers.ndim != 1 or pers.shape[0] != n:
            raise ValueError("smv: personalization has shape %s, expected "
                             "(%d,) real" % (pers.shape, n))
        pers = np.ascontiguousarray(pers, dtype=np.float64)
        o.personalization = pers.ctypes.data_as(L.c_double_p)
    f32 = prec == L.SMV_F32
    res = L.SolveResult()
    if ctx:
        r = np.zeros(n)
        L.check(L.pagerank_cuda(ctx, ctypes.byref(csr), prec,
                                r.ctypes.data_as(L.c_double_p),
                                ctypes.byref(o), ctypes.byref(res)),
                "smv_pagerank_cuda", ctx)
        backend = "cuda"
    else:
        err = L.Error()
        r = np.zeros(n, dtype=np.float32 if f32 else np.float64)
        f, vp = ((L.pagerank_f32, L.c_float_p) if f32
                 else (L.pagerank, L.c_double_p))
        L.check(f(ctypes.byref(csr), r.ctypes.data_as(vp), ctypes.byref(o),
                  ctypes.byref(res), ctypes.byref(err)),
                "smv_pagerank%s" % ("_f32" if f32 else ""), err=err)
        backend = "cpu"
    r = r.astype(np.float32 if f32 else np.float64, copy=False)
    return r, _info("pagerank", res, hist, backend, prec)
