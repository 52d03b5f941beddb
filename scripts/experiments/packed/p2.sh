#!/bin/bash
# p2.sh — rung 13 (packed: 10 bytes an entry in f64, 6 in f32) after
# h200f64/e6-e8 found the L1's wavefronts, not the DRAM, bounding rung 10
# in f64 on the H200. p1 measured rung 13 a loss (0.71-0.92x rung 10 in
# f64); its octet stores are 64 bytes apart across lanes in f64 (16-way
# bank conflicts) and its octet-order gathers read 16 lines of x each.
# Branch packed-eo gives it the swizzled slots (stage_slots<T, 8>) and,
# for f64 past the L2 on the H200 class, entry-order staging with scalar
# loads of the 2-byte offsets (stage_packed_eo; SMV_PACK_EO=0|1 forces
# either). First test_cuda_packed (rung 10's bits) in every mode and under
# memcheck, then rung 13 against rung 10, cuSPARSE and AUTO on e8's local
# classes, both precisions, and rung 13 in the other mode.
# Run after building smv and build/tests/test_cuda_packed.
#   OUT=dir scripts/experiments/packed/p2.sh
set -u
OUT=${OUT:-/tmp/packed-p2}
mkdir -p "$OUT"
for m in default 0 1; do
  if [ $m = default ]; then unset SMV_PACK_EO; else export SMV_PACK_EO=$m; fi
  timeout 120 build/tests/test_cuda_packed >"$OUT/packed-$m.log" 2>&1
  echo "test_cuda_packed SMV_PACK_EO=$m: exit $?: $(grep '^RESULT' "$OUT/packed-$m.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/packed-$m.log" | head -5
done
unset SMV_PACK_EO
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 "$SAN" --tool memcheck --error-exitcode 99 \
  build/tests/test_cuda_packed >"$OUT/san-packed.log" 2>&1
echo "memcheck test_cuda_packed: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-packed.log" | tr '\n' ' ')"
M="band:4000000:8 band:2000000:16 band:1300000:24 band:1500000:23 stencil27:100 elastic3d:50 lap3d:160 stencil27:150"
timeout 200 build/smv bench $M --alg tiled,packed,cusparse-alg1,cusparse-alg2,auto \
  --precision both --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
  --csv "$OUT/p2.csv" >"$OUT/p2.log" 2>&1
echo "bench: exit $?"
SMV_PACK_EO=0 timeout 60 build/smv bench $M --alg packed --precision f64 \
  --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/p2-eo0.csv" \
  >"$OUT/p2-eo0.log" 2>&1
echo "bench SMV_PACK_EO=0 f64: exit $?"
SMV_PACK_EO=1 timeout 60 build/smv bench $M --alg packed --precision f32 \
  --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/p2-eo1.csv" \
  >"$OUT/p2-eo1.log" 2>&1
echo "bench SMV_PACK_EO=1 f32: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
for f in p2 p2-eo0 p2-eo1; do
  tail -n +2 "$OUT/$f.csv" | cut -d, -f6,10,11,14,20,43 | sed "s/^/$f,/"
done
