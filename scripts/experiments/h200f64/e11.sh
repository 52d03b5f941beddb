#!/bin/bash
# e11.sh — bisect the f32 loss in rung 10 (e9: a9c2ecf 5-9% slower than
# 81c34ad; e9b: 0c28217 and 03dc1f7 still fast, 154 us on band:4000000:8).
# The 23 later commits that touch the engine, rungs, core, I/O, generators,
# lab, bench or build, oldest first:
#   38ec46e 01c4af9 d8ff0be bb9f605 67c9260 7879c20 0fb38bb 035e6ca 7761676
#   5c6b584 60a61c0 3bc299e 7798319 66d0a4e ac391b0 ee97272 f596c33 fb041a3
#   cf92cc3 b0610f3 b9c2a3f bcd7477 da5a6cc
# The f32 tile kernel's PTX is identical at 03dc1f7 and a0c1048, and cli/
# and lab/ did not change between them: look for a host-side cause (the
# allocations around the matrix, the tile list, the launch).
# A first call: prepare 03dc1f7 7761676 a0c1048 (the fast control, the
# middle, the slow end, all built from archives: it also shows whether the
# loss reproduces outside the working tree's build).
# Here:   scripts/experiments/h200f64/e11.sh prepare C1 C2 C3
#         (git archive of each commit into bis/C; at most 3: a tree is
#         ~15 MB and the device call carries 64 MiB; carry "bis")
# Device: OUT=dir scripts/experiments/h200f64/e11.sh run
#         (builds every bis/* in parallel, then times each tree's rung 10
#         and ALG1 on band:4000000:8 f32 twice, alternating; ~100 s warm)
set -u
if [ "${1:-}" = prepare ]; then
  shift
  rm -rf bis && mkdir -p bis
  for c in "$@"; do
    mkdir -p "bis/$c" && git archive "$c" | tar x -C "bis/$c"
  done
  du -sh bis
  exit 0
fi
OUT=${OUT:-/tmp/h200f64-e11}
mkdir -p "$OUT"
trees=$(ls bis)
n=$(echo $trees | wc -w)
j=$((16 / (n > 0 ? n : 1)))
for c in $trees; do
  (make -C "bis/$c" -j$j SM=90 GIT_COMMIT=$c build/smv >"$OUT/build-$c.log" 2>&1
   echo "build $c: rc=$?") &
done
wait
for pass in 1 2; do
  for c in $trees; do
    timeout 20 "bis/$c/build/smv" bench band:4000000:8 \
      --alg tiled,cusparse-alg1 --precision f32 --runs 30 --max-time 0.2 \
      --graph-batch 0 --quiet --csv "$OUT/$c-$pass.csv" >/dev/null 2>&1
    tail -n +2 "$OUT/$c-$pass.csv" | cut -d, -f6,11,14,20,43 | sed "s/^/$c,$pass,/"
  done
done
