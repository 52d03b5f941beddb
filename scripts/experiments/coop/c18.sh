#!/bin/bash
# c18.sh — issue 24's iteration count, the sweep half of c17: on every
# matrix of c16 the fair anchor (build/cg_graph), the resident kernel's
# default (res: cg1's recurrence) and SMV_SOLVE_COOP_VARIANT=pr in the same
# run. Read the iterations to 1e-8 (gyro_m: anchor 4401, res 4498 in c16)
# and the time an iteration. Both recurrences are named (at 7de218a,
# where it ran, res was the default and its raw file says "default").
#   OUT=dir scripts/experiments/coop/c18.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c18
for m in $SPD; do
  coop_sweep "$m" "VARIANT=res" "VARIANT=pr"
done
cut -c1-250 "$R"
