#!/usr/bin/env python3
"""plan-csv.py — the measured plans printed by `smv info MATRIX --plan
--tune` as one CSV, so a results summary can cite them from a CSV.

    scripts/plan-csv.py [--commit HASH] PLANS.txt... > plans.csv

PLANS.txt: the output of one or more `smv info ... --plan --tune` calls
(scripts/gpu/tune.sh writes tune.txt; lines other than the plan's are
ignored). One row per plan and candidate rung:

    commit, matrix, precision, auto_runs, how, heuristic, heuristic_us,
    candidate, median_us, chosen, upload_ms, statistics_ms, plan_ms,
    setup_ms, tuning_ms, device_mb

commit: --commit (the output does not name it); how: "measured" or
"heuristic"; chosen: 1 for the candidate AUTO runs. A plan without
candidates (no --tune) gives one row with the candidate columns empty.
Standard library only.
"""
import csv
import re
import sys

PLAN = re.compile(r"^plan (.+) \((f64|f32)\): AUTO runs (\S+), (\w+)")
HEUR = re.compile(r"heuristic's (\S+): ([0-9.]+) us")
ANALYSIS = re.compile(r"^  analysis \(ms\): (.*)$")
HELD = re.compile(r"^  device memory held: ([0-9.]+) MB")
CANDS = re.compile(r"^  candidates \(median us, L2-warm\): (.*)$")

COLS = ["commit", "matrix", "precision", "auto_runs", "how", "heuristic",
        "heuristic_us", "candidate", "median_us", "chosen", "upload_ms",
        "statistics_ms", "plan_ms", "setup_ms", "tuning_ms", "device_mb"]
ANALYSIS_KEYS = {"upload": "upload_ms", "statistics": "statistics_ms",
                 "plan": "plan_ms", "rung set-up": "setup_ms",
                 "tuning": "tuning_ms"}


def plans(path, commit):
    cur = None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        m = PLAN.match(line)
        if m:
            if cur:
                yield cur
            cur = {"commit": commit, "matrix": m.group(1),
                   "precision": m.group(2), "auto_runs": m.group(3),
                   "how": m.group(4), "cands": []}
            continue
        if cur is None:
            continue
        m = HEUR.search(line)
        if line.startswith("  why:") and m:
            cur["heuristic"], cur["heuristic_us"] = m.group(1), m.group(2)
            continue
        m = ANALYSIS.match(line)
        if m:
            for part in m.group(1).split(","):
                name, _, val = part.strip().rpartition(" ")
                if name in ANALYSIS_KEYS:
                    cur[ANALYSIS_KEYS[name]] = val
            continue
        m = HELD.match(line)
        if m:
            cur["device_mb"] = m.group(1)
            continue
        m = CANDS.match(line)
        if m:
            for part in m.group(1).split(";"):
                part = part.strip()
                if not part:
                    continue
                name, _, val = part.rpartition(" ")
                cur["cands"].append((name, val.rstrip("*"),
                                     "1" if val.endswith("*") else "0"))
            yield cur
            cur = None
    if cur:
        yield cur


def main(argv):
    commit = ""
    if argv[:1] == ["--commit"] and len(argv) >= 2:
        commit, argv = argv[1], argv[2:]
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    w = csv.DictWriter(sys.stdout, fieldnames=COLS, lineterminator="\n")
    w.writeheader()
    n = 0
    for path in argv:
        for p in plans(path, commit):
            cands = p.pop("cands") or [("", "", "")]
            for name, us, chosen in cands:
                row = dict(p, candidate=name, median_us=us, chosen=chosen)
                w.writerow(row)
                n += 1
    if n == 0:
        sys.stderr.write("plan-csv: no plans in %s\n" % " ".join(argv))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
