#!/bin/bash
# g2.sh — SpMM rung 9's lanes a row (g1: 4 lanes beat rung 5's rule of 8 on
# the power-law and R-MAT rows at k = 4): SMV_SPMM_GATHER_LANES = 1, 2, 4,
# 8 and the rule (at least 4 entries a lane) at k = 1, 2, 4, row-major,
# both precisions, on five classes of rows (power law of means 16 and 8,
# R-MAT, uniform random, a stencil and a short-row Laplacian); then the
# rule beside rung 5, rung 6 (column-major through rung 9), the SpMV path
# and every cuSPARSE algorithm in both layouts. Device tests first.
#   OUT=dir scripts/experiments/rowgather/g2.sh
set -u
OUT=${OUT:-/tmp/rowgather}
mkdir -p "$OUT"
timeout 300 build/tests/test_cuda_spmm >"$OUT/test_cuda_spmm.log" 2>&1
echo "test_cuda_spmm: exit $?: $(tail -1 "$OUT/test_cuda_spmm.log")"
grep -E "CHECK failed|FAIL" "$OUT/test_cuda_spmm.log" | head -8
M="plaw:1000000:16 plaw:2000000:8 rmat:20:16 rand:1000000:16 stencil27:80 lap3d:100"
for g in 1 2 4 8; do
  SMV_SPMM_GATHER_LANES=$g timeout 150 build/smv bench-spmm $M --k 1,2,4 \
    --prec both --layout row --algs rowgather --runs 20 \
    --csv "$OUT/g2-lanes$g.csv" >"$OUT/g2-lanes$g.log" 2>&1
  echo "lanes $g: exit $?"
done
timeout 300 build/smv bench-spmm $M --k 1,2,4 --prec both --layout both \
  --algs auto,spmv,colsplit,coltrans,rowgather,cusparse-alg1,cusparse-alg2,cusparse-alg3 \
  --runs 20 --csv "$OUT/g2.csv" >"$OUT/g2.log" 2>&1
echo "bench-spmm: exit $?"
