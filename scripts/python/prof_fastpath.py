"""prof_fastpath.py — where the host time of a product from Python goes
(issue 21: `M @ x` within 4 us of the C API): each step of the fast path
(_fast.py) timed alone with time.perf_counter over many calls, on CuPy and
torch vectors, beside the whole product and the bare ctypes call. Host
microseconds per call (the GPU queue is drained before each timing; the
products are on a small matrix, so the launch, not the kernel, is timed).
Every product, and every torch allocation variant, is checked first.

Torch sections (one run settles the torch fast path's choices):
  whole      the product old (the fast path before this profiler's
             variants, kept here verbatim) against new, both as `M @ x`
             would call them and as the real operator;
  alloc      each way of making the result tensor: alone, then inside
             the product (allocate, then smv_spmv into it by ctypes),
             then as the fast path's allocation (_fast._torch_fast(alloc))
             with `M @ x` through it; the library's default is
             `torch.empty_like(x)` for a square product, else
             `x.new_empty(m)`, inline (the row "M @ tx (new, default)");
  checks     each attribute or method the checks could use;
  overhead   the loop and lambda call every row pays, a Python frame, the
             lock, the dtype lookups.
A step the installed torch lacks prints "n/a" with the reason.

    SMV_LIB=build/libsmv.so PYTHONPATH=python python3 \\
        scripts/python/prof_fastpath.py [--n 20000] [--only torch|cupy]
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp

_STREAM_LEGACY = 1


def per_call(fn, n, sync):
    sync()
    for _ in range(200):
        fn()
    sync()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - t) / n * 1e6
    sync()
    return host


def show(name, fn, n, sync):
    """One row: host us per call, or n/a when the step fails here (a
    feature this torch or CuPy lacks)."""
    if fn is None:
        print("%-46s %10s" % (name, "n/a"))
        return
    try:
        fn()
        v = per_call(fn, n, sync)
    except Exception as e:  # a missing attribute, an unsupported argument
        print("%-46s %10s  (%s: %s)" % (name, "n/a", type(e).__name__,
                                         str(e).splitlines()[0][:60]
                                         if str(e) else ""))
        return
    print("%-46s %10.3f" % (name, v))


def section(title):
    print("\n## %s" % title)
    print("%-46s %10s" % ("step", "host us"))


def old_torch_fast(torch, _launch):
    """The torch fast path as it was before the variants below were timed
    (verbatim but for its imports), for the old-against-new rows."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        def raw(d):
            return torch.cuda.current_stream(d).cuda_stream

    tdt = {np.dtype(np.float64): torch.float64,
           np.dtype(np.float32): torch.float32}
    T = torch.Tensor

    def run(M, x, y, transpose):
        dt = tdt[M.dtype]
        if (x.dtype is not dt or x.dim() != 1 or not x.is_cuda or
                not x.is_contiguous() or x.requires_grad):
            return None
        m, n = M.shape
        if transpose:
            m, n = n, m
        dev = M.device
        if x.shape[0] != n or x.get_device() != dev:
            return None
        if y is None:
            y = x.new_empty((m,))
        elif (not isinstance(y, T) or y.dtype is not dt or y.dim() != 1 or
              y.shape[0] != m or not y.is_contiguous() or
              y.get_device() != dev):
            return None
        _launch(M, transpose, raw(dev) or _STREAM_LEGACY, x.data_ptr(),
                y.data_ptr())
        return y

    return run


