#!/bin/bash
# e18.sh — AUTO's rule 7 after e17 (rung 10's f64 entry-order tiles back
# to 2048): rung 9 against rung 10 (and cuSPARSE) on f64 local rows of
# 49-129 entries past the L2, every run verified. Binary built here:
# bis/new-smv.xz (prebuild.sh; carry ["bis"]).
# Device: OUT=dir scripts/experiments/h200f64/e18.sh
set -u
OUT=${OUT:-/tmp/h200f64-e18}
mkdir -p "$OUT"
. "$(dirname "$0")/prebuilt.sh"
prebuilt_unpack /tmp/e18
timeout 150 /tmp/e18/new-smv bench band:1300000:24 band:2000000:32 \
  band:1500000:40 elastic3d:50 elastic3d:70 band:1200000:47 band:1000000:64 \
  --alg adaptive,tiled,cusparse-alg1,cusparse-alg2,auto --precision f64 \
  --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/e18.csv" \
  >"$OUT/e18.log" 2>&1
echo "bench: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy,note"
tail -n +2 "$OUT/e18.csv" | cut -d, -f6,10,11,14,20,43,60
