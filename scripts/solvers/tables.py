#!/usr/bin/env python3
"""tables.py RESULTS [--csv OUT.csv] — the solvers report's tables
(markdown) from the RESULT lines of cg_cusparse, solve_smv and solve_py.py.

RESULTS is results.txt (the RESULT lines, as scripts/gpu/solvers.sh writes
them) or a CSV of those lines (one column per key, as --csv writes it; the
committed form under bench/results/<device>/raw/solvers/). With --csv the
lines are also written to OUT.csv: one row per RESULT line, the union of
their keys as columns in first-seen order, empty where a line lacks a key.
Standard library only."""
import csv
import shlex
import sys


def parse(path):
    if path.endswith(".csv"):
        rows = []
        with open(path, newline="") as fh:
            for r in csv.DictReader(fh):
                d = {k: v for k, v in r.items() if v != ""}
                d.setdefault("method", "cg")
                d.setdefault("precond", "none")
                d.setdefault("prec", "f64")
                rows.append(d)
        return rows
    return parse_lines(path)


def write_csv(path, src):
    """The RESULT lines of src as a CSV at path (keys as they were given)."""
    lines = []
    for ln in open(src):
        if ln.startswith("RESULT "):
            d = {}
            for tok in shlex.split(ln[7:]):
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    d[k] = v
            lines.append(d)
    keys = []
    for d in lines:
        for k in d:
            if k not in keys:
                keys.append(k)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys, lineterminator="\n")
        w.writeheader()
        for d in lines:
            w.writerow(d)


def parse_lines(path):
    rows = []
    for ln in open(path):
        if not ln.startswith("RESULT "):
            continue
        d = {}
        for tok in shlex.split(ln[7:]):
            if "=" in tok:
                k, v = tok.split("=", 1)
                d[k] = v
        d.setdefault("method", "cg")
        d.setdefault("precond", "none")
        d.setdefault("prec", "f64")
        rows.append(d)
    return rows


def find(rows, impl_prefix, matrix, method="cg", precond="none", prec="f64"):
    for r in rows:
        if (r["impl"].startswith(impl_prefix) and r["matrix"] == matrix and
                r["method"] == method and r["precond"] == precond and
                r["prec"] == prec):
            return r
    return None


def f(r, k, fmt="{:.1f}"):
    if not r or k not in r:
        return "-"
    try:
        return fmt.format(float(r[k]))
    except ValueError:
        return r[k]


def ratio(a, b, k):
    try:
        return "%.2fx" % (float(b[k]) / float(a[k]))
    except (TypeError, KeyError, ValueError, ZeroDivisionError):
        return "-"


def short(m):
    return m.rsplit("/", 1)[-1].replace(".mtx.gz", "").replace(".mtx", "")


def head(line):
    """A table's header line and its |---| separator, one per column."""
    print(line)
    print("|" + "---|" * (line.count("|") - 1))


def cg_impls(rows, m):
    """The CG f64 rows of smv (GPU), cuSPARSE, CuPy and SciPy for m."""
    return tuple(find(rows, p, m) for p in ("smv-cuda", "cusparse", "cupy",
                                             "scipy"))