def torch_allocs(torch, dev):
    """name -> alloc(x, m, dt) for _fast._torch_fast(alloc=...): each
    makes m elements of dt on x's device (CUDA device dev), contiguous,
    from torch's caching allocator on that device's current stream. None
    where this torch lacks the function."""
    devobj = torch.device("cuda", dev)
    te, tel, tes = torch.empty, torch.empty_like, torch.empty_strided
    vf = getattr(getattr(torch._C, "_VariableFunctions", None), "empty",
                 None)
    out = {
        "x.new_empty(m) [default]": lambda x, m, dt: x.new_empty(m),
        "x.new_empty((m,))": lambda x, m, dt: x.new_empty((m,)),
        "torch.empty(m, dt, device=torch.device)":
            lambda x, m, dt: te(m, dtype=dt, device=devobj),
        "torch.empty((m,), dt, device=index)":
            lambda x, m, dt: te((m,), dtype=dt, device=dev),
        "torch.empty(m, dt, device=x.device)":
            lambda x, m, dt: te(m, dtype=dt, device=x.device),
        "_VariableFunctions.empty(m, dt, torch.device)":
            None if vf is None else
            (lambda x, m, dt: vf(m, dtype=dt, device=devobj)),
        "torch.empty_like(x) [m == n only]": lambda x, m, dt: tel(x),
        "torch.empty_strided((m,), (1,), dt, dev)":
            lambda x, m, dt: tes((m,), (1,), dtype=dt, device=devobj),
        "x.new(m) [legacy constructor]": lambda x, m, dt: x.new(m),
    }
    return out


def check_alloc(torch, fn, x, m, dt):
    """A variant's result is what the fast path needs, else the reason."""
    y = fn(x, m, dt)
    if not isinstance(y, torch.Tensor):
        return "not a tensor"
    if (tuple(y.shape) != (m,) or y.dtype != dt or y.device != x.device or
            not y.is_contiguous() or y.requires_grad):
        return "wrong result: %s %s %s" % (tuple(y.shape), y.dtype, y.device)
    return None


def cupy_rows(a, cupy, smv, _fast, L, A, xh, sync):
    M = smv.Matrix(A, backend="cuda")
    m = A.shape[0]
    x = cupy.asarray(xh)
    y = cupy.empty(m)
    ok = np.allclose((M @ x).get(), A @ xh, rtol=1e-12, atol=1e-12)
    print("verify cupy:", "PASS" if ok else "FAIL")
    nd = cupy.ndarray
    dt = np.dtype(np.float64)
    ctx, dA, xp, yp = M._ctx, M._dA, x.data.ptr, y.data.ptr
    M._set_stream(cupy.cuda.get_current_stream().ptr or 1)
    section("cupy")
    rows = [
        ("ctypes smv_spmv (c_api)", lambda: L.spmv(ctx, 0, 1.0, dA, xp, 0.0,
                                                   yp)),
        ("M.matvec(x, y=y)", lambda: M.matvec(x, y=y)),
        ("M @ x (ring)", lambda: M @ x),
        ("_fast.run(M, x, y)", lambda: _fast.run(M, x, y, False)),
        ("cupy.ndarray((m,), f8)", lambda: nd((m,), dt)),
        ("cupy.empty(m)", lambda: cupy.empty(m)),
        ("x.data.ptr", lambda: x.data.ptr),
        ("cupy current stream ptr",
         lambda: cupy.cuda.get_current_stream().ptr),
        ("M._ctx_lock acquire+release", lambda: (M._ctx_lock.acquire(),
                                                 M._ctx_lock.release())),
    ]
    for name, fn in rows:
        show(name, fn, a.n, sync)
    M.close()


