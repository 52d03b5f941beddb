#!/usr/bin/env python3
"""spmm_summary.py — the SpMM suite's verdict (issue 22) from the CSV of
`smv bench-spmm --csv` and, if given, that of scripts/spmm_torch.py.

  scripts/spmm_summary.py BENCH.csv [TORCH.csv] > summary.md

Per case (matrix, precision, order, k): AUTO's time and rung, the fastest
verified cuSPARSE algorithm, torch.sparse.mm, and the ratios fastest
cuSPARSE / AUTO and torch / AUTO (> 1: AUTO is faster). Then the goals:
AUTO >= the fastest cuSPARSE on every row, geometric mean >= 1.3x; on R-MAT
and power-law graphs in the GNN layout (f32, row-major, k 32..128) >= 1.2x
cuSPARSE and >= 1.5x torch. Rows where AUTO failed verification count as
misses. Also writes the per-case table as CSV beside it with --csv FILE.
"""
import csv
import math
import sys


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def fnum(s):
    try:
        v = float(s)
        return v if math.isfinite(v) and v > 0 else None
    except (TypeError, ValueError):
        return None


def geomean(v):
    v = [x for x in v if x]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--csv=")]
    csv_out = [a[6:] for a in argv[1:] if a.startswith("--csv=")]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    rows = read(args[0])
    torch = read(args[1]) if len(args) > 1 else []
    cases = {}
    order = []
    head = rows[0] if rows else {}
    for r in rows:
        key = (r["matrix"], r["prec"], r["order"], int(r["k"]))
        if key not in cases:
            cases[key] = {"auto": None, "rung": "", "cus": None, "cus_alg": "",
                          "torch": None, "auto_verify": ""}
            order.append(key)
        c = cases[key]
        t = fnum(r["warm_us"]) if r["verify"] == "PASS" else None
        if r["alg"].startswith("auto"):
            c["auto"], c["auto_verify"] = t, r["verify"]
            c["rung"] = r["alg"].split(":", 1)[1] if ":" in r["alg"] else ""
        elif r["alg"].startswith("cusparse") and t and (
                c["cus"] is None or t < c["cus"]):
            c["cus"], c["cus_alg"] = t, r["alg"]
    for r in torch:
        key = (r["matrix"], r["prec"], r["order"], int(r["k"]))
        if key in cases and r["verify"] == "PASS":
            cases[key]["torch"] = fnum(r["warm_us"])
    print("# SpMM suite: AUTO vs the fastest cuSPARSE SpMM and torch.sparse.mm")
    print()
    if head:
        print("Device: %s; commit %s; %s." % (head["device"], head["commit"],
                                              head["date"]))
        print()
    print("Median µs, L2-warm. vs cuSPARSE = fastest cuSPARSE / AUTO; vs "
          "torch = torch / AUTO (> 1: AUTO faster).")
    print()
    print("| matrix | prec | order | k | AUTO rung | AUTO µs | fastest "
          "cuSPARSE | µs | torch µs | vs cuSPARSE | vs torch |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios, misses, gnn_c, gnn_t, table = [], [], [], [], []
    for key in order:
        c = cases[key]
        m, p, o, k = key
        vc = c["cus"] / c["auto"] if c["auto"] and c["cus"] else None
        vt = c["torch"] / c["auto"] if c["auto"] and c["torch"] else None
        if c["cus"]:
            ratios.append(vc)
            if not vc or vc < 1.0:
                misses.append(key)
        gnn = (m.startswith("rmat") or m.startswith("plaw")) and p == "f32" \
            and o == "row" and 32 <= k <= 128
        if gnn:
            gnn_c.append(vc)
            if c["torch"]:
                gnn_t.append(vt)

        def f(x, d=2):
            return ("%.*f" % (d, x)) if x else "–"
        print("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            m, p, o, k, c["rung"] or c["auto_verify"], f(c["auto"], 1),
            c["cus_alg"] or "–", f(c["cus"], 1), f(c["torch"], 1), f(vc),
            f(vt)))
        table.append([m, p, o, k, c["rung"], c["auto"], c["cus_alg"],
                      c["cus"], c["torch"], vc, vt])
    print()
    n = len(ratios)
    print("## Goals")
    print()
    print("- AUTO >= fastest cuSPARSE on every row: %d of %d rows (%s)" % (
        n - len(misses), n, "met" if not misses and n else "NOT met"))
    for key in misses[:40]:
        print("  - miss: %s %s %s k=%d" % key)
    g = geomean(ratios) if all(ratios) else geomean([r for r in ratios if r])
    print("- geometric mean vs cuSPARSE: %.2fx (goal 1.3x: %s)" % (
        g, "met" if g >= 1.3 else "NOT met"))
    if gnn_c:
        mc = min(x or 0 for x in gnn_c)
        print("- GNN layout (R-MAT/power law, f32 row-major, k 32..128): "
              "min %.2fx cuSPARSE, geomean %.2fx (goal >= 1.2x: %s)" % (
                  mc, geomean(gnn_c), "met" if mc >= 1.2 else "NOT met"))
    if gnn_t:
        mt = min(x or 0 for x in gnn_t)
        print("- GNN layout vs torch.sparse.mm: min %.2fx, geomean %.2fx "
              "(goal >= 1.5x: %s)" % (mt, geomean(gnn_t),
                                      "met" if mt >= 1.5 else "NOT met"))
    elif gnn_c:
        print("- GNN layout vs torch.sparse.mm: no torch timings in this run")
    if csv_out:
        with open(csv_out[0], "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["matrix", "prec", "order", "k", "auto_rung", "auto_us",
                        "cusparse_alg", "cusparse_us", "torch_us",
                        "vs_cusparse", "vs_torch"])
            for r in table:
                w.writerow(["" if x is None else x for x in r])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
