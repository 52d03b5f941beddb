#!/usr/bin/env python3
"""solve_py.py — CuPy's cupyx.scipy.sparse.linalg.cg on the GPU and SciPy's
scipy.sparse.linalg.cg on the CPU, on the same matrix and right-hand side
as scripts/solvers/cg_cusparse.c and solve_smv.c (b = A * ones, x0 = 0,
no preconditioner, stop at ||r|| / ||b|| <= tol), for the solvers report.

  solve_py.py FILE.mtx[.gz] NAME [--tol T] [--maxit N] [--runs R]
              [--fixed N] [--no-scipy] [--no-cupy]

Prints "RESULT key=value ..." lines like the C programs: iterations
(counted by the callback), the true relative residual ||b - A x|| / ||b||
recomputed in double on the host, the median time to solution of R runs
after a warm-up (CuPy: synchronised before and after), and for CuPy the
time per iteration of N iterations with tol = 0.
"""
import argparse
import inspect
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse.linalg as spla


def tol_kw(fn, tol):
    params = inspect.signature(fn).parameters
    kw = {"rtol": tol} if "rtol" in params else {"tol": tol}
    if "atol" in params:
        kw["atol"] = 0.0
    return kw


def true_relres(A, b, x):
    x = np.asarray(x, dtype=np.float64)
    return float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))


def line(impl, name, n, nnz, its, true, tts, fixed_us, dev, extra=""):
    check = "PASS" if true <= 1e-7 else "FAIL"
    print(f"RESULT impl={impl} matrix={name} n={n} nnz={nnz} its={its} "
          f"true={true:.3e} tts_ms={tts * 1e3:.4f} "
          f"iter_us={tts * 1e6 / max(its, 1):.3f} fixed_iter_us={fixed_us:.3f} "
          f"check={check} device=\"{dev}\"{extra}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("name")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxit", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fixed", type=int, default=1000)
    ap.add_argument("--no-scipy", action="store_true")
    ap.add_argument("--no-cupy", action="store_true")
    a = ap.parse_args()
    A = scipy.io.mmread(a.path).tocsr().astype(np.float64)
    A.sort_indices()
    n, nnz = A.shape[0], A.nnz
    b = A @ np.ones(n)

    if not a.no_cupy:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cspla
        dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        dA = csp.csr_matrix(A)
        db = cp.asarray(b)
        its = [0]

        def cb(_xk):
            its[0] += 1

        kw = tol_kw(cspla.cg, a.tol)
        times = []
        x = None
        for k in range(a.runs + 1):
            its[0] = 0
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            x, info = cspla.cg(dA, db, maxiter=a.maxit, callback=cb, **kw)
            cp.cuda.Device().synchronize()
            if k > 0:
                times.append(time.perf_counter() - t0)
        true = true_relres(A, b, cp.asnumpy(x))
        kwf = tol_kw(cspla.cg, 0.0)
        ft = []
        for k in range(max(1, a.runs // 2)):
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            cspla.cg(dA, db, maxiter=a.fixed, **kwf)
            cp.cuda.Device().synchronize()
            ft.append(time.perf_counter() - t0)
        line(f"cupy-{cp.__version__}", a.name, n, nnz, its[0], true,
             float(np.median(times)), float(np.median(ft)) * 1e6 / a.fixed,
             dev, f" info={info}")

    if not a.no_scipy:
        its = [0]

        def cbs(_xk):
            its[0] += 1

        kw = tol_kw(spla.cg, a.tol)
        t0 = time.perf_counter()
        x, info = spla.cg(A, b, maxiter=a.maxit, callback=cbs, **kw)
        t = time.perf_counter() - t0
        line(f"scipy-{scipy.__version__}", a.name, n, nnz, its[0],
             true_relres(A, b, x), t, 0.0, "cpu", f" info={info}")


if __name__ == "__main__":
    main()
