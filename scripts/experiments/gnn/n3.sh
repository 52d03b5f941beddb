#!/bin/bash
# n3.sh — issue 22, rmat:20:16 f64 row-major k = 16 below cuSPARSE ALG3
# (n2: rung 4's chunk kernel, 30% of the product there, at 76 registers
# a thread: three 256-thread blocks an SM, 33% of the warps active, its
# warps waiting on their gathers). The chunk kernel at four blocks an SM
# (SMV_SPMM_CHUNK_MINB=4: 64 registers, a few words spilled) against the
# default, with rungs 4 and 8, AUTO and ALG3 in the same run, on R-MAT
# at two sizes and the power-law graph, f64 k = 16 and 64.
#   OUT=dir scripts/experiments/gnn/n3.sh
set -u
OUT=${OUT:-/tmp/gnn3}
mkdir -p "$OUT"
for m in rmat:20:16 rmat:19:16 plaw:1000000:16; do
  for k in 16 64; do
    for mb in 1 4; do
      echo "# $m f64 row k=$k SMV_SPMM_CHUNK_MINB=$mb" | tee -a "$OUT/n3.txt"
      SMV_SPMM_CHUNK_MINB=$mb timeout 120 build/smv bench-spmm "$m" --k $k \
        --prec f64 --layout row --algs auto,rowsplit,rowpipe,cusparse-alg3 \
        --runs 50 >>"$OUT/n3.txt" 2>&1
      echo "exit $?" >>"$OUT/n3.txt"
    done
  done
done
grep -vE "^\s*$" "$OUT/n3.txt" | cut -c1-160
