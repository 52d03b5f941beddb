#!/usr/bin/env python3
"""ncu-csv.py — Nsight Compute's printed metrics as one CSV, so a results
summary can cite profiler counters from a CSV instead of a log.

    scripts/ncu-csv.py NCU.txt... > ncu.csv

Each NCU.txt is what `ncu --metrics ... build/smv bench ...` printed (the
"Command line profiler metrics" section of each profiled kernel, with smv
bench's banner before it). One row per kernel launch and metric:

    run, commit, command, kernel, grid, block, launch, metric, unit, value

run: the file's name without .txt (experiment builds told variants apart
only by the file name); commit and command: smv bench's banner lines of
the process that launched the kernel; kernel: the demangled name up to
its first '<' or '('; grid and block as "X,Y,Z"; launch: 1, 2, ... per
kernel name within one process; value: thousands separators removed,
empty where ncu printed "n/a". Standard library only.
"""
import csv
import os
import re
import sys

LAUNCH = re.compile(r"^  (\S.*?) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Context")
METRIC = re.compile(r"^    (\S+)\s+(\S*?)\s*((?:\(!\) )?n/a|[-0-9.,]+)\s*$")


def rows(path):
    run = os.path.basename(path)
    if run.endswith(".txt"):
        run = run[:-4]
    commit = command = kernel = grid = block = ""
    launches = {}
    in_table = False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("smv bench ") and ", commit " in line:
            commit = line.split(", commit ", 1)[1].strip()
            launches = {}
            continue
        if line.startswith("command "):
            command = line[len("command "):].strip()
            continue
        m = LAUNCH.match(line)
        if m:
            name = m.group(1)
            name = re.sub(r"^void ", "", name)
            kernel = re.split(r"[<(]", name, 1)[0]
            grid = ",".join(m.group(2, 3, 4))
            block = ",".join(m.group(5, 6, 7))
            launches[kernel] = launches.get(kernel, 0) + 1
            in_table = False
            continue
        if line.startswith("    Metric Name"):
            in_table = True
            continue
        if not in_table:
            continue
        if line.strip().startswith("----"):
            continue
        m = METRIC.match(line)
        if not m:
            in_table = False
            continue
        value = m.group(3)
        value = "" if value.endswith("n/a") else value.replace(",", "")
        yield [run, commit, command, kernel, grid, block, launches[kernel],
               m.group(1), m.group(2), value]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["run", "commit", "command", "kernel", "grid", "block",
                "launch", "metric", "unit", "value"])
    n = 0
    for path in argv:
        for r in rows(path):
            w.writerow(r)
            n += 1
    if n == 0:
        sys.stderr.write("ncu-csv: no metrics found in %s\n" % " ".join(argv))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
