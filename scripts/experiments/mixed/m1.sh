#!/bin/bash
# m1.sh — issue 23 item 2: the f64-f32v mode (f64 vectors, values stored
# in f32: 8 bytes an entry instead of 12) against f64 AUTO and cuSPARSE
# ALG1/ALG2 in f64, in one run, on matrices past the L2: local columns
# (lap3d, stencil27, elastic3d, bands of 23 and 47 entries a row) and one
# scattered (rand). Every rung verified first (f64-f32v within its error
# bound). L2-warm medians; the CSVs keep everything.
#   OUT=dir scripts/experiments/mixed/m1.sh
set -u
OUT=${OUT:-/tmp/mixed-m1}
mkdir -p "$OUT"
M="lap3d:160 stencil27:100 elastic3d:70 band:1500000:23 band:800000:47 rand:2000000:16"
timeout 100 build/tests/test_cuda_mixed >"$OUT/test_cuda_mixed.log" 2>&1
echo "test_cuda_mixed: exit $?: $(grep '^RESULT' "$OUT/test_cuda_mixed.log")"
grep -E "CHECK failed|FAIL" "$OUT/test_cuda_mixed.log" | head
for m in $M; do
  f=$(echo "$m" | tr ':' '_')
  timeout 120 build/smv bench "$m" --alg auto,9,10,cusparse-alg1,cusparse-alg2 \
    --precision f64 --runs 100 --csv "$OUT/$f-f64.csv" >"$OUT/$f-f64.txt" 2>&1
  echo "$m f64: exit $?"
  timeout 120 build/smv bench "$m" --alg auto,9,10 --precision f64-f32v \
    --runs 100 --csv "$OUT/$f-f32v.csv" >"$OUT/$f-f32v.txt" 2>&1
  echo "$m f64-f32v: exit $?"
done
python3 - "$OUT" <<'PY'
import csv, glob, os, sys
out = sys.argv[1]
rows = []
for f in sorted(glob.glob(os.path.join(out, "*.csv"))):
    with open(f) as fh:
        rows += list(csv.DictReader(fh))
if not rows:
    sys.exit("no rows")
best = {}
for r in rows:
    key = (r["matrix"], r["precision"], r["alg"])
    print(",".join(r[k] for k in ("matrix", "precision", "alg", "verify", "warm_median_ms", "warm_gbps", "warm_pct_copy", "graph_median_ms")))
cus = {}
for r in rows:
    if r["precision"] == "f64" and r["alg"].startswith("cusparse") and r["warm_median_ms"]:
        t = float(r["warm_median_ms"])
        cus[r["matrix"]] = min(cus.get(r["matrix"], 1e30), t)
print("matrix,precision,alg,warm_us,vs_fastest_cusparse_f64")
for r in rows:
    if r["alg"] in ("auto", "9", "10", "adaptive", "tiled") and r["warm_median_ms"] and r["matrix"] in cus:
        t = float(r["warm_median_ms"])
        print(f'{r["matrix"]},{r["precision"]},{r["alg"]},{t*1e3:.1f},{cus[r["matrix"]]/t:.3f}')
PY
