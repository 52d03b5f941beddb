#!/usr/bin/env python3
"""check_scipy.py — check smv against scipy on real Matrix Market files.

For every matrix (default: ../shared/matrices/*.mtx.gz, or the carried copy
.shared/matrices/ on the device machine):

  1. `smv info FILE --json` against scipy: rows, cols, nnz after scipy's
     symmetric expansion and duplicate summing (mmread + tocsr +
     sum_duplicates; explicit zeros kept, as smv keeps them), row-length
     min/max/mean/stddev and empty rows.
  2. `smv spmv FILE --x X --y Y --alpha A --beta B` with random x and y
     written as Matrix Market arrays (%.17g, exact) against
     alpha*(A@x) + beta*y computed by scipy in double:
       - norm-wise:  ||y - ref|| <= tol * ||ref||
       - per entry:  |y_i - ref_i| <= tol_i * (|alpha| (|A||x|)_i + |beta y_i|)
     with tol = tol_i = 1e-12 for f64; for f32 (values, x and y rounded to
     float, float accumulation) tol_i = 4 * 2^-24 * (len_i + 2) and
     tol = 1e-4.

Not part of the test suite: it needs ../shared and scipy (run it with
/usr/bin/python3, which has scipy 1.10.1 here). Exit status 0 when every
matrix passes, 1 otherwise, 2 on usage errors.

  scripts/check_scipy.py                      # CPU, f64, build/smv
  scripts/check_scipy.py --backend cuda       # on the GPU machine
  scripts/check_scipy.py --record bench/results/DEVICE/scipy-check.md
  SMV_COMMIT=abc123 scripts/check_scipy.py ...   # where there is no .git
"""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_smv():
    for cand in ("build/smv", "build-cpu/smv"):
        p = os.path.join(REPO, cand)
        if os.access(p, os.X_OK):
            return p
    return os.path.join(REPO, "build/smv")


def default_matrices():
    for cand in (".shared/matrices", "../shared/matrices"):
        p = os.path.normpath(os.path.join(REPO, cand))
        if os.path.isdir(p):
            return p
    return os.path.normpath(os.path.join(REPO, "../shared/matrices"))


def scipy_csr(path):
    """The matrix as scipy sees it, in the form smv's reader promises:
    general (symmetric halves mirrored by mmread), duplicates summed,
    explicit zeros kept, values as double."""
    m = scipy.io.mmread(path)
    if isinstance(m, np.ndarray):
        # Array format: every stored entry is an entry (zeros too).
        r, c = np.indices(m.shape)
        m = sp.coo_matrix((m.ravel(), (r.ravel(), c.ravel())), shape=m.shape)
    A = sp.csr_matrix(m, dtype=np.float64)  # tocsr sums duplicates
    A.sum_duplicates()
    return A


def write_vec(path, v):
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n")
        f.write("%d 1\n" % len(v))
        for a in v:
            f.write("%r\n" % float(a))  # repr: shortest exact round trip


