#!/bin/bash
# c9.sh — issue 24: where an iteration of the persistent CG goes, phase by
# phase (src/cuda/solve/coop_phases.h: clock64 at the loop's marks, thread
# 0 of every block, printed at the end of each launch). The solver
# benchmark is built a second time into build-ph with -DSMV_COOP_PHASES
# (the library's own build has no marks). A solve to 1e-8 and a fixed run
# (1000 iterations) per matrix and variant; the launch with the most
# iterations is summarised, f64, no preconditioner; phases.py prints
# each phase's mean and slowest block per iteration. The plain build's
# times are printed beside them (the marks' own cost: one __syncthreads
# and a few clock reads an iteration).
#   OUT=dir scripts/experiments/coop/c9.sh
set -u
OUT=${OUT:-/tmp/coop-c9}
mkdir -p "$OUT"
S=${SMV_MATRICES:-.shared/matrices}
make -j16 SM=90 solver-bench >"$OUT/build.log" 2>&1 || echo "solver-bench build failed"
make -j16 SM=90 BUILD=build-ph \
  NVCCFLAGS="-O3 -std=c++17 -arch=sm_90 -lineinfo -Xcompiler -Wall,-Wextra,-fPIC -DSMV_COOP_PHASES" \
  solver-bench >"$OUT/build-ph.log" 2>&1 || echo "phase build failed"
for m in lap2d:300 "$S/wathen100.mtx.gz" "$S/G2_circuit.mtx.gz" "$S/gyro_m.mtx.gz" lap3d:50; do
  [ -e "$m" ] || case "$m" in *:*) ;; *) continue ;; esac
  b=$(basename "$m" .mtx.gz)
  for v in res cg1; do
    SMV_SOLVE_COOP_VARIANT=$v timeout 60 build/solve_smv "$m" --runs 3 --fixed 1000 \
      --persistent 1 2>&1 | grep RESULT | sed "s/^/$v plain: /"
    SMV_SOLVE_COOP_VARIANT=$v timeout 60 build-ph/solve_smv "$m" --runs 1 --fixed 1000 \
      --persistent 1 >"$OUT/ph-$b-$v.txt" 2>&1
    grep RESULT "$OUT/ph-$b-$v.txt" | sed "s/^/$v marks: /"
    python3 scripts/experiments/coop/phases.py "$OUT/ph-$b-$v.txt" "$b $v"
  done
done
