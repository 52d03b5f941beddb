#!/bin/bash
# n4.sh — issue 22: the chunk kernel of rung 4 at four blocks an SM
# (SMV_SPMM_CHUNK_MINB=4; n3 made it the default for doubles) in f32, on
# the GNN rows (f32 row-major k = 32 and 128: R-MAT at two sizes, the
# power-law graph), against the compiler's choice (=1, the f32 default),
# with rungs 4 and 8, AUTO and ALG3 in the same run. First the SpMM device
# tests (the f64 chunk kernel is now the 64-register build).
#   OUT=dir scripts/experiments/gnn/n4.sh
set -u
OUT=${OUT:-/tmp/gnn4}
mkdir -p "$OUT"
for t in test_cuda_spmm test_cuda_spmm_plan test_cuda_transpose_spmm; do
  timeout 200 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -5
done
. "$(dirname "$0")/minb.sh"
NAME=n4
minb_sweep f32 "32 128"
