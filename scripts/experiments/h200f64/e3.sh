#!/bin/bash
# e3.sh — why rung 9 streams band:2000000:32 (f64, 65 entries per row,
# 130M entries) at ~73% of copy when it streams band:1000000:32 (the same
# rows, half the matrix) at ~81% (python.md's one slower row): rung 9 at
# 64..512 threads a block on both, beside rung 10 and cuSPARSE ALG1, f64,
# every rung verified first.
#   OUT=dir scripts/experiments/h200f64/e3.sh
set -u
OUT=${OUT:-/tmp/h200f64-e3}
mkdir -p "$OUT"
for b in 64 128 256 512; do
  timeout 60 build/smv bench band:1000000:32 band:2000000:32 --alg adaptive \
    --block $b --precision f64 --runs 30 --max-time 0.3 --graph-batch 0 \
    --quiet --label "b$b" --csv "$OUT/b$b.csv" >"$OUT/b$b.log" 2>&1
  echo "block $b: exit $?"
done
timeout 60 build/smv bench band:1000000:32 band:2000000:32 \
  --alg tiled,cusparse-alg1,auto --precision f64 --runs 30 --max-time 0.3 \
  --graph-batch 0 --quiet --label base --csv "$OUT/base.csv" >"$OUT/base.log" 2>&1
echo "base: exit $?"
for f in "$OUT"/*.csv; do tail -n +2 "$f"; done | cut -d, -f1,6,11,12,14,20,43
