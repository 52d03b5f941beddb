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
for m in $SPD; do
  coop_sweep "$m" "" "VARIANT=cg1"
done
cut -c1-250 "$R"
coop_phase_build
for m in lap2d:300 "$S/G2_circuit.mtx.gz" "$S/gyro_m.mtx.gz" "$S/wathen100.mtx.gz"; do
  b=$(basename "$m" .mtx.gz)
  coop_phases "$m" "$b-res" "" "$b res"
done
