#!/bin/bash
# c15.sh — issue 24: the resident kernel's shape after c14's halo map.
# c14's phases put the rows' products (pass 3, from shared memory alone)
# at 2.1-2.6 us an iteration on gyro_m and Trefethen_20000 (16 lanes a
# row, 512 threads: 4-5 passes of a dependent chain, row offsets ->
# column -> u, then 4 shuffles) and G2_circuit's slowest block's halo and
# rows well above the mean. Sweep, beside the fair anchor in the same run:
# the default, fewer lanes a row (LANES=8, 4: more rows in flight, fewer
# shuffles), 1024 threads a block (twice the warps to hide the chain), and
# the halo-weighed second partition (REBALANCE=1, its weights now the
# distinct halo columns).
#   OUT=dir scripts/experiments/coop/c15.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c15
for m in "$S/Trefethen_20000.mtx.gz" "$S/G2_circuit.mtx.gz" "$S/gyro_m.mtx.gz" \
  "$S/cvxbqp1.mtx.gz" "$S/wathen100.mtx.gz" lap2d:300 lap3d:50; do
  coop_sweep "$m" "" "LANES=8" "LANES=4" "BLOCK=1024" "REBALANCE=1"
done
cut -c1-250 "$R"
