#!/bin/bash
# c10.sh — issue 24: the persistent CG after c9's phase profile found
# three costs in the iteration's tail: the G partials' sum issued its
# loads one sum at a time (3 L2 round trips, 6 past 256 blocks), the stop
# test took a square root and a division every iteration, and the scalar
# step chained three divisions (now two). c7's sweep again (the resident
# kernel, the default, and cg1 beside the fair anchor, build/cg_graph, in
# the same run), then c9's phase profile of the resident kernel on three
# matrices. The device tests: verify/v10 in the same call.
#   OUT=dir scripts/experiments/coop/c10.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c10
for m in lap2d:300 lap3d:50 $S/wathen100.mtx.gz $S/gyro_m.mtx.gz \
  $S/G2_circuit.mtx.gz $S/Trefethen_20000.mtx.gz \
  $S/s3rmt3m3.mtx.gz $S/cvxbqp1.mtx.gz lap3d:100; do
  coop_sweep "$m" "" "VARIANT=cg1"
done
cut -c1-250 "$R"
make -j16 SM=90 BUILD=build-ph \
  NVCCFLAGS="-O3 -std=c++17 -arch=sm_90 -lineinfo -Xcompiler -Wall,-Wextra,-fPIC -DSMV_COOP_PHASES" \
  solver-bench >"$OUT/build-ph.log" 2>&1 || echo "phase build failed"
for m in lap2d:300 "$S/G2_circuit.mtx.gz" "$S/gyro_m.mtx.gz"; do
  [ -e "$m" ] || case "$m" in *:*) ;; *) continue ;; esac
  b=$(basename "$m" .mtx.gz)
  timeout 60 build-ph/solve_smv "$m" --runs 1 --fixed 1000 --persistent 1 \
    >"$OUT/ph-$b-res.txt" 2>&1
  python3 scripts/experiments/coop/phases.py "$OUT/ph-$b-res.txt" "$b res"
done
