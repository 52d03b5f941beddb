#!/bin/bash
# c2.sh — issue 24: the persistent CG's iteration with the fused grid
# reduction (SMV_SOLVE_COOP_SUM=last: the last block to arrive sums the G
# partials once and publishes them) against the grid barrier + every
# block summing all G partials (=all), at 256, 512 and 1024 threads a
# block, beside the fair anchor (graph-captured cuSPARSE + cuBLAS CG,
# build/cg_graph) in the same run. f64, no preconditioner, 1000 fixed
# iterations, 5 runs (solve_smv and cg_graph verify their answers and
# print check=PASS|FAIL).
#   OUT=dir scripts/experiments/coop/c2.sh
set -u
OUT=${OUT:-/tmp/coop-c2}
mkdir -p "$OUT"
S=.shared/matrices
R=$OUT/c2.txt
: >"$R"
make -j16 SM=90 solver-bench >"$OUT/build.log" 2>&1 || echo "solver-bench build failed"
timeout 120 build/tests/test_cuda_solve_coop >"$OUT/test_cuda_solve_coop.log" 2>&1
echo "test_cuda_solve_coop: exit $?: $(grep '^RESULT' "$OUT/test_cuda_solve_coop.log")"
for m in lap2d:300 $S/wathen100.mtx.gz $S/bcsstk13.mtx.gz lap3d:100; do
  [ -e "$m" ] || case "$m" in *:*) ;; *) continue ;; esac
  timeout 60 build/cg_graph "$m" --runs 5 --fixed 1000 >>"$R" 2>>"$OUT/err.log"
  for sum in all last; do
    for bs in 256 1024; do
      echo "# SMV_SOLVE_COOP_SUM=$sum SMV_SOLVE_COOP_BLOCK=$bs" >>"$R"
      SMV_SOLVE_COOP_SUM=$sum SMV_SOLVE_COOP_BLOCK=$bs timeout 60 \
        build/solve_smv "$m" --runs 5 --fixed 1000 --graph 1 >>"$R" 2>>"$OUT/err.log"
    done
  done
done
cut -c1-230 "$R"
