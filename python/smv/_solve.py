"""The solvers behind smv.cg, smv.bicgstab and smv.pagerank (and
Matrix.solve / Matrix.pagerank): option structs in, the library's CPU
(smv_cg[_f32], smv_bicgstab[_f32], smv_pagerank[_f32]) or CUDA
(smv_solve_cuda_host, smv_pagerank_cuda) call, (x, SolveInfo) out.
Semantics are include/smv_solve.h's; docs/python.md has the user's view."""

import ctypes
import math
from collections import namedtuple

import numpy as np

from . import _array
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
    "kernel",      # CUDA: which persistent kernel ran the iterations
                   # ('cg-resident-pr', 'cg-resident', 'cg1', 'cg2',
                   # 'bicgstab'), or None
])
SolveInfo.__doc__ = ("Outcome of a solve: iterations, relres, converged, "
                     "breakdown, seconds, backend, precision, history, ...")

# smv_solve_result.persistent (smv_persistent_kernel) by value.
_KERNELS = {1: "cg1", 2: "cg2", 3: "bicgstab", 4: "cg-resident",
            5: "cg-resident-pr"}

_METHODS = {"cg": L.SMV_METHOD_CG, "bicgstab": L.SMV_METHOD_BICGSTAB}
# The CPU entry points by (method, float32).
_CPU = {("cg", False): L.cg, ("cg", True): L.cg_f32,
        ("bicgstab", False): L.bicgstab, ("bicgstab", True): L.bicgstab_f32}
_PRECONDS = {"jacobi": L.SMV_PRECOND_JACOBI, "none": L.SMV_PRECOND_NONE,
             "chebyshev": L.SMV_PRECOND_CHEBYSHEV, None: L.SMV_PRECOND_NONE}


def _count(v, name, n, history=False):
    """maxiter as a C int (None: 10 n, scipy's default); with history,
    maxiter + 1 entries must fit a C int too (history_len)."""
    if v is None:
        v = min(10 * max(n, 1), L.INT32_MAX - 1)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError("smv: %s must be an integer, not %r" % (name, v))
    hi = L.INT32_MAX - 1 if history else L.INT32_MAX
    if v > hi:
        raise OverflowError("smv: %s = %d exceeds %d%s" % (
            name, v, hi, " (history=True keeps maxiter + 1 entries)"
            if history else ""))
    if v < -L.INT32_MAX - 1:
        raise OverflowError("smv: %s = %d is below %d" % (name, v,
                                                           -L.INT32_MAX - 1))
    return int(v)  # negative values: the library's SMV_ERR_ARG


def _options(tol, maxiter, n, history, alg):
    """smv_solve_options from the library's defaults, and the history
    array it writes (or None); the array must outlive the call."""
    o = L.SolveOptions()
    L.solve_options_init(ctypes.byref(o))
    o.tol = float(tol)
    o.maxit = _count(maxiter, "maxiter", n, history)
    a = L.parse_alg(alg)
    if a is None:
        raise ValueError("smv: unknown SpMV algorithm %r (one of %s)"
                         % (alg, ", ".join(L.SPMV_ALGS)))
    o.alg = a
    hist = None
    if history:
        hist = np.zeros(max(o.maxit, 0) + 1)  # fits: maxit < INT32_MAX
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
        precision_limited=bool(res.precision_limited),
        kernel=_KERNELS.get(res.persistent))


def _square(shape, what):
    if shape[0] != shape[1]:
        raise ValueError("smv: %s needs a square matrix, not %d x %d"
                         % (what, shape[0], shape[1]))


def refuse_f32v(prec, what):
    """Precision f64-f32v runs A x only: the library's solvers refuse it
    (SMV_ERR_UNSUPPORTED), and so do the Python ones, whose products
    would be f64-f32v without the library's checks on the result."""
    if prec == L.SMV_F64_F32V:
        raise L.SmvError(
            L.SMV_ERR_UNSUPPORTED,
            "smv.%s: precision 'f64-f32v' runs only A x (matvec, @, spmv); "
            "the solvers refuse it (use 'float64' or 'float32')" % what)


def _norm(v):
    """The 2-norm of a vector of any array library, as a float."""
    return math.sqrt(float(abs(v @ v)))


