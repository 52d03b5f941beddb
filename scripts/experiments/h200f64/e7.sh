#!/bin/bash
# e7.sh — after e6 (the swizzled stores: f64 70-77% -> 78-81% of copy,
# Nsight Compute: L1 still 84% busy, shared loads 5.1-way conflicted in
# rows_sum, global loads 15.7 of 32 bytes a sector used by the quad-order
# gathers): the two remaining L1 costs, each by SMV_TILE_MODE's bits
# (tiles.cu): 1 swizzled slots (the default), 2 entry-order staging with
# scalar loads (stage_eo: gathers of 32 consecutive entries), 4 rows_sum's
# lanes a row from the row length (4 lanes a row on rows of ~27, fewer
# conflicts). First rung 10 and 12 against the reference in modes 7 and 3
# (test_cuda_spmv, test_cuda_hot), then rung 10 in modes 0, 1, 3, 5, 7 on
# e6's classes in one bench each (every rung verified), then Nsight
# Compute on stencil27:100 f64 in modes 1, 5 and 7.
#   OUT=dir scripts/experiments/h200f64/e7.sh
set -u
OUT=${OUT:-/tmp/h200f64-e7}
mkdir -p "$OUT"
for m in 7 3; do
  for t in test_cuda_spmv test_cuda_hot; do
    SMV_TILE_MODE=$m timeout 120 build/tests/$t >"$OUT/$t-m$m.log" 2>&1
    echo "$t SMV_TILE_MODE=$m: exit $?: $(grep '^RESULT' "$OUT/$t-m$m.log" | tail -1)"
    grep -E "CHECK failed|FAIL" "$OUT/$t-m$m.log" | head -5
  done
done
M="band:4000000:8 band:2000000:16 band:1300000:24 band:1500000:23 band:800000:47 stencil27:100 elastic3d:50 lap3d:160 rand:2000000:16"
for m in 1 0 3 5 7; do
  algs=tiled
  [ $m = 1 ] && algs=adaptive,tiled,cusparse-alg1,auto
  SMV_TILE_MODE=$m timeout 100 build/smv bench $M --alg $algs \
    --precision both --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
    --csv "$OUT/mode$m.csv" >"$OUT/mode$m.log" 2>&1
  echo "bench SMV_TILE_MODE=$m: exit $?"
done
echo "mode,matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
for m in 1 0 3 5 7; do
  tail -n +2 "$OUT/mode$m.csv" | cut -d, -f6,10,11,14,20,43 | sed "s/^/$m,/"
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for m in 1 5 7; do
  SMV_TILE_MODE=$m timeout 60 "$NCU" --clock-control none --print-details all \
    --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables \
    -k regex:spmv_tiled --launch-skip 3 --launch-count 1 \
    build/smv bench stencil27:100 --alg tiled --precision f64 --runs 3 \
    --graph-batch 0 --quiet >"$OUT/ncu-mode$m.txt" 2>&1
  echo "== ncu SMV_TILE_MODE=$m rc=$?"
  grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|Shared (Load|Store)|Global Load|Bank|Wavefronts" "$OUT/ncu-mode$m.txt" | head -24
done
