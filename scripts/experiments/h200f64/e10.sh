#!/bin/bash
# e10.sh — branch packed-eo: rung 10's entry-order staging into plain slots
# (SMV_TILE_EO=2, the branch's default for f64 past the L2 on the H200
# class) against main's swizzled slots (1) and the quads (0). With entry
# order the stores are 32 consecutive slots either way; the question is
# the row sums' reads, 3.8-way conflicted in plain order and 5.1-way
# swizzled on stencil27:100 (e6's Nsight Compute). The device tests of the
# tile rungs in modes 2 and 1, then rung 10 in each mode in f64 (every
# rung verified), then Nsight Compute on stencil27:100 f64 in modes 1 and 2.
# Run after building smv and the tests named below.
#   OUT=dir scripts/experiments/h200f64/e10.sh
set -u
OUT=${OUT:-/tmp/h200f64-e10}
mkdir -p "$OUT"
for m in 2 1; do
  for t in test_cuda_spmv test_cuda_hot test_cuda_packed test_cuda_pipe; do
    SMV_TILE_EO=$m timeout 120 build/tests/$t >"$OUT/$t-eo$m.log" 2>&1
    echo "$t SMV_TILE_EO=$m: exit $?: $(grep '^RESULT' "$OUT/$t-eo$m.log" | tail -1)"
    grep -E "CHECK failed|FAIL" "$OUT/$t-eo$m.log" | head -5
  done
done
M="band:4000000:8 band:2000000:16 band:1300000:24 band:1500000:23 band:800000:47 stencil27:100 elastic3d:50 lap3d:160 stencil27:150"
for m in 2 1 0; do
  algs=tiled
  [ $m = 2 ] && algs=tiled,cusparse-alg1,auto
  SMV_TILE_EO=$m timeout 100 build/smv bench $M --alg $algs --precision f64 \
    --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/eo$m.csv" \
    >"$OUT/eo$m.log" 2>&1
  echo "bench SMV_TILE_EO=$m: exit $?"
done
echo "eo,matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
for m in 2 1 0; do
  tail -n +2 "$OUT/eo$m.csv" | cut -d, -f6,10,11,14,20,43 | sed "s/^/$m,/"
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for m in 1 2; do
  SMV_TILE_EO=$m timeout 60 "$NCU" --clock-control none --print-details all \
    --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables \
    -k regex:spmv_tiled --launch-skip 3 --launch-count 1 \
    build/smv bench stencil27:100 --alg tiled --precision f64 --runs 3 \
    --graph-batch 0 --quiet >"$OUT/ncu-eo$m.txt" 2>&1
  echo "== ncu SMV_TILE_EO=$m rc=$?"
  grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|wavefronts_mem_shared_op_(ld|st).sum |bank_conflicts_pipe_lsu_mem_shared_op_ld.sum " "$OUT/ncu-eo$m.txt" | head -12
done