def solve(M, method, b, x0, tol, maxiter, precond, history, alg, atol=0.0,
          Mop=None, callback=None):
    """CG or BiCGStab on the smv.Matrix M (its backend, precision and,
    on the GPU, its device matrix). With a preconditioner operator Mop or
    a callback, the Python iteration below; else the library's solver."""
    refuse_f32v(M._prec, method)
    m = _METHODS.get(method)
    if m is None:
        raise ValueError("smv: method must be 'cg' or 'bicgstab', not %r"
                         % (method,))
    if isinstance(Mop, str) or Mop is None:
        if Mop is not None:
            precond = Mop
        Mop = None
    p = _PRECONDS.get(precond) if isinstance(precond, (str, type(None))) \
        else None
    if p is None:
        raise ValueError("smv: precond must be 'jacobi', 'chebyshev' or "
                         "'none', not %r" % (precond,))
    _square(M.shape, method)
    n = M.shape[0]
    atol = float(atol)
    if not atol >= 0:
        raise ValueError("smv: atol = %r must be >= 0" % (atol,))
    dev = None if type(b) is np.ndarray else _array.read_device(b)
    if Mop is not None or callback is not None:
        return _python_solve(M, method, b, dev, x0, float(tol), atol,
                             _count(maxiter, "maxiter", n), p, Mop, callback,
                             history)
    if atol > 0:  # scipy's rule ||r|| <= max(rtol ||b||, atol), relative
        bn = _norm(b if dev is not None else M._vector(b, n, "b")
                   .astype(np.float64))
        if bn > 0:
            tol = max(float(tol), atol / bn)
    if dev is not None:
        return _solve_dev(M, method, m, dev, x0, tol, maxiter, p, history,
                          alg)
    b = M._vector(b, n, "b")
    o, hist = _options(tol, maxiter, n, history, alg)
    o.precond = p
    f32 = M._prec == L.SMV_F32
    # The GPU entry point takes double vectors whatever the precision; the
    # CPU's f32 one float vectors.
    vt = np.float32 if f32 and M.backend == "cpu" else np.float64
    bv = _array.aligned(b, vt, "b")
    x = np.zeros(n, dtype=vt)
    if x0 is not None:
        x0 = M._vector(x0, n, "x0")
        if not np.all(np.isfinite(x0)):
            raise ValueError("smv: x0 has entries that are not finite")
        x[:] = x0
        o.use_x0 = 1
    res = L.SolveResult()
    M._enter()
    try:
        if M.backend == "cuda":
            dp = L.c_double_p
            with M._ctx_lock:
                M._set_stream(None)  # a stream it may capture (own)
                L.check(L.solve_cuda_host(M._ctx, M._dA, m,
                                          bv.ctypes.data_as(dp),
                                          x.ctypes.data_as(dp),
                                          ctypes.byref(o), ctypes.byref(res)),
                        "smv_solve_cuda_host(%s)" % method, M._ctx)
        else:
            err = L.Error()
            name = "smv_%s%s" % (method, "_f32" if f32 else "")
            f = _CPU[method, f32]
            vp = L.c_float_p if f32 else L.c_double_p
            L.check(f(ctypes.byref(M._csr), bv.ctypes.data_as(vp),
                      x.ctypes.data_as(vp), ctypes.byref(o),
                      ctypes.byref(res), ctypes.byref(err)), name, err=err)
    finally:
        M._leave()
    return (x.astype(M.dtype, copy=False),
            _info(method, res, hist, M.backend, M._prec))


def _copy_like(v):
    """A new device array equal to the Vec v's array (its library)."""
    x = v.obj
    if hasattr(x, "clone"):
        return x.clone()
    return x.copy()


def _solve_dev(M, method, m, vb, x0, tol, maxiter, precond, history, alg):
    """smv_cg_cuda / smv_bicgstab_cuda on device vectors of the caller's
    library, on b's stream; x is a new array of that library."""
    n = M.shape[0]
    M._check_dev(vb, "b", (n,))
    if not vb.contig:
        st = vb.stream
        vb = vb.kind.read(vb.kind.contiguous(vb.obj))
        vb.stream = st
    o, hist = _options(tol, maxiter, n, history, alg)
    o.precond = precond
    if x0 is not None:
        v0 = _array.read_device(x0)
        if v0 is None:
            raise TypeError("smv: x0 must be a device array like b")
        M._check_dev(v0, "x0", (n,))
        x = _copy_like(v0)
        o.use_x0 = 1
    elif isinstance(vb.kind, _array.DlpackKind):
        x = vb.kind.result_empty((n,), M.dtype, M.device)
    else:
        x = vb.kind.empty((n,), M.dtype, vb.obj)
    vx = _array.read_device(x)
    f = L.cg_cuda if method == "cg" else L.bicgstab_cuda
    res = L.SolveResult()
    M._enter()
    try:
        with M._ctx_lock:
            s = vb.stream
            if s in (_array.STREAM_LEGACY, _array.STREAM_PER_THREAD):
                # The solver captures a CUDA graph, which the default
                # streams refuse: wait for the caller's stream (b is
                # written), solve on the context's own stream; the call
                # returns when x is final, so the caller's later work on
                # its stream sees it.
                M._set_stream(s)
                L.check(L.synchronize(M._ctx), "smv_synchronize", M._ctx)
                s = None
            M._set_stream(s)
            L.check(f(M._ctx, M._dA, vb.ptr, vx.ptr, ctypes.byref(o),
                      ctypes.byref(res)), "smv_%s_cuda" % method, M._ctx)
    finally:
        M._leave()
    if isinstance(vb.kind, _array.DlpackKind):
        x = vb.kind._wrap(vb.obj, x)
    return x, _info(method, res, hist, M.backend, M._prec)


def _apply(op, r):
    """A preconditioner applied to r: a LinearOperator/matrix (matvec or
    @) or a plain callable."""
    if hasattr(op, "matvec"):
        return op.matvec(r)
    if callable(op):
        return op(r)
    return op @ r


