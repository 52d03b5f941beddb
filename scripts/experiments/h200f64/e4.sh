#!/bin/bash
# e4.sh — AUTO's rule 4 (scattered columns, x inside the L2, hardly any
# long rows: rung 10) on the H200, where reorder/o1 found rung 10 at 0.74x
# cuSPARSE ALG1 on elastic3d:40,perm=rand in f64 (a tie in f32): scattered
# classes from 7 to 81 entries per row, f64 and f32, rungs 9 and 10,
# cuSPARSE ALG1 and AUTO, every rung verified. Then the sanitizers again
# (verify/v7) after rung 14's copies at the arrays' ends went word by word.
#   OUT=dir scripts/experiments/h200f64/e4.sh
set -u
OUT=${OUT:-/tmp/h200f64-e4}
mkdir -p "$OUT"
timeout 200 build/smv bench elastic3d:40,perm=rand elastic3d:30,perm=rand \
  stencil27:60,perm=rand band:1000000:16,perm=rand rand:1000000:40 \
  rand:1000000:24 lap3d:100,perm=rand \
  --alg adaptive,tiled,cusparse-alg1,auto --precision both --runs 30 \
  --max-time 0.25 --graph-batch 0 --quiet --csv "$OUT/e4.csv" \
  >"$OUT/e4.log" 2>&1
echo "bench: exit $?"
python3 - "$OUT/e4.csv" <<'PY'
import csv, sys
for x in csv.DictReader(open(sys.argv[1])):
    print(x['matrix'], x['precision'], x['alg'], x['verify'],
          round(float(x['warm_median_ms']) * 1000, 1),
          round(float(x['warm_pct_copy']), 1), x['nnz'], x['rows'])
PY
OUT=$OUT bash scripts/experiments/verify/v7.sh
