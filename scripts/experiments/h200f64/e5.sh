#!/bin/bash
# e5.sh — after rung 10 keeps 2048-entry f64 tiles on scattered columns
# (the 4096 tile only for local rows of 32 or more on the H200 class):
# e4's scattered f64 rows where rung 10 lost to ALG1, and a local band of
# 49 that keeps the 4096 tile, every rung verified; the plan and SpMV
# device tests.
#   OUT=dir scripts/experiments/h200f64/e5.sh
set -u
OUT=${OUT:-/tmp/h200f64-e5}
mkdir -p "$OUT"
timeout 150 build/smv bench elastic3d:40,perm=rand elastic3d:30,perm=rand \
  band:1000000:16,perm=rand rand:1000000:40 band:1300000:24 \
  --alg adaptive,tiled,cusparse-alg1,auto --precision f64 --runs 30 \
  --max-time 0.25 --graph-batch 0 --quiet --csv "$OUT/e5.csv" \
  >"$OUT/e5.log" 2>&1
echo "bench: exit $?"
python3 - "$OUT/e5.csv" <<'PY'
import csv, sys
for x in csv.DictReader(open(sys.argv[1])):
    print(x['matrix'], x['precision'], x['alg'], x['verify'],
          round(float(x['warm_median_ms']) * 1000, 1),
          round(float(x['warm_pct_copy']), 1))
PY
for t in test_cuda_plan test_cuda_spmv test_cuda_pipe; do
  timeout 150 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -8
done
