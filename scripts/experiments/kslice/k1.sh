#!/bin/bash
# k1.sh — SpMM rung 7's slice width on the GNN layout (row-major), one
# device call from the repository root after the build: rung 7 at forced
# widths (SMV_SPMM_KSLICE_W) and at the rule's width, rung 4 and cuSPARSE
# ALG2/ALG3, every case verified against the CPU reference first.
#   OUT=dir scripts/experiments/kslice/k1.sh
set -u
OUT=${OUT:-/tmp/kslice}
mkdir -p "$OUT"
M="rmat:20:16 plaw:1000000:16"
for w in rule 8 16 32; do
  if [ "$w" = rule ]; then unset SMV_SPMM_KSLICE_W; else export SMV_SPMM_KSLICE_W=$w; fi
  timeout 200 build/smv bench-spmm $M --k 32,64,128 --prec both --layout row \
    --algs kslice,rowsplit,cusparse-alg2,cusparse-alg3 --runs 20 \
    --csv "$OUT/kslice-$w.csv" >"$OUT/kslice-$w.log" 2>&1
  echo "width $w: exit $?"
done
unset SMV_SPMM_KSLICE_W
