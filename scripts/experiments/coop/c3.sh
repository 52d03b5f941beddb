#!/bin/bash
# c3.sh — issue 24: the persistent CG (cg1) with the plan's new shape
# (lanes per row cut until every row has its group in one pass of the
# grid; the partials in copies, block b reading copy b % copies) against
# the old one (lanes_for alone: SMV_SOLVE_COOP_LANES set to it; one copy),
# and the two changes apart, beside the fair anchor (graph-captured
# cuSPARSE + cuBLAS CG, build/cg_graph) in the same run. f64, no
# preconditioner; solve_smv and cg_graph verify their answers (check=).
#   OUT=dir scripts/experiments/coop/c3.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c3
timeout 150 build/tests/test_cuda_solve_coop >"$OUT/test_cuda_solve_coop.log" 2>&1
echo "test_cuda_solve_coop: exit $?: $(grep '^RESULT' "$OUT/test_cuda_solve_coop.log")"
# old lanes (lanes_for: at least half the mean row length, in [4, 32])
for spec in "lap2d:300 4" "$S/wathen100.mtx.gz 8" "$S/G2_circuit.mtx.gz 4" \
  "$S/gyro_m.mtx.gz 16" "$S/Trefethen_20000.mtx.gz 16" "lap3d:50 4"; do
  set -- $spec
  coop_sweep "$1" "LANES=$2 COPIES=1" "LANES=$2" "COPIES=1" "" "LANES=1" \
    "LANES=2" "LANES=4"
done
cut -c1-250 "$R"
