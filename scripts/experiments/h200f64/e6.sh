#!/bin/bash
# e6.sh — rung 10's staging stores without bank conflicts (tile_common.h's
# stage_slots, SMV_TILE_SWZ=1, the default) against the plain order
# (SMV_TILE_SWZ=0). The reading behind it: in f64 a thread's four scalar
# stores of its quad's products hit 4 of the 16 bank groups (8 wavefronts
# a store where 2 do), and the H200 must move 1.4x more bytes per SM-clock
# than the H100 through the same L1. If the L1's wavefronts are what holds
# f64 at 70-76% of copy, the swizzle raises it. First the device tests of
# every tile rung (rung 13 and 14 compare bits with rung 10's), then one
# bench per setting on e2's classes (every rung verified), then Nsight
# Compute on stencil27:100 f64 both ways (shared-memory wavefronts, L1
# throughput, stalls). Run after building smv and the tests named below.
#   OUT=dir scripts/experiments/h200f64/e6.sh
set -u
OUT=${OUT:-/tmp/h200f64-e6}
mkdir -p "$OUT"
for t in test_cuda_spmv test_cuda_hot test_cuda_packed test_cuda_pipe \
  test_cuda_mixed test_cuda_plan; do
  timeout 120 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -5
done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 "$SAN" --tool memcheck --error-exitcode 99 \
  build/tests/test_cuda_hot >"$OUT/san-hot.log" 2>&1
echo "memcheck test_cuda_hot: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-hot.log" | tr '\n' ' ')"
M="band:4000000:8 band:2000000:16 band:1300000:24 band:1500000:23 band:800000:47 stencil27:100 elastic3d:50 lap3d:160 rand:2000000:16"
for s in 1 0; do
  algs=tiled
  [ $s = 1 ] && algs=adaptive,tiled,cusparse-alg1,auto
  SMV_TILE_SWZ=$s timeout 150 build/smv bench $M --alg $algs \
    --precision both --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
    --csv "$OUT/swz$s.csv" >"$OUT/swz$s.log" 2>&1
  echo "bench SMV_TILE_SWZ=$s: exit $?"
done
echo "swz,matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
for s in 1 0; do
  tail -n +2 "$OUT/swz$s.csv" | cut -d, -f6,10,11,14,20,43 | sed "s/^/$s,/"
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for s in 1 0; do
  SMV_TILE_SWZ=$s timeout 120 "$NCU" --clock-control none \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section WarpStateStats \
    -k regex:spmv_tiled --launch-skip 3 --launch-count 1 \
    build/smv bench stencil27:100 --alg tiled --precision f64 --runs 3 \
    --graph-batch 0 --quiet >"$OUT/ncu-swz$s.txt" 2>&1
  echo "== ncu SMV_TILE_SWZ=$s rc=$?"
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|Mem Pipes|L1/TEX Cache Throughput|Shared.*(Wavefronts|Bank)|Bank Conflicts|Stall|Mio|MIO|LG Throttle|Long Scoreboard" "$OUT/ncu-swz$s.txt" | head -40
done
