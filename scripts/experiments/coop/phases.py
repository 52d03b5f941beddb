#!/usr/bin/env python3
"""phases.py — summarise the PH lines of a SMV_COOP_PHASES build
(src/cuda/solve/coop_phases.h): per launch, each phase's time an
iteration, the mean over the blocks and the slowest block.

  phases.py FILE [LABEL]

Launches are split where a block number repeats; the launch with the
most iterations is reported (the fixed-iteration run). Cycles become
nanoseconds by each block's own ratio: the sum of its phases' cycles over
its globaltimer span (the same interval)."""
import sys

NAMES = ["step", "rows", "partial", "barrier", "sum", "stop", "copy-in", "start",
         "sum loads", "halo"]


def launches(lines):
    cur, seen = [], set()
    for ln in lines:
        if not ln.startswith("PH "):
            continue
        f = dict(kv.split("=", 1) for kv in ln.split()[1:5])
        c = [int(v) for v in ln.split("c=", 1)[1].split()]
        b = int(f["b"])
        if b in seen:
            yield cur
            cur, seen = [], set()
        seen.add(b)
        cur.append((b, int(f["sm"]), int(f["its"]), int(f["ns"]), c))
    if cur:
        yield cur


def main():
    path = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else path
    with open(path) as fh:
        ls = list(launches(fh.read().splitlines()))
    if not ls:
        print(f"{label}: no PH lines")
        return
    best = max(ls, key=lambda L: max(x[2] for x in L))
    its = max(x[2] for x in best)
    per = []  # per block: ns per iteration of each phase
    for b, sm, it, ns, c in best:
        tot = sum(c)
        f = tot / ns if ns else 1.0  # cycles per ns
        per.append([ck / f / max(it, 1) for ck in c])
    G = len(best)
    K = len(per[0])
    mean = [sum(p[k] for p in per) / G for k in range(K)]
    mx = [max(p[k] for p in per) for k in range(K)]
    ghz = sum(sum(x[4]) / x[3] for x in best if x[3]) / G
    loop = sum(mean[:6]) + sum(mean[8:])
    print(f"== {label}: {G} blocks, {its} iterations, {ghz:.2f} GHz (clock64 / globaltimer)")
    print("phase      mean ns/it   max ns/it")
    for k in [0] + list(range(9, K)) + [1, 2, 3] + list(range(8, min(K, 9))) + [4, 5]:
        print(f"{NAMES[k]:<10} {mean[k]:10.0f} {mx[k]:11.0f}")
    print(f"{'loop':<10} {loop:10.0f}")
    print(f"{'copy-in':<10} {mean[6] * its / 1000:10.1f} us a launch (max {mx[6] * its / 1000:.1f})")


if __name__ == "__main__":
    main()
