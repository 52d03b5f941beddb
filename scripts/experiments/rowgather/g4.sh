#!/bin/bash
# g4.sh — for the next device call after rung 9 (written 2026-12-02, not run
# yet): the SpMM device tests with test_rowgather_bits' ldx > k variant
# (added after the last device run), then rung 6 below 8 columns with its
# workspace rows rounded to an even count instead of the 16-byte vector
# (af6f300, reverted in e750e68 because no device could run it: apply it
# with `git revert e750e68` before this call, or this times the current
# code) on g3's one row below cuSPARSE (plaw:2000000:8 f32 column-major
# k = 2: 0.88x) and its neighbours, every case verified first.
#   OUT=dir scripts/experiments/rowgather/g4.sh
set -u
OUT=${OUT:-/tmp/rowgather}
mkdir -p "$OUT"
for t in test_cuda_spmm test_cuda_spmm_plan; do
  timeout 300 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(tail -1 "$OUT/$t.log")"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -8
done
timeout 300 build/smv bench-spmm plaw:2000000:8 plaw:1000000:16 rmat:20:16 \
  stencil27:80 --k 2,3,5 --prec both --layout col \
  --algs auto,colsplit,coltrans,cusparse-alg1,cusparse-alg3 \
  --runs 20 --csv "$OUT/g4.csv" >"$OUT/g4.log" 2>&1
echo "bench-spmm: exit $?"
cut -d, -f4-11 "$OUT/g4.csv"
