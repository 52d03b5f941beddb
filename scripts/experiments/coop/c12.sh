#!/bin/bash
# c12.sh — issue 24: the resident kernel with its halo gathered before
# the rows (a pass over the block's off-block entries, then the rows'
# products from shared memory alone) and one 512-thread block an SM by
# default (coop/c11: the grid sum is several times cheaper at one block an
# SM). c10's sweep (the new default and cg1 beside the fair anchor,
# build/cg_graph, in the same run), then the phases of the resident kernel
# on four matrices (phase "halo": passes 1 and 2, "rows": pass 3).
#   OUT=dir scripts/experiments/coop/c12.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c12
for m in lap2d:300 lap3d:50 $S/wathen100.mtx.gz $S/gyro_m.mtx.gz \
  $S/G2_circuit.mtx.gz $S/Trefethen_20000.mtx.gz \
  $S/s3rmt3m3.mtx.gz $S/cvxbqp1.mtx.gz lap3d:100; do
  coop_sweep "$m" "" "VARIANT=cg1"
done
cut -c1-250 "$R"
make -j16 SM=90 BUILD=build-ph \
  NVCCFLAGS="-O3 -std=c++17 -arch=sm_90 -lineinfo -Xcompiler -Wall,-Wextra,-fPIC -DSMV_COOP_PHASES" \
  solver-bench >"$OUT/build-ph.log" 2>&1 || echo "phase build failed"
for m in lap2d:300 "$S/G2_circuit.mtx.gz" "$S/gyro_m.mtx.gz" "$S/wathen100.mtx.gz"; do
  [ -e "$m" ] || case "$m" in *:*) ;; *) continue ;; esac
  b=$(basename "$m" .mtx.gz)
  timeout 60 build-ph/solve_smv "$m" --runs 1 --fixed 1000 --persistent 1 \
    >"$OUT/ph-$b-res.txt" 2>&1
  python3 scripts/experiments/coop/phases.py "$OUT/ph-$b-res.txt" "$b res"
done