def _like(v, host):
    """A numpy vector moved to the library and device of the vector v."""
    mod = type(v).__module__.split(".")[0]
    if mod == "cupy":
        import cupy

        return cupy.asarray(host, dtype=v.dtype)
    if mod == "torch":
        import torch

        return torch.as_tensor(host, device=v.device).to(v.dtype)
    if mod in ("jax", "jaxlib"):
        import jax.numpy as jnp

        return jnp.asarray(host, dtype=v.dtype)
    return np.asarray(host, dtype=getattr(v, "dtype", np.float64))


def _python_solve(M, method, b, dev, x0, rtol, atol, maxiter, precond, Mop,
                  callback, history):
    """Preconditioned CG / BiCGStab in Python over M's products, for a
    preconditioner operator (M=) or a callback: every step uses the
    arrays' own operators (numpy, CuPy, PyTorch), so device vectors stay
    on the device. Stops when ||r|| <= max(rtol ||b||, atol) (scipy's
    rule, r the recurrence's residual)."""
    import time

    n = M.shape[0]
    if dev is None:
        b = M._vector(b, n, "b").astype(M.dtype)
    else:
        M._check_dev(dev, "b", (n,))
    if Mop is None and precond == L.SMV_PRECOND_CHEBYSHEV:
        raise ValueError("smv: precond='chebyshev' runs in the library's "
                         "solver only, not with a callback")
    if Mop is None and precond == L.SMV_PRECOND_JACOBI:
        d = M.diagonal()
        if np.any(d == 0):
            raise ValueError("smv: Jacobi needs a nonzero diagonal (row %d "
                             "is zero); pass M=None with precond='none'"
                             % int(np.argmax(d == 0)))
        inv = _like(b, 1.0 / d)
        Mop = (lambda r: r * inv)
    if Mop is None:
        Mop = (lambda r: r)
    x = b * 0 if x0 is None else (
        M._vector(x0, n, "x0").astype(M.dtype) if dev is None else x0 * 1)
    t0 = time.perf_counter()
    bn = _norm(b)
    thresh = max(rtol * bn, atol)
    r = b - M.matvec(x) if x0 is not None else b * 1
    rn = _norm(r)
    hist = [rn / bn if bn else 0.0]
    it, conv, brk = 0, rn <= thresh, False

    def record(x, r):
        """After an iteration: ||r|| into the history, the callback, and
        whether it converged."""
        rn = _norm(r)
        hist.append(rn / bn if bn else 0.0)
        if callback is not None:
            callback(x)
        return rn, rn <= thresh
    if method == "cg":
        z = _apply(Mop, r)
        p = z * 1
        rho = float(r @ z)
        while not conv and it < maxiter:
            q = M.matvec(p)
            pq = float(p @ q)
            if pq == 0 or not math.isfinite(pq):
                brk = True
                break
            a = rho / pq
            x = x + a * p
            r = r - a * q
            it += 1
            rn, conv = record(x, r)
            if conv:
                break
            z = _apply(Mop, r)
            rho_new = float(r @ z)
            if rho == 0:
                brk = True
                break
            p = z + (rho_new / rho) * p
            rho = rho_new
    else:
        rh = r * 1
        rho = alpha = omega = 1.0
        v = p = r * 0
        while not conv and it < maxiter:
            rho_new = float(rh @ r)
            if rho_new == 0 or omega == 0:
                brk = True
                break
            beta = (rho_new / rho) * (alpha / omega)
            rho = rho_new
            p = r + beta * (p - omega * v)
            ph = _apply(Mop, p)
            v = M.matvec(ph)
            rv = float(rh @ v)
            if rv == 0:
                brk = True
                break
            alpha = rho / rv
            s = r - alpha * v
            it += 1
            if _norm(s) <= thresh:
                x = x + alpha * ph
                r = s
                rn, conv = record(x, r)
                conv = True
                break
            sh = _apply(Mop, s)
            t = M.matvec(sh)
            tt = float(t @ t)
            omega = float(t @ s) / tt if tt else 0.0
            x = x + alpha * ph + omega * sh
            r = s - omega * t
            rn, conv = record(x, r)
    info = SolveInfo(
        method=method, iterations=it, relres=rn / bn if bn else 0.0,
        converged=bool(conv), breakdown=bool(brk and not conv),
        seconds=time.perf_counter() - t0, backend=M.backend,
        precision="float32" if M._prec == L.SMV_F32 else "float64",
        history=np.array(hist) if history else None, graph_used=False,
        checks=0, persistent=False, precision_limited=False, kernel=None)
    return x, info


def pagerank(csr, shape, ctx, prec, damping, tol, maxiter, personalization,
             history, alg):
    """PageRank of the host CSR struct `csr` (shape `shape`) on the GPU of
    `ctx` (smv_pagerank_cuda builds the transition matrix on the host and
    uploads it) or, when ctx is None, the CPU."""
    refuse_f32v(prec, "pagerank")
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
