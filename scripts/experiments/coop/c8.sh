#!/bin/bash
# c8.sh — issue 24: where an iteration of the persistent CG waits. Nsight
# Compute (clocks left alone) on one launch of the resident kernel and of
# cg1, lap2d:300 (the resident kernel's loss) and G2_circuit (its win):
# the warp-state breakdown, and the sampled stalls per source line (the
# kernels are built with -lineinfo). f64, no preconditioner, a solve to
# 1e-8 (the profiled launch is the first: the warm-up solve's).
#   OUT=dir scripts/experiments/coop/c8.sh
set -u
OUT=${OUT:-/tmp/coop-c8}
mkdir -p "$OUT"
S=${SMV_MATRICES:-.shared/matrices}
make -j16 SM=90 solver-bench >"$OUT/build.log" 2>&1 || echo "solver-bench build failed"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
prof() { # label variant kernel-regex matrix
  SMV_SOLVE_COOP_VARIANT=$2 timeout 150 "$NCU" --clock-control none \
    --section WarpStateStats --section SourceCounters --section LaunchStats \
    --section Occupancy --import-source yes -k "regex:$3" --launch-count 1 \
    -o "$OUT/$1" -f build/solve_smv "$4" --runs 1 --fixed 100 \
    >"$OUT/$1.log" 2>&1
  echo "== $1: exit $?"
  "$NCU" -i "$OUT/$1.ncu-rep" --page details >"$OUT/$1-details.txt" 2>&1
  grep -E "Stall|Warp Cycles|Registers|Achieved|Theoretical|Duration|Block Limit" \
    "$OUT/$1-details.txt" | head -30
  "$NCU" -i "$OUT/$1.ncu-rep" --page source --csv --print-source cuda \
    >"$OUT/$1-source.csv" 2>&1
  echo "   source rows: $(wc -l <"$OUT/$1-source.csv")"
}
prof res-lap2d res cgres_kernel lap2d:300
prof res-g2 res cgres_kernel "$S/G2_circuit.mtx.gz"
prof cg1-g2 cg1 cg1_kernel "$S/G2_circuit.mtx.gz"
