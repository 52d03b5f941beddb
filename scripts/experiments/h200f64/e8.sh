#!/bin/bash
# e8.sh — the tile rungs after e6-e7, as committed: swizzled slots always,
# entry-order staging for f64 past the L2 on local columns on a device
# whose DRAM delivers more than 16 bytes per SM-clock (rung 10's
# tiled_eo). The device tests of every tile rung and the engine (rungs 13
# and 14 compare bits with rung 10; rung 12 with rung 10), memcheck of
# test_cuda_spmv and test_cuda_hot, the plan line, then e2's bench (e1's
# bands, stencil and elastic matrices and issue 23's held-out f64 classes,
# f64 and f32, AUTO against rungs 9 and 10 and cuSPARSE ALG1/ALG2, every
# rung verified first). Run after building smv and the tests named below.
#   OUT=dir scripts/experiments/h200f64/e8.sh
set -u
OUT=${OUT:-/tmp/h200f64-e8}
mkdir -p "$OUT"
for t in test_cuda_spmv test_cuda_hot test_cuda_packed test_cuda_pipe \
  test_cuda_mixed test_cuda_plan test_cuda_matrices test_cuda_reuse; do
  timeout 120 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -5
done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in test_cuda_spmv test_cuda_hot; do
  timeout 150 "$SAN" --tool memcheck --error-exitcode 99 \
    build/tests/$t >"$OUT/san-$t.log" 2>&1
  echo "memcheck $t: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-$t.log" | tr '\n' ' ')"
done
build/smv info stencil27:100 --precision f64 --plan 2>&1 | grep -iE 'plan|rung|entry order' | head -8
timeout 280 build/smv bench band:4000000:8 band:2000000:16 band:1300000:24 \
  band:1000000:32 band:800000:40 stencil27:100 elastic3d:50 \
  band:1500000:23 band:800000:47 elastic3d:70 stencil27:150 \
  --alg adaptive,tiled,cusparse-alg1,cusparse-alg2,auto --precision both \
  --runs 40 --max-time 0.3 --graph-batch 0 --quiet \
  --csv "$OUT/e8.csv" --markdown "$OUT/e8.md" >"$OUT/e8.log" 2>&1
echo "bench: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy,note"
tail -n +2 "$OUT/e8.csv" | cut -d, -f6,10,11,14,20,43,60