def read_vec(path):
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("%") and ln.strip()]
    n = int(lines[0].split()[0])
    v = np.array([float(x) for x in lines[1:]], dtype=np.float64)
    if len(v) != n:
        raise ValueError("%s: size line says %d, holds %d" % (path, n, len(v)))
    return v


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_one(path, args, rng, tmp):
    name = os.path.basename(path).replace(".mtx.gz", "").replace(".mtx", "")
    res = {"name": name, "ok": True, "notes": []}

    def fail(msg):
        res["ok"] = False
        res["notes"].append(msg)

    A = scipy_csr(path)
    rows, cols = A.shape
    lens = np.diff(A.indptr)
    res.update(rows=rows, cols=cols, nnz=A.nnz)

    # --- info ----------------------------------------------------------
    rc, out, err = run([args.smv, "info", path, "--json"])
    if rc != 0:
        fail("info exit %d: %s" % (rc, err.strip()))
        return res
    info = json.loads(out)
    want = {
        "rows": rows,
        "cols": cols,
        "nnz": A.nnz,
        "row_min": int(lens.min()) if rows else 0,
        "row_max": int(lens.max()) if rows else 0,
        "empty_rows": int((lens == 0).sum()),
    }
    for k, v in want.items():
        if info.get(k) != v:
            fail("info %s = %s, scipy %s" % (k, info.get(k), v))
    for k, v in (("row_mean", lens.mean() if rows else 0.0),
                 ("row_stddev", lens.std() if rows else 0.0)):
        if abs(info.get(k, float("nan")) - v) > 1e-12 * max(1.0, abs(v)):
            fail("info %s = %r, scipy %r" % (k, info.get(k), v))
    if sum(b["rows"] for b in info.get("histogram", [])) != rows:
        fail("info histogram does not add up to the rows")
    res["info"] = "ok" if res["ok"] else "FAIL"

    # --- spmv ----------------------------------------------------------
    x = rng.uniform(-1.0, 1.0, cols)
    y0 = rng.uniform(-1.0, 1.0, rows)
    alpha, beta = 1.5, -0.75
    xf, yf, of = (os.path.join(tmp, name + s) for s in ("_x.mtx", "_y.mtx", "_out.mtx"))
    write_vec(xf, x)
    write_vec(yf, y0)
    cmd = [args.smv, "spmv", path, "--x", xf, "--y", yf, "--alpha", repr(alpha),
           "--beta", repr(beta), "-o", of, "--backend", args.backend,
           "--precision", args.precision]
    if args.alg:
        cmd += ["--alg", args.alg]
    rc, out, err = run(cmd)
    if rc != 0:
        fail("spmv exit %d: %s" % (rc, err.strip()))
        return res
    y = read_vec(of)
    if len(y) != rows:
        fail("spmv wrote %d values for %d rows" % (len(y), rows))
        return res
    if args.precision == "f32":
        # The inputs smv actually used: x and y rounded to float.
        x = x.astype(np.float32).astype(np.float64)
        y0 = y0.astype(np.float32).astype(np.float64)
        tol_i = 4.0 * 2.0 ** -24 * (lens + 2)
        tol = args.tol if args.tol else 1e-4
    else:
        tol = args.tol if args.tol else 1e-12
        tol_i = np.full(rows, tol)
    ref = alpha * (A @ x) + beta * y0
    absA = abs(A)
    bound = abs(alpha) * (absA @ abs(x)) + abs(beta * y0)
    diff = np.abs(y - ref)
    nref = np.linalg.norm(ref)
    res["norm_rel"] = float(np.linalg.norm(y - ref) / nref) if nref > 0 else float(np.linalg.norm(y - ref))
    if not np.all(np.isfinite(y)):
        fail("spmv result has %d non-finite values" % int((~np.isfinite(y)).sum()))
    if res["norm_rel"] > tol:
        fail("norm-wise relative error %.3g > %.3g" % (res["norm_rel"], tol))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(bound > 0, diff / bound, np.where(diff > 0, np.inf, 0.0))
    res["entry_rel"] = float(ratio.max()) if rows else 0.0
    badi = np.nonzero(diff > tol_i * bound)[0]
    if len(badi):
        i = badi[0]
        fail("%d entries beyond the per-entry bound (first y[%d] = %r, scipy %r, |A||x| bound %r)"
             % (len(badi), i, y[i], ref[i], bound[i]))
    res["spmv"] = "ok" if not badi.size and res["norm_rel"] <= tol else "FAIL"
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smv", default=default_smv(), help="the smv binary (default build/smv)")
    ap.add_argument("--matrices", default=default_matrices(),
                    help="folder of .mtx/.mtx.gz files (default .shared/matrices or ../shared/matrices)")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "auto"))
    ap.add_argument("--precision", default="f64", choices=("f64", "f32"))
    ap.add_argument("--alg", default=None, help="passed to smv spmv --alg")
    ap.add_argument("--tol", type=float, default=None,
                    help="relative tolerance (default 1e-12 for f64, 1e-4 norm-wise for f32)")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--record", default=None, help="write a Markdown summary to this file")
    ap.add_argument("names", nargs="*", help="only these matrices (base names)")
    args = ap.parse_args()

    if not os.access(args.smv, os.X_OK):
        print("check_scipy: %s is not an executable (build with make first)" % args.smv,
              file=sys.stderr)
        return 2
    files = sorted(glob.glob(os.path.join(args.matrices, "*.mtx.gz")) +
                   glob.glob(os.path.join(args.matrices, "*.mtx")))
    if args.names:
        files = [f for f in files if os.path.basename(f).split(".")[0] in args.names]
    if not files:
        print("check_scipy: no matrices in %s" % args.matrices, file=sys.stderr)
        return 2

    rng = np.random.default_rng(args.seed)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            try:
                r = check_one(f, args, rng, tmp)
            except Exception as e:  # a crash in one matrix is that matrix's failure
                r = {"name": os.path.basename(f), "ok": False, "notes": ["exception: %r" % e]}
            results.append(r)
            print("%-18s %8s %8s %9s  info %-4s spmv %-4s norm %.2e entry %.2e %s" % (
                r["name"], r.get("rows", "?"), r.get("cols", "?"), r.get("nnz", "?"),
                r.get("info", "-"), r.get("spmv", "-"), r.get("norm_rel", float("nan")),
                r.get("entry_rel", float("nan")), "; ".join(r["notes"])), flush=True)

    npass = sum(r["ok"] for r in results)
    worst_norm = max((r.get("norm_rel", 0.0) for r in results), default=0.0)
    worst_entry = max((r.get("entry_rel", 0.0) for r in results), default=0.0)
    summary = ("%d of %d matrices pass (backend %s, %s); worst norm-wise relative error %.2e, "
               "worst per-entry error / (|alpha||A||x| + |beta y|) %.2e"
               % (npass, len(results), args.backend, args.precision, worst_norm, worst_entry))
    print(summary)

    if args.record:
        rc, ver, _ = run([args.smv, "version"])
        # The device machine's copy has no .git: take SMV_COMMIT from the caller.
        commit = os.environ.get("SMV_COMMIT") or subprocess.run(
            ["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True).stdout.strip() or "unknown"
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(args.record, "w") as f:
            f.write("# smv vs scipy on the SuiteSparse set\n\n")
            f.write("Produced by `scripts/check_scipy.py --backend %s --precision %s` "
                    "(scipy %s, numpy %s).\n\n" % (args.backend, args.precision,
                                                   scipy.__version__, np.__version__))
            f.write("- date: %s\n- commit: %s\n- binary: %s\n- matrices: %s (%d files)\n"
                    % (now, commit, ver.strip(), args.matrices.replace(REPO + "/", ""), len(files)))
            f.write("- checks: `smv info --json` (rows, cols, nnz after symmetric expansion and "
                    "duplicate summing, row min/max/mean/stddev, empty rows) against scipy "
                    "mmread+tocsr; `smv spmv` with random x and y (seed %d), alpha = 1.5, "
                    "beta = -0.75, against alpha*A@x + beta*y in scipy\n" % args.seed)
            f.write("- tolerance: %s\n\n" % (
                "1e-12 norm-wise and per entry relative to |alpha||A||x| + |beta y|"
                if args.precision == "f64" else
                "1e-4 norm-wise; per entry 4*2^-24*(len+2) relative to |alpha||A||x| + |beta y|"))
            f.write("**%s**\n\n" % summary)
            f.write("| matrix | rows | cols | nnz | info | spmv | norm rel err | max entry err / bound |\n")
            f.write("|---|---:|---:|---:|---|---|---:|---:|\n")
            for r in results:
                f.write("| %s | %s | %s | %s | %s | %s | %.2e | %.2e |\n" % (
                    r["name"], r.get("rows", "?"), r.get("cols", "?"), r.get("nnz", "?"),
                    r.get("info", "-"), r.get("spmv", "-"), r.get("norm_rel", float("nan")),
                    r.get("entry_rel", float("nan"))))
            bad = [r for r in results if not r["ok"]]
            if bad:
                f.write("\nFailures:\n\n")
                for r in bad:
                    f.write("- %s: %s\n" % (r["name"], "; ".join(r["notes"])))
        print("recorded in %s" % args.record)
    return 0 if npass == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
