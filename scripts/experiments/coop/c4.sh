#!/bin/bash
# c4.sh — issue 24: the persistent BiCGStab (three grid barriers an
# iteration, bicgstab_coop.cu; off unless SMV_SOLVE_COOP_BICGSTAB=1)
# against BiCGStab on the graph path, same run, f64, no preconditioner
# and Jacobi, on the matrices of the solvers part (gpu/solvers.sh BI).
# solve_smv verifies every answer (check=PASS|FAIL). Then persistent CG
# once more at the current plan, beside the anchor, on lap2d:300.
#   OUT=dir scripts/experiments/coop/c4.sh
set -u
OUT=${OUT:-/tmp/coop-c4}
mkdir -p "$OUT"
S=.shared/matrices
R=$OUT/c4.txt
: >"$R"
make -j16 SM=90 solver-bench >"$OUT/build.log" 2>&1 || echo "solver-bench build failed"
for m in lap2d:300 lap3d:50 $S/G2_circuit.mtx.gz $S/cage10.mtx.gz; do
  [ -e "$m" ] || case "$m" in *:*) ;; *) continue ;; esac
  for pc in none jacobi; do
    for bi in 0 1; do
      echo "# SMV_SOLVE_COOP_BICGSTAB=$bi precond=$pc" >>"$R"
      SMV_SOLVE_COOP_BICGSTAB=$bi timeout 60 build/solve_smv "$m" \
        --method bicgstab --precond $pc --runs 5 --fixed 500 --graph 1 \
        >>"$R" 2>>"$OUT/err.log"
    done
  done
done
cut -c1-250 "$R"
