#!/bin/bash
# scripts/gpu/solvers.sh — part `solvers` of scripts/gpu-check.sh: one
# device call for the solvers (issues 13 and 24): build, run the solver
# tests on the GPU, then time smv's GPU CG (the persistent kernel where it
# applies, and the graph path) against the fair anchor, CG with cuSPARSE +
# cuBLAS in the scheme of NVIDIA's conjugateGradientCudaGraphs sample
# (scripts/solvers/cg_graph.cu: device scalars, one iteration captured in
# a CUDA graph and replayed), the host loop of NVIDIA's conjugateGradient
# sample (scripts/solvers/cg_cusparse.c), CuPy's cg and SciPy's cg, all in
# the same run; plus BiCGStab and PageRank GPU vs CPU. On the device
# machine:
#
#   OUT=/some/dir SMV_COMMIT=abc123 scripts/gpu/solvers.sh [quick]
#   scripts/gpu-check.sh solvers | solvers:quick
#
# Logs and results.txt (the RESULT lines) land in $OUT, with results.csv
# (the same lines as CSV, the form bench/results/<device>/raw/solvers/
# keeps); tables.md is the markdown for bench/results/<device>/solvers.md
# (scripts/solvers/tables.py prints it from either file). "quick" runs CG
# on lap2d:300, wathen100 and lap3d:100 (the three kinds of the goal) and
# one BiCGStab and one PageRank matrix. The SuiteSparse matrices are read
# from .shared/matrices/ (carry ".shared"; from a copy in .dev-NAME/, link
# it: ln -s ../.shared). GIT_COMMIT, if set, names the commit instead of
# SMV_COMMIT.
set -u
[ -z "${GIT_COMMIT:-}" ] || SMV_COMMIT=${SMV_COMMIT:-$GIT_COMMIT}
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/solvers-out}
GIT_COMMIT=$COMMIT
MODE=${1:-full}
mkdir -p "$OUT"
R="$OUT/results.txt"
: >"$R"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUT/steps.log"; }

log "build (commit $GIT_COMMIT)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/env.txt" 2>&1
nvcc --version >>"$OUT/env.txt" 2>&1
python3 -c 'import cupy, scipy, numpy; print("cupy", cupy.__version__, "scipy", scipy.__version__, "numpy", numpy.__version__)' >>"$OUT/env.txt" 2>&1
if ! make -j16 SM=90 GIT_COMMIT="$GIT_COMMIT" build/smv build/libsmv.a \
  build/tests/test_solve build/tests/test_solve_harden build/tests/test_cuda_solve \
  build/tests/test_cuda_solve_coop build/tests/test_cuda_graph \
  >"$OUT/build.log" 2>&1; then
  tail -n 40 "$OUT/build.log"
  exit 1
fi
make SM=90 GIT_COMMIT="$GIT_COMMIT" solver-bench >>"$OUT/build.log" 2>&1 ||
  { tail -n 20 "$OUT/build.log"; exit 1; }

log "tests"
tfail=0
for t in test_solve test_solve_harden test_cuda_solve test_cuda_solve_coop test_cuda_graph; do
  timeout 120 build/tests/$t >"$OUT/$t.log" 2>&1 || tfail=1
  echo "$t: $(tail -n 1 "$OUT/$t.log")" | tee -a "$OUT/steps.log"
done
SMV=build/smv timeout 120 sh tests/cli/test_solve.sh >"$OUT/test_cli_solve.log" 2>&1 || tfail=1
echo "cli test_solve.sh: $(tail -n 1 "$OUT/test_cli_solve.log")" | tee -a "$OUT/steps.log"
if [ "$tfail" -ne 0 ]; then
  grep -h -E "CHECK failed|FAIL" "$OUT"/test_*.log | head -n 30
fi

S=.shared/matrices
if [ "$MODE" = quick ]; then
  CG="lap2d:300 $S/wathen100.mtx.gz lap3d:100"
  BI="lap3d:50"
  PR="$S/wiki-Vote.mtx.gz"
else
  CG="lap2d:300 lap3d:50 $S/wathen100.mtx.gz $S/gyro_m.mtx.gz $S/G2_circuit.mtx.gz $S/Trefethen_20000.mtx.gz lap3d:100"
  BI="lap2d:300 lap3d:50 $S/G2_circuit.mtx.gz $S/cage10.mtx.gz"
  PR="$S/wiki-Vote.mtx.gz $S/PGPgiantcompo.mtx.gz $S/delaunay_n16.mtx.gz $S/luxembourg_osm.mtx.gz rand:1000000:8"
fi
export OMP_NUM_THREADS=$(nproc)
for m in $CG; do
  log "CG $m"
  file=$m
  case "$m" in *:*) file="/tmp/$(echo "$m" | tr ':' '_').mtx"; build/smv gen "$m" -o "$file" >/dev/null ;; esac
  timeout 150 build/cg_graph "$m" --runs 5 --fixed 1000 >>"$R" 2>>"$OUT/bench.log" || echo "cg_graph $m failed" >>"$OUT/steps.log"
  timeout 150 build/cg_cusparse "$m" --runs 5 --fixed 1000 >>"$R" 2>>"$OUT/bench.log" || echo "cg_cusparse $m failed" >>"$OUT/steps.log"
  # smv: the default (persistent kernel when the matrix fits the L2), the
  # graph path, its plain launches, Jacobi, f32 (tol 1e-4: float vectors
  # reach about 1e-5 of true residual, and converged now means the true
  # residual meets tol).
  for v in "--graph 1" "--graph 1 --persistent -1" "--graph 0 --persistent -1" \
    "--graph 1 --precond jacobi" "--graph 1 --precision f32 --tol 1e-4"; do
    timeout 150 build/solve_smv "$m" --runs 5 --fixed 1000 $v >>"$R" 2>>"$OUT/bench.log" || echo "solve_smv $m $v failed" >>"$OUT/steps.log"
  done
  timeout 200 build/solve_smv "$m" --backend cpu --runs 1 --fixed 0 >>"$R" 2>>"$OUT/bench.log" || echo "solve_smv cpu $m failed" >>"$OUT/steps.log"
  timeout 200 python3 scripts/solvers/solve_py.py "$file" "$m" --runs 3 --fixed 1000 >>"$R" 2>>"$OUT/bench.log" || echo "solve_py $m failed" >>"$OUT/steps.log"
  tail -n 9 "$R" | cut -c1-200 >>"$OUT/steps.log"
done
for m in $BI; do
  log "BiCGStab $m"
  for bk in cuda cpu; do
    timeout 150 build/solve_smv "$m" --method bicgstab --precond jacobi --backend $bk --runs 3 --fixed 0 >>"$R" 2>>"$OUT/bench.log" || echo "bicgstab $bk $m failed" >>"$OUT/steps.log"
  done
done
for m in $PR; do
  log "PageRank $m"
  for bk in cuda cpu; do
    timeout 150 build/solve_smv "$m" --method pagerank --pattern --backend $bk --runs 3 --fixed 0 >>"$R" 2>>"$OUT/bench.log" || echo "pagerank $bk $m failed" >>"$OUT/steps.log"
  done
done
log "tables"
python3 scripts/solvers/tables.py "$R" --csv "$OUT/results.csv" >"$OUT/tables.md" 2>>"$OUT/bench.log"
grep -c 'check=PASS' "$R" | sed 's/^/PASS lines: /' | tee -a "$OUT/steps.log"
grep 'check=FAIL' "$R" | cut -c1-220 | tee -a "$OUT/steps.log"
cat "$OUT/tables.md" | head -n 60
