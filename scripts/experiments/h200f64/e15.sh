#!/bin/bash
# e15.sh — after e14:
#   1. rung 13's reuse test by far entries (statistics pass: far_entries)
#      instead of a mean distance: the device tests of the reuse plan, rung
#      13 and the device statistics pass, memcheck of the last;
#   2. the two e14 rows the old test refused (stencil27:150, elastic3d:70)
#      with reuse declared, both precisions, beside rungs 10 and 13 and
#      cuSPARSE;
#   3. the k = 1 rows SpMM's table 5 left below cuSPARSE (R-MAT f32 on
#      rung 12, stencil27:80 f64 on rung 10), now that f32 quads stage in
#      plain slots again and f64 entry order into plain slots: the SpMV
#      engine on the graphs (rungs 10 and 12, cuSPARSE, AUTO) and
#      bench-spmm at k = 1 against every cuSPARSE SpMM algorithm.
# Binaries built here: bis/new-*.xz (carry ["bis"]).
# Device: OUT=dir scripts/experiments/h200f64/e15.sh
set -u
OUT=${OUT:-/tmp/h200f64-e15}
mkdir -p "$OUT"
. "$(dirname "$0")/prebuilt.sh"
prebuilt_unpack /tmp/e15
B=/tmp/e15/new
prebuilt_tests $B- "$OUT" test_cuda_reuse test_cuda_packed test_cuda_matrix_device
grep -E "rung 13|reuse plan" "$OUT/test_cuda_reuse.log" | head -12
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 120 "$SAN" --tool memcheck --error-exitcode 99 \
  $B-test_cuda_matrix_device >"$OUT/san-matrix_device.log" 2>&1
echo "memcheck test_cuda_matrix_device: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-matrix_device.log" | tr '\n' ' ')"
echo "== 2. reuse on stencil27:150 and elastic3d:70"
timeout 150 $B-smv bench stencil27:150 elastic3d:70 \
  --alg tiled,packed,cusparse-alg1,cusparse-alg2,auto --reuse \
  --precision both --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
  --csv "$OUT/reuse.csv" >"$OUT/reuse.log" 2>&1
echo "bench: exit $?"
echo "== 3. the graphs' SpMV and k = 1"
timeout 120 $B-smv bench rmat:20:16 plaw:1000000:16 stencil27:80 \
  --alg tiled,hot,cusparse-alg1,cusparse-alg2,auto --precision both \
  --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
  --csv "$OUT/graphs.csv" >"$OUT/graphs.log" 2>&1
echo "bench: exit $?"
timeout 120 $B-smv bench-spmm rmat:20:16 plaw:1000000:16 stencil27:80 \
  --k 1 --prec both --layout both \
  --algs auto,cusparse-alg1,cusparse-alg2,cusparse-alg3 --runs 30 \
  --csv "$OUT/spmm-k1.csv" >"$OUT/spmm-k1.log" 2>&1
echo "bench-spmm: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy,note"
for f in reuse graphs; do
  tail -n +2 "$OUT/$f.csv" | cut -d, -f6,10,11,14,20,43,60
done
cat "$OUT/spmm-k1.csv"
