#!/bin/bash
# c16.sh — issue 24: the resident kernel with c15's lanes rule
# (res_lanes_for: lanes from the rows' length over 8) and its plan kept on
# the context (a second solve of a matrix plans nothing; with the solver
# workspace kept too, a call's wall time past its iterations is what is
# left of the set-up). The default beside the fair anchor in the same run,
# with LANES=2 and LANES=4 as the rule's neighbours on the rows of 15-40
# entries; then the phases on two matrices.
#   OUT=dir scripts/experiments/coop/c16.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c16
for m in $SPD; do
  case $m in
  *gyro_m* | *wathen100* | *Trefethen* | *s3rmt3m3*) coop_sweep "$m" "" "LANES=2" "LANES=4" ;;
  *) coop_sweep "$m" "" ;;
  esac
done
cut -c1-250 "$R"
coop_phase_build
for m in "$S/Trefethen_20000.mtx.gz" "$S/gyro_m.mtx.gz" "$S/G2_circuit.mtx.gz"; do
  b=$(basename "$m" .mtx.gz)
  coop_phases "$m" "$b-res" "" "$b res"
done
