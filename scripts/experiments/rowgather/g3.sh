#!/bin/bash
# g3.sh — column-major k = 2..7 after rung 6 runs rung 9 inside and moves
# X and Y by one thread a row below 9 columns (g2's 32 x 33 tiles left most
# threads idle at small k): rung 6 against rung 5, AUTO (SMV_SPMM_NARROW_MEAN:
# rung 6 on rows of 8+ entries on the mean) and every cuSPARSE algorithm on
# g2's six classes, both precisions, every case verified first.
#   OUT=dir scripts/experiments/rowgather/g3.sh
set -u
OUT=${OUT:-/tmp/rowgather}
mkdir -p "$OUT"
M="plaw:1000000:16 plaw:2000000:8 rmat:20:16 rand:1000000:16 stencil27:80 lap3d:100"
timeout 300 build/smv bench-spmm $M --k 2,4,6 --prec both --layout col \
  --algs auto,colsplit,coltrans,cusparse-alg1,cusparse-alg2,cusparse-alg3 \
  --runs 20 --csv "$OUT/g3.csv" >"$OUT/g3.log" 2>&1
echo "bench-spmm: exit $?"
