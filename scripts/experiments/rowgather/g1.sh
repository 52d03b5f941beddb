#!/bin/bash
# g1.sh — SpMM rung 9 (rowgather: rung 5 with each entry's X row read as
# 16-byte vectors) against rung 5, rung 6 (which now runs rung 9 inside
# below 8 columns), the SpMV path and every cuSPARSE SpMM algorithm at
# k = 1, 2, 4 in both layouts and precisions, on a power-law graph, an
# R-MAT graph and a stencil; every case verified against the CPU reference
# first. Then rung 9's lanes a row (SMV_SPMM_GATHER_LANES) at k = 4 on the
# two graphs. The device tests of the SpMM ladder first (rung 9 must give
# rung 5's bits). One device call from the repository root after the build:
#   OUT=dir scripts/experiments/rowgather/g1.sh
set -u
OUT=${OUT:-/tmp/rowgather}
mkdir -p "$OUT"
timeout 300 build/tests/test_cuda_spmm >"$OUT/test_cuda_spmm.log" 2>&1
echo "test_cuda_spmm: exit $?: $(tail -1 "$OUT/test_cuda_spmm.log")"
grep -E "CHECK failed|FAIL" "$OUT/test_cuda_spmm.log" | head -8
timeout 330 build/smv bench-spmm plaw:1000000:16 rmat:20:16 stencil27:80 \
  --k 1,2,4 --prec both --layout both \
  --algs auto,spmv,colsplit,coltrans,rowgather,cusparse-alg1,cusparse-alg2,cusparse-alg3 \
  --runs 20 --csv "$OUT/g1.csv" >"$OUT/g1.log" 2>&1
echo "bench-spmm: exit $?"
cut -d, -f4-11 "$OUT/g1.csv" | head -400
for g in 2 4 16; do
  SMV_SPMM_GATHER_LANES=$g timeout 120 build/smv bench-spmm plaw:1000000:16 \
    rmat:20:16 --k 4 --prec both --layout row --algs rowgather --runs 20 \
    --csv "$OUT/g1-lanes$g.csv" >"$OUT/g1-lanes$g.log" 2>&1
  echo "lanes $g: exit $?"
  cut -d, -f4-11 "$OUT/g1-lanes$g.csv"
done
