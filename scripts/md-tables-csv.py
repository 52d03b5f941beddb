#!/usr/bin/env python3
"""md-tables-csv.py — Markdown pipe tables as one CSV, for outputs that
exist only as Markdown (the distributed bench prints its tables so), so a
results summary keeps its numbers in a CSV beside it.

    scripts/md-tables-csv.py FILE.md [--under TEXT] [--nth N] > tables.csv

Takes every table of FILE.md, or only those whose nearest heading above
contains TEXT (--under), or only the Nth of those (--nth, from 1). The
tables taken must share one header row. Output columns: section (that
heading, without its #s), then the table's own. A cell left empty in the
first column takes the value of the row above (tables that name a matrix
once for several rows); thousands separators are removed from numbers
("1,999,345" -> 1999345); other cells are kept as written. Standard library
only.
"""
import csv
import re
import sys

NUM = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables(path):
    heading, rows, hdr = "", [], None
    lines = open(path, encoding="utf-8").read().splitlines() + [""]
    for i, line in enumerate(lines):
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            continue
        if line.startswith("|"):
            if hdr is None:
                hdr = cells(line)
                continue
            if re.match(r"^\|[\s:|-]+\|$", line.strip()):
                continue
            rows.append(cells(line))
            continue
        if hdr is not None:
            yield heading, hdr, rows
        hdr, rows = None, []


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    path, under, nth = argv[0], None, None
    rest = argv[1:]
    while rest:
        if rest[0] == "--under" and len(rest) > 1:
            under, rest = rest[1], rest[2:]
        elif rest[0] == "--nth" and len(rest) > 1:
            nth, rest = int(rest[1]), rest[2:]
        else:
            sys.stderr.write("md-tables-csv: unknown argument %s\n" % rest[0])
            return 2
    picked = [t for t in tables(path) if under is None or under in t[0]]
    if nth is not None:
        picked = picked[nth - 1:nth]
    if not picked:
        sys.stderr.write("md-tables-csv: no table in %s\n" % path)
        return 1
    hdr = picked[0][1]
    for t in picked:
        if t[1] != hdr:
            sys.stderr.write("md-tables-csv: tables with different headers "
                             "(%s / %s): pick one with --under or --nth\n" %
                             (picked[0][0], t[0]))
            return 1
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["section"] + hdr)
    for heading, _, rows in picked:
        prev = None
        for r in rows:
            if prev is not None and r and r[0] == "":
                r[0] = prev
            prev = r[0] if r else prev
            r = [c.replace(",", "") if NUM.match(c) else c for c in r]
            w.writerow([heading] + r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
