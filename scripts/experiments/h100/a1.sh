#!/bin/bash
# a1.sh — issue 23's classes on whatever device runs it (written for the
# first H100 call after the H200-only stops 28-30), so that both devices
# are measured by the same commands: e2's local f64/f32 bands, stencils and
# elastic matrices with the held-out classes; e4's scattered classes (rule
# 4, rung 10's tile); rung 14 beside rung 10; every rung verified first.
# Prints the device so the results go to bench/results/<device>/.
#   OUT=dir scripts/experiments/h100/a1.sh
set -u
OUT=${OUT:-/tmp/a1}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
show() {
  python3 - "$1" <<'PY'
import csv, sys
for x in csv.DictReader(open(sys.argv[1])):
    print(x['matrix'], x['precision'], x['alg'], x['verify'],
          round(float(x['warm_median_ms']) * 1000, 1),
          round(float(x['warm_pct_copy']), 1))
PY
}
timeout 260 build/smv bench band:4000000:8 band:2000000:16 band:1300000:24 \
  band:1000000:32 band:800000:40 stencil27:100 elastic3d:50 \
  band:1500000:23 band:800000:47 elastic3d:70 stencil27:150 lap3d:160 \
  --alg adaptive,tiled,pipe,cusparse-alg1,cusparse-alg2,auto \
  --precision both --runs 30 --max-time 0.25 --graph-batch 0 --quiet \
  --csv "$OUT/local.csv" >"$OUT/local.log" 2>&1
echo "local: exit $?"
show "$OUT/local.csv"
timeout 150 build/smv bench elastic3d:40,perm=rand elastic3d:30,perm=rand \
  band:1000000:16,perm=rand rand:1000000:40 rand:1000000:24 \
  stencil27:60,perm=rand plaw:2000000:16 rmat:22:16 \
  --alg adaptive,tiled,cusparse-alg1,cusparse-alg2,auto --precision both \
  --runs 30 --max-time 0.25 --graph-batch 0 --quiet \
  --csv "$OUT/scattered.csv" >"$OUT/scattered.log" 2>&1
echo "scattered: exit $?"
show "$OUT/scattered.csv"
