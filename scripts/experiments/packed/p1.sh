#!/bin/bash
# p1.sh — SpMV rung 13 (packed indices) against rung 10 (the CSR it packs),
# rung 9, AUTO and cuSPARSE ALG1/ALG2 on local-column matrices past the L2,
# f64 and f32, every rung verified against the serial reference before it
# is timed (smv bench); the device test of rung 13 first (bits against
# rung 10). One device call from the repository root after the build:
#   OUT=dir scripts/experiments/packed/p1.sh
# Issue 23's goal on these: 1.3x (f64) / 1.25x (f32) the faster cuSPARSE,
# i.e. past 110% of CSR's copy limit; bench prints GB/s by CSR's minimal
# bytes, so a packed rung can read above the copy bandwidth.
set -u
OUT=${OUT:-/tmp/packed}
mkdir -p "$OUT"
build/tests/test_cuda_packed >"$OUT/test_cuda_packed.log" 2>&1
echo "test_cuda_packed: exit $?: $(tail -1 "$OUT/test_cuda_packed.log")"
timeout 400 build/smv bench lap3d:160 stencil27:100 elastic3d:40 \
  band:6000000:23 band:1500000:47 --alg adaptive,tiled,packed,cusparse-alg1,cusparse-alg2,auto \
  --precision both --runs 50 --max-time 0.5 --graph-batch 0 \
  --csv "$OUT/packed.csv" --markdown "$OUT/packed.md" >"$OUT/packed.log" 2>&1
echo "bench: exit $?"
grep -E "FAIL|copy|GB/s" "$OUT/packed.log" | head -20
