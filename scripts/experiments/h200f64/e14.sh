#!/bin/bash
# e14.sh — issue 23's table on the H200 after e12-e13 (f32 quads in plain
# slots, rule 7 at 72, rung 10's entry order into plain slots, rung 13's
# swizzled octets): local-column classes past the L2 (e8's bands, stencils,
# elastic matrices and lap3d), f64 and f32, rungs 9, 10 and 13, cuSPARSE
# ALG1/ALG2 and AUTO with reuse declared (--reuse: planned by measurement
# among the rule's pick, rung 13 and cuSPARSE; AUTO without reuse is the
# rule's pick, timed here as rung 9 or 10), every rung verified first.
# Then the tests of rungs 13 and the reuse plan. Binaries built here:
# bis/new-smv.xz, bis/new-test_cuda_*.xz (carry ["bis"]).
# Device: OUT=dir scripts/experiments/h200f64/e14.sh
set -u
OUT=${OUT:-/tmp/h200f64-e14}
mkdir -p "$OUT"
. "$(dirname "$0")/prebuilt.sh"
prebuilt_unpack /tmp/e14
B=/tmp/e14/new
prebuilt_tests $B- "$OUT" test_cuda_packed test_cuda_reuse test_cuda_spmv
M="band:4000000:8 band:2000000:16 band:1500000:23 band:1000000:32 band:800000:47 stencil27:100 stencil27:150 elastic3d:50 elastic3d:70 lap3d:160"
timeout 420 $B-smv bench $M \
  --alg adaptive,tiled,packed,cusparse-alg1,cusparse-alg2,auto --reuse \
  --precision both --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
  --csv "$OUT/e14.csv" --markdown "$OUT/e14.md" >"$OUT/e14.log" 2>&1
echo "bench: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy,note"
tail -n +2 "$OUT/e14.csv" | cut -d, -f6,10,11,14,20,43,60
