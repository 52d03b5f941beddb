#!/bin/bash
# s2.sh — rung 10's launch shape: s1 (ncu) found 21% of the SM's warps
# active at 256 threads a block (one warp a window; a block's slot frees
# only when its slowest window ends). Threads a block (SMV_SPMM_STREAM_BLOCK
# 32, 64, 128) and X rows in flight (SMV_SPMM_STREAM_U 8, 4) on the
# quick suite's graphs and stencil, f32 k = 128, 256, f64 k = 64, 128
# (--k 64,128,256 --prec both), rung 4 and cuSPARSE ALG2 beside; every
# case verified first. Rung 10's bits test at both U first.
#   OUT=dir scripts/experiments/rowstream/s2.sh
set -u
OUT=${OUT:-/tmp/rowstream}
mkdir -p "$OUT"
timeout 300 build/tests/test_cuda_spmm >"$OUT/test_cuda_spmm.log" 2>&1
echo "test_cuda_spmm: exit $?: $(tail -1 "$OUT/test_cuda_spmm.log")"
SMV_SPMM_STREAM_U=4 SMV_SPMM_STREAM_BLOCK=32 SMV_TEST_ONLY=test_rowstream_bits \
  timeout 120 build/tests/test_cuda_spmm >"$OUT/test_u4.log" 2>&1
echo "rowstream bits at U 4, block 32: exit $?: $(tail -1 "$OUT/test_u4.log")"
M="rmat:20:16 plaw:1000000:16 stencil27:80"
timeout 150 build/smv bench-spmm $M --k 64,128,256 --prec both --layout row \
  --algs rowsplit,cusparse-alg2 --runs 20 --csv "$OUT/ref.csv" >"$OUT/ref.log" 2>&1
echo "reference: exit $?"
cut -d, -f4-10 "$OUT/ref.csv"
for cfg in 32:8 64:8 128:8 32:4 64:4; do
  b=${cfg%:*} u=${cfg#*:}
  SMV_SPMM_STREAM_BLOCK=$b SMV_SPMM_STREAM_U=$u timeout 150 build/smv \
    bench-spmm $M --k 64,128,256 --prec both --layout row --algs rowstream \
    --runs 20 --csv "$OUT/b$b-u$u.csv" >"$OUT/b$b-u$u.log" 2>&1
  echo "block $b U $u: exit $?"
  cut -d, -f4-10 "$OUT/b$b-u$u.csv" | grep -v '^matrix'
done