def torch_rows(a, torch, smv, _fast, L, A, xh, sync):
    M = smv.Matrix(A, backend="cuda")
    m, n = A.shape
    dev = M.device
    want = A @ xh
    tx = torch.as_tensor(xh, device="cuda:%d" % dev)
    ty = torch.empty(m, dtype=torch.float64, device=tx.device)
    dt = torch.float64
    T = torch.Tensor
    old = old_torch_fast(torch, _fast._launch)
    new = _fast.FAST.get(T) or _fast.fast_for(T)
    ok = True
    for name, f in (("new", new), ("old", old)):
        r = f(M, tx, None, False)
        good = r is not None and np.allclose(r.cpu().numpy(), want,
                                             rtol=1e-12, atol=1e-12)
        print("verify torch fast path %s: %s" % (name,
                                                  "PASS" if good else "FAIL"))
        ok = ok and good
    good = np.allclose((M @ tx).cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    print("verify torch M @ tx: %s" % ("PASS" if good else "FAIL"))
    allocs = torch_allocs(torch, dev)
    runs = {}
    for name, fn in allocs.items():
        if fn is None:
            print("alloc %s: n/a (missing in this torch)" % name)
            continue
        try:
            why = check_alloc(torch, fn, tx, m, dt)
            if why is None:
                rv = _fast._torch_fast(alloc=fn)
                r = rv(M, tx, None, False)
                if r is None or not np.allclose(r.cpu().numpy(), want,
                                                rtol=1e-12, atol=1e-12):
                    why = "wrong product"
        except Exception as e:
            why = "%s: %s" % (type(e).__name__, e)
        if why is None:
            runs[name] = rv
            print("verify alloc %s: PASS" % name)
        else:
            allocs[name] = None
            print("verify alloc %s: n/a (%s)" % (name, why))
    if not ok:
        print("FAIL: the torch fast path is wrong; nothing timed")
        M.close()
        return 1

    OLD_FAST = {T: old}

    def old_dispatch(M, x, y, transpose):  # _fast.run as it was
        f = OLD_FAST.get(type(x), 0)
        if f == 0:
            f = _fast.fast_for(type(x))
        return None if f is None else f(M, x, y, transpose)

    def old_matmul(M, X):  # Matrix.__matmul__ as it was
        if M._cuda:
            r = old_dispatch(M, X, None, False)
            if r is not None:
                return r

    def new_matmul(M, X):  # Matrix.__matmul__ now
        if M._cuda:
            f = _fast.FAST.get(type(X), _fast.UNSEEN)
            if f is _fast.UNSEEN:
                f = _fast.fast_for(type(X))
            if f is not None:
                r = f(M, X, None, False)
                if r is not None:
                    return r

    ctx, dA, xp, yp = M._ctx, M._dA, tx.data_ptr(), ty.data_ptr()
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    M._set_stream((raw(dev) if raw else
                   torch.cuda.current_stream(dev).cuda_stream) or 1)
    spmv = L.spmv

    section("torch: whole product (old = before this change)")
    for name, fn in [
        ("ctypes smv_spmv (c_api)", lambda: spmv(ctx, 0, 1.0, dA, xp, 0.0,
                                                 yp)),
        ("M @ tx (new, default)", lambda: M @ tx),
        ("old __matmul__ chain (emulated)", lambda: old_matmul(M, tx)),
        ("new __matmul__ chain (emulated)", lambda: new_matmul(M, tx)),
        ("old run(M, tx, None)", lambda: old(M, tx, None, False)),
        ("new run(M, tx, None)", lambda: new(M, tx, None, False)),
        ("old run(M, tx, ty)", lambda: old(M, tx, ty, False)),
        ("new run(M, tx, ty)", lambda: new(M, tx, ty, False)),
        ("M.matvec(tx, y=ty)", lambda: M.matvec(tx, y=ty)),
        ("M.spmv(tx) (the general path)",
         lambda: M.spmv(tx)),
    ]:
        show(name, fn, a.n, sync)

    section("torch: result allocation (alone | + smv_spmv into it | "
            "as the fast path's | M @ tx through it)")
    for name, fn in allocs.items():
        if fn is None:
            show(name, None, a.n, sync)
            continue
        rv = runs[name]

        def with_spmv(fn=fn):
            y = fn(tx, m, dt)
            spmv(ctx, 0, 1.0, dA, xp, 0.0, y.data_ptr())
            return y

        show("alone: " + name, lambda fn=fn: fn(tx, m, dt), a.n, sync)
        show("+spmv: " + name, with_spmv, a.n, sync)
        show("run:   " + name, lambda rv=rv: rv(M, tx, None, False), a.n,
             sync)
        _fast.FAST[T] = rv
        try:
            show("M @ x: " + name, lambda: M @ tx, a.n, sync)
        finally:
            _fast.FAST[T] = new

    section("torch: checks (each through a lambda: subtract 'lambda: None')")
    devobj = torch.device("cuda", dev)
    vmap = {np.dtype(np.float64): torch.float64,
            np.dtype(np.float32): torch.float32}
    tup = (torch.float64, torch.float32, torch.float64)
    mdt = M.dtype
    for name, fn in [
        ("lambda: None", lambda: None),
        ("x.dtype is f64", lambda: tx.dtype is dt),
        ("x.dim()", lambda: tx.dim()),
        ("x.ndim", lambda: tx.ndim),
        ("x.is_cuda", lambda: tx.is_cuda),
        ("x.is_contiguous()", lambda: tx.is_contiguous()),
        ("x.requires_grad", lambda: tx.requires_grad),
        ("x.shape[0]", lambda: tx.shape[0]),
        ("x.size(0)", lambda: tx.size(0)),
        ("x.numel()", lambda: tx.numel()),
        ("x.shape == (n,)", lambda: tx.shape == (n,)),
        ("x.stride() == (1,)", lambda: tx.stride() == (1,)),
        ("x.get_device()", lambda: tx.get_device()),
        ("x.device.index", lambda: tx.device.index),
        ("x.device == torch.device", lambda: tx.device == devobj),
        ("x.data_ptr()", lambda: tx.data_ptr()),
        ("type(x) is Tensor", lambda: type(tx) is T),
        ("isinstance(x, Tensor)", lambda: isinstance(tx, T)),
        ("_cuda_getCurrentRawStream(dev)",
         None if raw is None else (lambda: raw(dev))),
        ("torch.cuda.current_stream(dev).cuda_stream",
         lambda: torch.cuda.current_stream(dev).cuda_stream),
    ]:
        show(name, fn, a.n, sync)

    section("overhead (each through a lambda)")

    def nothing(M, x, y, t):
        return None

    lock = M._ctx_lock

    def with_lock():
        with lock:
            pass

    for name, fn in [
        ("lambda: None", lambda: None),
        ("a Python call f(M, x, None, False)",
         lambda: nothing(M, tx, None, False)),
        ("with M._ctx_lock: pass", with_lock),
        ("dict[M.dtype] (np.dtype hash)", lambda: vmap[M.dtype]),
        ("tuple[M._prec]", lambda: tup[M._prec]),
        ("hash(np.dtype)", lambda: hash(mdt)),
        ("m, n = M.shape; M.device", lambda: (M.shape, M.device)),
    ]:
        show(name, fn, a.n, sync)
    M.close()
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--only", choices=("cupy", "torch"))
    a = ap.parse_args()
    import smv
    from smv import _fast, _lib as L

    def imp(name):
        try:
            return __import__(name)
        except Exception:  # missing, or its CUDA libraries fail to load
            return None

    cupy = imp("cupy")
    torch = imp("torch")
    if torch is not None and not torch.cuda.is_available():
        torch = None
    syncs = []
    if cupy is not None:
        syncs.append(lambda: cupy.cuda.get_current_stream().synchronize())
    if torch is not None:
        syncs.append(torch.cuda.synchronize)

    def sync():
        for s in syncs:
            s()

    A = sp.random(3000, 3000, density=0.003, format="csr", random_state=1)
    xh = np.random.default_rng(2).uniform(-1, 1, A.shape[1])
    rc = 0
    if a.only in (None, "cupy"):
        if cupy is None:
            print("cupy: n/a (not importable)")
        else:
            cupy_rows(a, cupy, smv, _fast, L, A, xh, sync)
    if a.only in (None, "torch"):
        if torch is None:
            print("torch: n/a (not importable or no CUDA)")
        else:
            rc = torch_rows(a, torch, smv, _fast, L, A, xh, sync)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
