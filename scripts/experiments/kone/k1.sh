#!/bin/bash
# k1.sh — issue 22's k = 1 rows below cuSPARSE (R-MAT f32 0.93x against
# cuSPARSE's SpMM ALG3, stencil27 f64 0.97x): every SpMV rung, AUTO and
# cuSPARSE's SpMV algorithms on those matrices, and bench-spmm at k = 1
# with every SpMM algorithm, in one run, so the SpMV rung that is closest to
# cuSPARSE's SpMM at k = 1 (and how far AUTO's pick is from it) is measured
# before any change. Every case verified first (a FAIL is never timed).
#   OUT=dir scripts/experiments/kone/k1.sh
set -u
OUT=${OUT:-/tmp/kone}
mkdir -p "$OUT"
timeout 400 build/smv bench rmat:20:16 plaw:1000000:16 stencil27:80 \
  --alg all,auto --precision both --runs 30 --graph-batch 0 \
  --csv "$OUT/k1-spmv.csv" >"$OUT/k1-spmv.log" 2>&1
echo "bench: exit $?"
grep -E "plan|rung|auto" "$OUT/k1-spmv.log" | head -60
timeout 200 build/smv bench-spmm rmat:20:16 stencil27:80 --k 1 \
  --prec both --layout row --runs 30 --csv "$OUT/k1-spmm.csv" \
  >"$OUT/k1-spmm.log" 2>&1
echo "bench-spmm: exit $?"
cut -d, -f4-11 "$OUT/k1-spmm.csv"
