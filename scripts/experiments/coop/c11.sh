#!/bin/bash
# c11.sh — issue 24: after c10, the G partials' sum is still the largest
# phase of the resident kernel's iteration (2.8 us of 7.4 on lap2d:300
# at 264 blocks). Is it the loads (every block reads all G x 3 partials
# at once from the same L2 lines) or the block's reduction of them? The
# phase build now marks the loads apart (phase 8). And the grid's shape
# against it: fewer blocks (one an SM: half the partials and half the
# readers), 512-thread blocks, 4 copies of the partials, cg1 at two
# blocks an SM. The sweep beside the fair anchor (build/cg_graph) in the
# same run, then the phases of each shape on lap2d:300 and G2_circuit.
#   OUT=dir scripts/experiments/coop/c11.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c11
CFGS=("" "PER_SM=1" "PER_SM=1 BLOCK=512" "COPIES=4" "VARIANT=cg1" "VARIANT=cg1 PER_SM=2")
for m in lap2d:300 $S/wathen100.mtx.gz $S/gyro_m.mtx.gz $S/G2_circuit.mtx.gz \
  $S/Trefethen_20000.mtx.gz; do
  coop_sweep "$m" "${CFGS[@]}"
done
cut -c1-250 "$R"
coop_phase_build
for m in lap2d:300 "$S/G2_circuit.mtx.gz"; do
  b=$(basename "$m" .mtx.gz)
  i=0
  for cfg in "${CFGS[@]}"; do
    i=$((i + 1))
    coop_phases "$m" "$b-$i" "$cfg" "$b:${cfg:- default}"
  done
done
