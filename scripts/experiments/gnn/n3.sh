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
. "$(dirname "$0")/minb.sh"
NAME=n3
minb_sweep f64 "16 64"
