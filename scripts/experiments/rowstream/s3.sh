#!/bin/bash
# s3.sh — for the next device call (with `scripts/gpu-check.sh spmm:quick
# exp:rowstream/s3`, which runs the SpMM device tests, memcheck and the
# quick suite with torch first): rung 10 at two vectors a lane, which the
# plan leaves on rung 4 (f32 k = 256 lost 0.98x at 256-thread blocks and was
# not timed at the 32 the rung now uses; f64 k = 128 gained 1.03-1.04x),
# against rung 4 and cuSPARSE ALG2, on the quick suite's graphs and the
# stencil; every case verified first. About 2 minutes (the CPU reference
# at k = 256 on 31M entries dominates).
#   OUT=dir scripts/experiments/rowstream/s3.sh
set -u
OUT=${OUT:-/tmp/rowstream}
mkdir -p "$OUT"
timeout 200 build/smv bench-spmm rmat:20:16 plaw:1000000:16 stencil27:80 \
  --k 256 --prec f32 --layout row --algs rowsplit,rowstream,cusparse-alg2 \
  --runs 10 --csv "$OUT/s3-f32.csv" >"$OUT/s3-f32.log" 2>&1
echo "f32 k = 256: exit $?"
cut -d, -f4-10 "$OUT/s3-f32.csv"
timeout 200 build/smv bench-spmm rmat:20:16 plaw:1000000:16 stencil27:80 \
  --k 128 --prec f64 --layout row --algs rowsplit,rowstream,cusparse-alg2 \
  --runs 10 --csv "$OUT/s3-f64.csv" >"$OUT/s3-f64.log" 2>&1
echo "f64 k = 128: exit $?"
cut -d, -f4-10 "$OUT/s3-f64.csv"
