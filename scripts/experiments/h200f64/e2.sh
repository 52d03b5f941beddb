#!/bin/bash
# e2.sh — AUTO after rule 7 (auto.def: f64 local rows from 56 entries on
# to rung 9 where the DRAM delivers more than 16 bytes per SM-clock) on
# e1's bands, stencil and elastic matrices and issue 23's held-out f64
# classes (band:1500000:23, band:800000:47, elastic3d:70, stencil27:150),
# f64 and f32, against rungs 9 and 10 and cuSPARSE ALG1/ALG2, every rung
# verified first.
#   OUT=dir scripts/experiments/h200f64/e2.sh
set -u
OUT=${OUT:-/tmp/h200f64-e2}
mkdir -p "$OUT"
timeout 280 build/smv bench band:4000000:8 band:2000000:16 band:1300000:24 \
  band:1000000:32 band:800000:40 stencil27:100 elastic3d:50 \
  band:1500000:23 band:800000:47 elastic3d:70 stencil27:150 \
  --alg adaptive,tiled,cusparse-alg1,cusparse-alg2,auto --precision both \
  --runs 40 --max-time 0.3 --graph-batch 0 --quiet \
  --csv "$OUT/e2.csv" --markdown "$OUT/e2.md" >"$OUT/e2.log" 2>&1
echo "bench: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy,note"
tail -n +2 "$OUT/e2.csv" | cut -d, -f6,10,11,14,20,43,60
