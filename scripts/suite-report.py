#!/usr/bin/env python3
"""suite-report.py — the issue-8 tables and plots from `smv bench --suite`.

    scripts/suite-report.py SUITE.csv [--rerun RERUN.csv] [--png-dir DIR]

SUITE.csv is the --csv output of `smv bench --suite issue8 --alg
auto,adaptive,tiled,cusparse-alg1,cusparse-alg2 --precision both
--flush-l2` (scripts/gpu-check.sh suite). RERUN.csv, if given, holds later
rows (same columns) that replace the suite's rows of the same matrix,
precision and rung: a re-run after a rule change, named in the output.
Prints Markdown on stdout: per matrix and precision, AUTO's rung and its
speed-up over the faster of cuSPARSE ALG1/ALG2 (L2-warm, L2-flushed,
CUDA graph), % of the measured copy bandwidth, and for the real matrices
the graph-mode speed-up over ALG1 with its geometric mean. With --png-dir
it writes two gnuplot plots there (needs gnuplot): speed-up over the best
cuSPARSE per matrix and precision, and % of copy against entries per row
for the local-column matrices.
"""
import argparse
import collections
import csv
import math
import os
import subprocess
import sys

ALGS = ["auto", "adaptive", "tiled", "cusparse-alg1", "cusparse-alg2"]
# Rung 10 was called "stream" until issue 20: runs made before then name it so.
FORMER = {"stream": "tiled"}


def num(r, k):
    """A number of the CSV; NaN where the mode was not run (empty or 0)."""
    try:
        v = float(r[k])
    except (KeyError, ValueError):
        return float("nan")
    return v if v != 0.0 else float("nan")


def load(path):
    d = collections.defaultdict(dict)
    with open(path) as f:
        for r in csv.DictReader(f):
            d[(r["matrix"], r["precision"])][FORMER.get(r["alg"], r["alg"])] = r
    return d


def short(m):
    return os.path.basename(m).replace(".mtx.gz", "").replace(".mtx", "")


