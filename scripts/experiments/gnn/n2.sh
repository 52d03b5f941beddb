#!/bin/bash
# n2.sh — the one GNN-layout row found below cuSPARSE outside the quick
# suite: rmat:20:16 f64 row-major k = 16 (rung 8 0.89x, rung 4 0.96x
# cuSPARSE ALG3; colband/b1 and the follow-ups in
# bench/results/h200/spmm.md), where rmat:19:16 at the same k and f32 k =
# 32 (the same 128-byte X rows) win. Nsight Compute on rungs 4 and 8 (row
# and chunk kernels) and on ALG3, and on rung 8 at f32 k = 32 for the same
# X row width: is f64's extra 4 bytes an entry, rung 8's three blocks an
# SM (85 registers for doubles) or the chunk kernel what loses? One launch
# profiled per case after the verifying run and a warm-up.
#   OUT=dir scripts/experiments/gnn/n2.sh
set -u
OUT=${OUT:-/tmp/gnn2}
mkdir -p "$OUT"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
. "$(dirname "$0")/ncu.sh"
PREC=f64
prof rmat16-rowsplit rmat:20:16 16 rowsplit 'spmm_row'
prof rmat16-rowpipe rmat:20:16 16 rowpipe 'spmm_row'
prof rmat16-cusparse rmat:20:16 16 cusparse-alg3 '^(?!spmm_)'
PREC=f32
prof rmat32-rowpipe-f32 rmat:20:16 32 rowpipe 'spmm_row'
