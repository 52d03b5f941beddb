#!/bin/bash
# c13.sh — issue 24: the resident kernel's rows partitioned a second time
# with each off-block entry weighed by the bytes its halo gather moves
# (cg_res_bounds), against the partition by the slice's bytes alone
# (SMV_SOLVE_COOP_REBALANCE=0: coop/c12's default) and cg1, beside the
# fair anchor (build/cg_graph) in the same run. c12 found the slowest
# block's halo pass (G2_circuit: 4.8 us against a mean of 1.75) setting
# the barrier's wait. The device tests: verify/v10 in the same call.
#   OUT=dir scripts/experiments/coop/c13.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c13
for m in $SPD; do
  coop_sweep "$m" "" "REBALANCE=0" "VARIANT=cg1"
done
cut -c1-250 "$R"