def geomean(v):
    v = [x for x in v if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--rerun")
    ap.add_argument("--png-dir")
    a = ap.parse_args()
    d = load(a.csv)
    rerun = load(a.rerun) if a.rerun else {}
    for k, algs in rerun.items():
        d[k].update(algs)
    first = next(iter(next(iter(d.values())).values()))
    out = sys.stdout
    out.write("Device: %s; commit %s; %s; device copy %.0f GB/s.\n"
              % (first["device"], first["commit"], first["date"],
                 num(first, "copy_gbps")))
    if rerun:
        r0 = next(iter(next(iter(rerun.values())).values()))
        out.write("Rows of %s replaced by a re-run at commit %s, %s (%s).\n"
                  % (", ".join(sorted({short(m) + " " + p for m, p in rerun})),
                     r0["commit"], r0["date"], os.path.basename(a.rerun)))
    bad = [k for k, v in d.items() for r in v.values() if r["verify"] != "PASS"]
    out.write("Verification: %d of %d rows PASS before timing.\n\n"
              % (sum(len(v) for v in d.values()) - len(bad),
                 sum(len(v) for v in d.values())))
    rows = []
    for (m, p), algs in d.items():
        if not all(x in algs for x in ALGS):
            continue
        au = algs["auto"]
        t = {x: num(algs[x], "warm_median_ms") * 1e3 for x in ALGS}
        tf = {x: num(algs[x], "flushed_median_ms") * 1e3 for x in ALGS}
        tg = {x: num(algs[x], "graph_median_ms") * 1e3 for x in ALGS}
        best = min(t["cusparse-alg1"], t["cusparse-alg2"])
        bestf = min(tf["cusparse-alg1"], tf["cusparse-alg2"])
        bestg = min(tg["cusparse-alg1"], tg["cusparse-alg2"])
        note = au.get("note", "")
        pick = note.split("= ")[1].split(" ")[0] if "= " in note else "?"
        rows.append(dict(
            m=m, p=p, real=".mtx" in m, nnz=int(num(au, "nnz")),
            per=num(au, "nnz") / max(num(au, "rows"), 1.0), pick=pick, t=t,
            sp=best / t["auto"], spf=bestf / tf["auto"],
            spg=bestg / tg["auto"], spg1=tg["cusparse-alg1"] / tg["auto"],
            pct=num(au, "warm_pct_copy"), pctf=num(au, "flushed_pct_copy")))
    large = sorted([r for r in rows if not r["real"]],
                   key=lambda r: (r["m"], r["p"]))
    real = sorted([r for r in rows if r["real"]], key=lambda r: (r["m"], r["p"]))

    out.write("## Large matrices (past the L2)\n\nTimes in us (L2-warm median); "
              "speed-ups are the faster of cuSPARSE ALG1/ALG2 over AUTO in the "
              "same run; % copy is AUTO's minimal-bytes GB/s over the device "
              "copy bandwidth.\n\n")
    out.write("| matrix | prec | per row | AUTO runs | AUTO | rung 9 | rung 10 "
              "| ALG1 | ALG2 | x warm | x flushed | x graph | % copy warm "
              "| % copy flushed |\n|" + "---|" * 14 + "\n")
    def g(v, fmt):
        return fmt % v if math.isfinite(v) else "–"

    for r in large:
        t = r["t"]
        out.write("| %s | %s | %.1f | %s | %.1f | %.1f | %.1f | %.1f | %.1f "
                  "| %.3f | %s | %s | %.1f | %s |\n"
                  % (r["m"], r["p"], r["per"], r["pick"], t["auto"],
                     t["adaptive"], t["tiled"], t["cusparse-alg1"],
                     t["cusparse-alg2"], r["sp"], g(r["spf"], "%.3f"),
                     g(r["spg"], "%.3f"), r["pct"], g(r["pctf"], "%.1f")))
    # AUTO running a cuSPARSE algorithm is that same kernel timed again: a
    # ratio a hair under 1 against itself is the run-to-run spread.
    def same(r):
        a1, a2 = r["t"]["cusparse-alg1"], r["t"]["cusparse-alg2"]
        return r["pick"] == ("cusparse-alg1" if a1 <= a2 else "cusparse-alg2")

    below = [r for r in large if r["sp"] < 1.0 and not same(r)]
    noise = [r for r in large if r["sp"] < 1.0 and same(r)]
    out.write("\nAUTO below 1.00x the faster cuSPARSE (L2-warm): %s.\n"
              % (", ".join("%s %s %.4f" % (r["m"], r["p"], r["sp"])
                           for r in below) or "none"))
    if noise:
        out.write("Below 1.00 only by the spread of timing the same kernel "
                  "twice (AUTO runs the faster cuSPARSE algorithm itself): "
                  "%s.\n" % ", ".join("%s %s %.4f" % (r["m"], r["p"], r["sp"])
                                      for r in noise))
    out.write("\n## Real matrices (SuiteSparse, all inside the L2)\n\n"
              "| matrix | prec | nnz | AUTO runs | x warm (best cuSPARSE) "
              "| x graph (best cuSPARSE) | x graph over ALG1 |\n"
              "|---|---|---|---|---|---|---|\n")
    for r in real:
        out.write("| %s | %s | %d | %s | %.2f | %.2f | %.2f |\n"
                  % (short(r["m"]), r["p"], r["nnz"], r["pick"], r["sp"],
                     r["spg"], r["spg1"]))
    for p in ("f64", "f32"):
        rr = [r for r in real if r["p"] == p]
        if rr:
            lo = min(rr, key=lambda r: r["spg1"])
            out.write("\n%s, %d real matrices: geometric mean x warm %.2f, "
                      "x graph over ALG1 %.2f (lowest %s %.2f).\n"
                      % (p, len(rr), geomean([r["sp"] for r in rr]),
                         geomean([r["spg1"] for r in rr]), short(lo["m"]),
                         lo["spg1"]))
    if a.png_dir:
        plots(a.png_dir, large + real)


def plots(dirname, rows):
    os.makedirs(dirname, exist_ok=True)
    dat1 = os.path.join(dirname, "suite-speedup.dat")
    with open(dat1, "w") as f:
        for i, r in enumerate(sorted(rows, key=lambda r: (r["real"], r["m"]))):
            if r["p"] == "f64":
                r32 = next((x for x in rows if x["m"] == r["m"]
                            and x["p"] == "f32"), None)
                f.write("%d \"%s\" %.4f %.4f\n" % (
                    i, short(r["m"])[:28], r["sp"], r32["sp"] if r32 else 0))
    dat2 = os.path.join(dirname, "suite-copy.dat")
    with open(dat2, "w") as f:
        for r in sorted(rows, key=lambda r: r["per"]):
            if not r["real"] and ("band" in r["m"] or "lap" in r["m"]
                                  or "stencil" in r["m"]
                                  or "elastic" in r["m"]) \
                    and "perm" not in r["m"]:
                f.write("%.2f %.2f %s\n" % (r["per"], r["pct"], r["p"]))
    gp = os.path.join(dirname, "suite.gp")
    with open(gp, "w") as f:
        f.write(
            "set terminal pngcairo size 1600,700 font ',10'\n"
            "set output '%s'\nset style data histogram\n"
            "set style histogram clustered gap 1\nset style fill solid 0.8\n"
            "set xtics rotate by -50 noenhanced font ',8'\nset grid ytics\n"
            "set ylabel 'AUTO speed-up over the faster of ALG1/ALG2 (warm)'\n"
            "set yrange [0:*]\nset arrow from graph 0,first 1 to graph 1,"
            "first 1 nohead dt 2\n"
            "plot '%s' using 3:xtic(2) title 'f64', '' using 4 title 'f32'\n"
            "set output '%s'\nunset arrow\nset style data linespoints\n"
            "set xtics norotate font ',10'\nset logscale x 2\n"
            "set xlabel 'entries per row (local columns, past the L2)'\n"
            "set ylabel 'AUTO, %% of device copy bandwidth (warm)'\n"
            "set yrange [0:110]\nset arrow from graph 0,first 90 to graph 1,"
            "first 90 nohead dt 2\n"
            "plot '%s' using 1:(strcol(3) eq 'f64' ? $2 : 1/0) title 'f64' pt 7, "
            "'' using 1:(strcol(3) eq 'f32' ? $2 : 1/0) title 'f32' pt 5\n"
            % (os.path.join(dirname, "suite-speedup.png"), dat1,
               os.path.join(dirname, "suite-copy.png"), dat2))
    subprocess.run(["gnuplot", gp], check=False)


if __name__ == "__main__":
    main()
