#!/usr/bin/env python3
"""tables.py RESULTS [--csv OUT.csv] — the solvers report's tables
(markdown) from the RESULT lines of cg_graph (the fair anchor: cuSPARSE +
cuBLAS with device scalars, one iteration per CUDA graph replay),
cg_cusparse (the host loop of NVIDIA's conjugateGradient sample),
solve_smv and solve_py.py. CG is reported against the anchor first.

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


def find(rows, impl_prefix, matrix, method="cg", precond="none", prec="f64",
         exact=False):
    for r in rows:
        if exact and r["impl"] != impl_prefix:
            continue
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
    """The CG f64 rows for m: smv's default (GPU), the graph-captured
    anchor, the cuSPARSE + cuBLAS host loop, CuPy and SciPy."""
    return (find(rows, "smv-cuda", m, exact=True),
            find(rows, "anchor-graph", m, exact=True),
            find(rows, "cusparse", m), find(rows, "cupy", m),
            find(rows, "scipy", m))


def goal(s, a, m):
    """Issue 24's goal for one matrix: at most 7 us per iteration and 3x
    the anchor under 1M entries; 1.3x the anchor above (lap3d:100)."""
    try:
        us, anchor = float(s["fixed_iter_us"]), float(a["fixed_iter_us"])
        nnz = float(s["nnz"])
    except (TypeError, KeyError, ValueError):
        return "-"
    if nnz < 1e6:
        ok = us <= 7.0 and anchor / us >= 3.0
        return ("met" if ok else "missed") + " (<= 7 us, >= 3x)"
    return ("met" if anchor / us >= 1.3 else "missed") + " (>= 1.3x)"


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
    print("### CG against the fair anchor, f64, no preconditioner "
          "(b = A*ones, x0 = 0, tol 1e-8)\n")
    print("anchor: cuSPARSE + cuBLAS with device scalars, one iteration "
          "captured in a CUDA graph and replayed (scripts/solvers/"
          "cg_graph.cu). us/it fixed: 1000 iterations at tol 0, per "
          "iteration (the anchor's replays queued back to back, no host "
          "check); ms: time to solution (the anchor checks r on the host "
          "after every replay, as NVIDIA's sample does). smv path: "
          "persistent (one cooperative kernel) or graph.\n")
    head("| matrix | n | nnz | smv path | smv its | anchor its | smv us/it "
         "fixed | anchor us/it fixed | **speed-up vs anchor** | smv ms | "
         "anchor ms | time-to-solution speed-up | goal | smv true res | "
         "anchor true res |")
    for m in mats:
        s, a, c, cp, sp = cg_impls(rows, m)
        base = s or a
        path = "-"
        if s:
            # persistent=N: 0 the graph path, else smv_persistent_kernel
            path = "graph" if s.get("persistent", "0") == "0" else "persistent"
        print(f"| {short(m)} | {f(base, 'n', '{:.0f}')} | "
              f"{f(base, 'nnz', '{:.0f}')} | {path} | "
              f"{f(s, 'its', '{:.0f}')} | {f(a, 'its', '{:.0f}')} | "
              f"{f(s, 'fixed_iter_us')} | {f(a, 'fixed_iter_us')} | "
              f"**{ratio(s, a, 'fixed_iter_us')}** | "
              f"{f(s, 'tts_ms', '{:.2f}')} | {f(a, 'tts_ms', '{:.2f}')} | "
              f"{ratio(s, a, 'tts_ms')} | {goal(s, a, m)} | "
              f"{f(s, 'true', '{:.1e}')} | {f(a, 'true', '{:.1e}')} |")
    print("\n### Iteration counts (CG, f64, none, tol 1e-8)\n")
    head("| matrix | smv | smv graph path | anchor | cuSPARSE+cuBLAS host "
         "loop | CuPy | SciPy | smv CPU |")
    for m in mats:
        s, a, c, cp, sp = cg_impls(rows, m)
        g = find(rows, "smv-cuda-graphpath", m, exact=True)
        cpu = find(rows, "smv-cpu", m)
        print(f"| {short(m)} | {f(s, 'its', '{:.0f}')} | "
              f"{f(g, 'its', '{:.0f}')} | {f(a, 'its', '{:.0f}')} | "
              f"{f(c, 'its', '{:.0f}')} | {f(cp, 'its', '{:.0f}')} | "
              f"{f(sp, 'its', '{:.0f}')} | {f(cpu, 'its', '{:.0f}')} |")
    print("\n### The other CG implementations (us per iteration, ms to "
          "solution)\n")
    head("| matrix | smv graph path us/it fixed | cuSPARSE+cuBLAS host loop "
         "us/it fixed | smv vs host loop | host loop ms | CuPy us/it | "
         "CuPy ms | SciPy ms | smv CPU ms |")
    for m in mats:
        s, a, c, cp, sp = cg_impls(rows, m)
        g = find(rows, "smv-cuda-graphpath", m, exact=True)
        cpu = find(rows, "smv-cpu", m)
        print(f"| {short(m)} | {f(g, 'fixed_iter_us')} | "
              f"{f(c, 'fixed_iter_us')} | {ratio(s, c, 'fixed_iter_us')} | "
              f"{f(c, 'tts_ms', '{:.2f}')} | {f(cp, 'iter_us')} | "
              f"{f(cp, 'tts_ms', '{:.2f}')} | {f(sp, 'tts_ms', '{:.1f}')} | "
              f"{f(cpu, 'tts_ms', '{:.1f}')} |")
    print("\n### smv variants (GPU): persistent, graph, plain launches, "
          "Jacobi, f32\n")
    head("| matrix | variant | path | its | true res | ms | us/it | "
         "fixed us/it | checks | check |")
    for r in rows:
        if not r["impl"].startswith("smv-cuda") or r["method"] != "cg":
            continue
        v = (f"{r['impl'][4:]} {r['precond']} {r['prec']}")
        path = "graph" if r.get("persistent", "0") == "0" else "persistent"
        print(f"| {short(r['matrix'])} | {v} | {path} | {r['its']} | "
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
