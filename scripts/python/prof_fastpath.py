"""prof_fastpath.py — where the host time of a product from Python goes
(issue 21: `M @ x` within 4 us of the C API): each step of the fast path
(_fast.py) timed alone with time.perf_counter over many calls, on CuPy and
torch vectors, beside the whole product and the bare ctypes call. Host
microseconds per call (the GPU queue is drained before each timing; the
products are on a small matrix, so the launch, not the kernel, is timed).
Every product is checked against scipy first.

    SMV_LIB=build/libsmv.so PYTHONPATH=python python3 \\
        scripts/python/prof_fastpath.py [--n 20000]
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    a = ap.parse_args()
    import cupy
    import smv
    from smv import _fast, _lib as L
    try:
        import torch
    except ImportError:
        torch = None
    A = sp.random(3000, 3000, density=0.003, format="csr", random_state=1)
    M = smv.Matrix(A, backend="cuda")
    m = A.shape[0]
    xh = np.random.default_rng(2).uniform(-1, 1, m)
    x = cupy.asarray(xh)
    y = cupy.empty(m)
    ok = np.allclose((M @ x).get(), A @ xh, rtol=1e-12, atol=1e-12)
    print("verify cupy:", "PASS" if ok else "FAIL")
    sync = cupy.cuda.get_current_stream().synchronize
    nd = cupy.ndarray
    dt = np.dtype(np.float64)
    ctx, dA, xp, yp = M._ctx, M._dA, x.data.ptr, y.data.ptr
    M._set_stream(cupy.cuda.get_current_stream().ptr or 1)
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
    if torch is not None and torch.cuda.is_available():
        tx = torch.as_tensor(x)
        ok = np.allclose((M @ tx).cpu().numpy(), A @ xh, rtol=1e-12,
                         atol=1e-12)
        print("verify torch:", "PASS" if ok else "FAIL")
        ty = torch.empty(m, dtype=torch.float64, device="cuda")
        raw = torch._C._cuda_getCurrentRawStream
        rows += [
            ("M @ tx (torch)", lambda: M @ tx),
            ("M.matvec(tx, y=ty)", lambda: M.matvec(tx, y=ty)),
            ("_fast.run(M, tx, ty)", lambda: _fast.run(M, tx, ty, False)),
            ("tx.new_empty((m,))", lambda: tx.new_empty((m,))),
            ("torch.empty(m, cuda)", lambda: torch.empty(
                m, dtype=torch.float64, device="cuda")),
            ("tx.data_ptr()", lambda: tx.data_ptr()),
            ("tx.is_contiguous()", lambda: tx.is_contiguous()),
            ("tx.get_device()", lambda: tx.get_device()),
            ("tx.is_cuda", lambda: tx.is_cuda),
            ("tx.requires_grad", lambda: tx.requires_grad),
            ("tx.dim()", lambda: tx.dim()),
            ("tx.shape[0]", lambda: tx.shape[0]),
            ("tx.dtype is f64", lambda: tx.dtype is torch.float64),
            ("raw stream", lambda: raw(0)),
        ]
    print("%-28s %10s" % ("step", "host us"))
    for name, fn in rows:
        print("%-28s %10.3f" % (name, per_call(fn, a.n, sync)))
    M.close()


if __name__ == "__main__":
    main()
