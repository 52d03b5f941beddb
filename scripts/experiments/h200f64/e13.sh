#!/bin/bash
# e13.sh — after e12 (commit bc062fb, with branch packed-eo merged):
#   1. the device tests of the tile rungs and the engine, memcheck of the
#      SpMV and packed tests;
#   2. f32 rung 10 against a0c1048's binary (the quads in plain slots
#      again: e12 had main 9% slower), two passes, alternating;
#   3. f64 rung 10's staging: quads (SMV_TILE_EO=0), entry order into
#      swizzled slots (1, main before the merge) and into plain slots (2,
#      the branch's default), on e8's local classes;
#   4. f64 rung 13: entry-order staging of the 2-byte offsets
#      (SMV_PACK_EO=1, the default on the H200 class) against octets
#      (0): e12 had rung 13 at 0.75-0.93x rung 10 in f64 with 1;
#   5. Nsight Compute on rung 13 in f64 (what bounds it).
# Binaries built here (no device build time): build/smv and the tests
# named below, xz'd into bis/ with a0c1048's smv (carry ["bis"]):
#   for b in smv tests/test_cuda_spmv ...; do xz -c build/$b >
#   bis/new-$(basename $b).xz; done
# Device: OUT=dir scripts/experiments/h200f64/e13.sh
set -u
OUT=${OUT:-/tmp/h200f64-e13}
mkdir -p "$OUT"
. "$(dirname "$0")/prebuilt.sh"
prebuilt_unpack /tmp/e13
B=/tmp/e13/new
echo "== 1. device tests"
prebuilt_tests $B- "$OUT" test_cuda_spmv test_cuda_hot test_cuda_packed \
  test_cuda_pipe test_cuda_plan test_cuda_matrices test_cuda_reuse
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in test_cuda_spmv test_cuda_packed; do
  timeout 150 "$SAN" --tool memcheck --error-exitcode 99 $B-$t \
    >"$OUT/san-$t.log" 2>&1
  echo "memcheck $t: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-$t.log" | tr '\n' ' ')"
done
echo "== 2. f32 rung 10: a0c1048 against this tree"
echo "tree,pass,matrix,alg,verify,warm_median_ms,warm_pct_copy"
for pass in 1 2; do
  for c in a0c1048 new; do
    timeout 60 /tmp/e13/$c-smv bench band:4000000:8 stencil27:100 \
      band:2000000:16 --alg tiled,cusparse-alg1 --precision f32 --runs 30 \
      --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/f32-$c-$pass.csv" \
      >"$OUT/f32-$c-$pass.log" 2>&1 || echo "$c pass $pass rc=$?"
    tail -n +2 "$OUT/f32-$c-$pass.csv" | cut -d, -f6,11,14,20,43 |
      sed "s/^/$c,$pass,/"
  done
done
M="band:4000000:8 band:2000000:16 band:1500000:23 band:2000000:32 stencil27:100 stencil27:150"
echo "== 3. f64 rung 10 staging (SMV_TILE_EO), 4. f64 rung 13 (SMV_PACK_EO)"
for m in 2 1 0; do
  SMV_TILE_EO=$m timeout 90 $B-smv bench $M --alg tiled --precision f64 \
    --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/eo$m.csv" \
    >"$OUT/eo$m.log" 2>&1
  echo "bench SMV_TILE_EO=$m: exit $?"
done
for m in 1 0; do
  SMV_PACK_EO=$m timeout 90 $B-smv bench $M --alg packed --precision f64 \
    --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/pk$m.csv" \
    >"$OUT/pk$m.log" 2>&1
  echo "bench SMV_PACK_EO=$m: exit $?"
done
echo "run,matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
for f in eo2 eo1 eo0 pk1 pk0; do
  tail -n +2 "$OUT/$f.csv" | cut -d, -f6,10,11,14,20,43 | sed "s/^/$f,/"
done
echo "== 5. Nsight Compute: rung 13 f64 on stencil27:100 (SMV_PACK_EO default)"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 90 "$NCU" --clock-control none --print-details all \
  --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables \
  --section LaunchStats --section Occupancy --section WarpStateStats \
  -k regex:spmv_packed --launch-skip 3 --launch-count 1 \
  $B-smv bench stencil27:100 --alg packed --precision f64 --runs 3 \
  --graph-batch 0 --quiet >"$OUT/ncu-packed-f64.txt" 2>&1
echo "ncu rc=$?"
grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Registers Per|Achieved Occupancy|Block Limit|Stall|wavefronts_mem_shared_op_(ld|st).sum |bank_conflicts" \
  "$OUT/ncu-packed-f64.txt" | head -40
