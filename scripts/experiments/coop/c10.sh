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
for m in $SPD; do
  coop_sweep "$m" "" "VARIANT=cg1"
done
cut -c1-250 "$R"
coop_phase_build
for m in lap2d:300 "$S/G2_circuit.mtx.gz" "$S/gyro_m.mtx.gz"; do
  b=$(basename "$m" .mtx.gz)
  coop_phases "$m" "$b-res" "" "$b res"
done
