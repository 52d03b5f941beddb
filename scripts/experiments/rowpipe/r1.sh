#!/bin/bash
# r1.sh — SpMM rung 8 (rowpipe) against rung 4 and cuSPARSE ALG2/ALG3 on
# the GNN layout (row-major), power-law and R-MAT rows and one stencil,
# every case verified against the CPU reference first; then the device
# tests of the SpMM ladder (rung 8 must give rung 4's bits). One device
# call from the repository root after the build:
#   OUT=dir scripts/experiments/rowpipe/r1.sh
set -u
OUT=${OUT:-/tmp/rowpipe}
mkdir -p "$OUT"
build/tests/test_cuda_spmm >"$OUT/test_cuda_spmm.log" 2>&1
echo "test_cuda_spmm: exit $?: $(tail -1 "$OUT/test_cuda_spmm.log")"
timeout 300 build/smv bench-spmm plaw:1000000:16 rmat:20:16 plaw:2000000:16 \
  stencil27:80 --k 4,8,32,64,128 --prec both --layout row \
  --algs rowsplit,rowpipe,colsplit,cusparse-alg1,cusparse-alg2,cusparse-alg3 \
  --runs 20 \
  --csv "$OUT/rowpipe.csv" >"$OUT/rowpipe.log" 2>&1
echo "bench-spmm: exit $?"
cut -d, -f4-11 "$OUT/rowpipe.csv"
