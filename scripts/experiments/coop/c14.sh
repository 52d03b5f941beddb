#!/bin/bash
# c14.sh — issue 24: the resident kernel's halo as each block's distinct
# off-block columns, sorted, one slot each (res_halo_map_kernel, once a
# plan), where c12/c13's kernel gave every off-block entry its own slot in
# entry order (repeats gathered again; a warp's gathers on scattered
# columns). The new default beside the fair anchor (build/cg_graph) in the
# same run, the per-entry map (MAP_KEYS=16: every block past 16 off-block
# entries) on the matrices with the most repeats, then the phases of the
# resident kernel on four matrices.
#   OUT=dir scripts/experiments/coop/c14.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c14
for m in $SPD; do
  case $m in
  *gyro_m* | *wathen100* | *s3rmt3m3*) coop_sweep "$m" "" "MAP_KEYS=16" ;;
  *) coop_sweep "$m" "" ;;
  esac
done
cut -c1-250 "$R"
coop_phase_build
for m in "$S/G2_circuit.mtx.gz" "$S/gyro_m.mtx.gz" "$S/Trefethen_20000.mtx.gz" "$S/cvxbqp1.mtx.gz"; do
  b=$(basename "$m" .mtx.gz)
  coop_phases "$m" "$b-res" "" "$b res"
done