def main():
    args = sys.argv[1:]
    if len(args) not in (1, 3) or (len(args) == 3 and args[1] != "--csv"):
        sys.exit("usage: tables.py RESULTS.txt|RESULTS.csv [--csv OUT.csv]")
    if len(args) == 3:
        write_csv(args[2], args[0])
    rows = parse(args[0])
    mats = []
    for r in rows:
        if r.get("method", "cg") == "cg" and r["matrix"] not in mats:
            mats.append(r["matrix"])
    print("### CG, no preconditioner, f64 (b = A*ones, x0 = 0, tol 1e-8)\n")
    head("| matrix | n | nnz | smv its | cuSPARSE+cuBLAS its | CuPy its | "
         "SciPy its | smv true res | cuSPARSE true res | CuPy true res | "
         "SciPy true res |")
    for m in mats:
        s, c, cp, sp = cg_impls(rows, m)
        base = s or c
        print(f"| {short(m)} | {f(base, 'n', '{:.0f}')} | "
              f"{f(base, 'nnz', '{:.0f}')} | {f(s, 'its', '{:.0f}')} | "
              f"{f(c, 'its', '{:.0f}')} | {f(cp, 'its', '{:.0f}')} | "
              f"{f(sp, 'its', '{:.0f}')} | {f(s, 'true', '{:.1e}')} | "
              f"{f(c, 'true', '{:.1e}')} | {f(cp, 'true', '{:.1e}')} | "
              f"{f(sp, 'true', '{:.1e}')} |")
    print("\n### Time to solution (ms) and per iteration (us)\n")
    print("us/it: the solve's time over its iterations; fixed: 1000 "
          "iterations at tol 0, per iteration (no convergence exit).\n")
    head("| matrix | smv GPU ms | smv us/it | smv fixed us/it | "
         "cuSPARSE+cuBLAS ms | us/it | fixed us/it | **per-it speed-up** | "
         "time-to-solution speed-up | CuPy ms | CuPy us/it | SciPy ms | "
         "smv CPU ms |")
    for m in mats:
        s, c, cp, sp = cg_impls(rows, m)
        cpu = find(rows, "smv-cpu", m)
        print(f"| {short(m)} | {f(s, 'tts_ms', '{:.2f}')} | "
              f"{f(s, 'iter_us')} | {f(s, 'fixed_iter_us')} | "
              f"{f(c, 'tts_ms', '{:.2f}')} | {f(c, 'iter_us')} | "
              f"{f(c, 'fixed_iter_us')} | **{ratio(s, c, 'fixed_iter_us')}** | "
              f"{ratio(s, c, 'tts_ms')} | {f(cp, 'tts_ms', '{:.2f}')} | "
              f"{f(cp, 'iter_us')} | {f(sp, 'tts_ms', '{:.1f}')} | "
              f"{f(cpu, 'tts_ms', '{:.1f}')} |")
    print("\n### smv variants (GPU): graph vs plain launches, Jacobi, f32\n")
    head("| matrix | variant | its | true res | ms | us/it | fixed us/it | "
         "checks | check |")
    for r in rows:
        if not r["impl"].startswith("smv-cuda") or r["method"] != "cg":
            continue
        v = (f"{r['impl'][4:]} {r['precond']} {r['prec']}")
        print(f"| {short(r['matrix'])} | {v} | {r['its']} | "
              f"{f(r, 'true', '{:.1e}')} | {f(r, 'tts_ms', '{:.2f}')} | "
              f"{f(r, 'iter_us')} | {f(r, 'fixed_iter_us')} | "
              f"{r.get('checks', '-')} | {r.get('check', '-')} |")
    for meth, title in (("bicgstab", "BiCGStab (Jacobi), f64: GPU vs CPU"),
                        ("pagerank", "PageRank (d = 0.85, tol 1e-10 L1), "
                                     "f64: GPU vs CPU")):
        print(f"\n### {title}\n")
        head("| matrix | n | nnz | GPU its | CPU its | GPU ms (iterations) | "
             "GPU ms (call) | GPU us/it | CPU ms | CPU us/it | speed-up "
             "(iterations) | check GPU | check CPU |")
        seen = []
        for r in rows:
            if r.get("method") != meth or r["matrix"] in seen:
                continue
            seen.append(r["matrix"])
            pc = r["precond"]
            g = find(rows, "smv-cuda", r["matrix"], meth, pc)
            c = find(rows, "smv-cpu", r["matrix"], meth, pc)
            print(f"| {short(r['matrix'])} | {f(g or c, 'n', '{:.0f}')} | "
                  f"{f(g or c, 'nnz', '{:.0f}')} | {f(g, 'its', '{:.0f}')} | "
                  f"{f(c, 'its', '{:.0f}')} | {f(g, 'tts_ms', '{:.2f}')} | "
                  f"{f(g, 'wall_ms', '{:.2f}')} | {f(g, 'iter_us')} | "
                  f"{f(c, 'tts_ms', '{:.2f}')} | {f(c, 'iter_us')} | "
                  f"{ratio(g, c, 'tts_ms')} | {f(g, 'check', '{}')} | "
                  f"{f(c, 'check', '{}')} |")


if __name__ == "__main__":
    main()
