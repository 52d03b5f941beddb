#!/bin/bash
# c7.sh — issue 24: the resident persistent CG as the default (half the
# SM's blocks) against cg1 and the resident kernel at four blocks an SM,
# beside the fair anchor (graph-captured cuSPARSE + cuBLAS CG,
# build/cg_graph) in the same run, on the real SPD matrices under 1M
# entries and the generated meshes. f64, no preconditioner; solve_smv and
# cg_graph verify their answers (check=). lap3d:100: past the L2 (the
# graph path). The device tests: verify/v10.
#   OUT=dir scripts/experiments/coop/c7.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c7
for m in $SPD; do
  coop_sweep "$m" "" "VARIANT=cg1" "PER_SM=4"
done
cut -c1-250 "$R"
