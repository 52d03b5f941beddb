# sweep.sh — sourced by the coop experiments (c3, c5-c7, c10-c13): the
# setup and the per-matrix sweep they share.
#
#   coop_setup NAME     OUT (default /tmp/coop-NAME, created), S (the real
#                       matrices), R = $OUT/NAME.txt (emptied), the solver
#                       benchmark built
#   coop_sweep M CFG... the fair anchor (build/cg_graph) on matrix M, then
#                       build/solve_smv once per CFG, a list of
#                       SMV_SOLVE_COOP_ knobs without the prefix ("VARIANT=res
#                       PER_SM=1"; "" runs the defaults), each result after a
#                       "# cfg:" line, all into $R (a file M that is not there
#                       is skipped; generator specs always run). 1000 fixed
#                       iterations, median of 5.
#   coop_phase_build    the solver benchmark again into build-ph with the
#                       phase marks (-DSMV_COOP_PHASES, coop_phases.h)
#   coop_phases M TAG [CFG]  one solve and one fixed run of build-ph on M
#                       under the knobs CFG (as coop_sweep's), the PH
#                       lines into $OUT/ph-TAG.txt, phases.py's summary
#                       printed (c10-c12)
coop_setup() {
  OUT=${OUT:-/tmp/coop-$1}
  mkdir -p "$OUT"
  S=${SMV_MATRICES:-.shared/matrices}
  R=$OUT/$1.txt
  : >"$R"
  SPD="lap2d:300 lap3d:50 $S/wathen100.mtx.gz $S/gyro_m.mtx.gz $S/G2_circuit.mtx.gz
    $S/Trefethen_20000.mtx.gz $S/s3rmt3m3.mtx.gz $S/cvxbqp1.mtx.gz lap3d:100"
  make -j16 SM=90 solver-bench >"$OUT/build.log" 2>&1 || echo "solver-bench build failed"
}

coop_sweep() {
  local m=$1 cfg kv env
  shift
  [ -e "$m" ] || case "$m" in *:*) ;; *) return 0 ;; esac
  timeout 60 build/cg_graph "$m" --runs 5 --fixed 1000 >>"$R" 2>>"$OUT/err.log"
  for cfg in "$@"; do
    env=""
    for kv in $cfg; do env="$env SMV_SOLVE_COOP_$kv"; done
    echo "# cfg:${env:- default}" >>"$R"
    env $env timeout 60 build/solve_smv "$m" --runs 5 --fixed 1000 \
      --graph 1 >>"$R" 2>>"$OUT/err.log"
  done
}

coop_phase_build() {
  make -j16 SM=90 BUILD=build-ph \
    NVCCFLAGS="-O3 -std=c++17 -arch=sm_90 -lineinfo -Xcompiler -Wall,-Wextra,-fPIC -DSMV_COOP_PHASES" \
    solver-bench >"$OUT/build-ph.log" 2>&1 || echo "phase build failed"
}

coop_phases() {
  local m=$1 tag=$2 cfg=${3:-} kv env=""
  [ -e "$m" ] || case "$m" in *:*) ;; *) return 0 ;; esac
  for kv in $cfg; do env="$env SMV_SOLVE_COOP_$kv"; done
  env $env timeout 60 build-ph/solve_smv "$m" --runs 1 --fixed 1000 \
    --persistent 1 >"$OUT/ph-$tag.txt" 2>&1
  python3 scripts/experiments/coop/phases.py "$OUT/ph-$tag.txt" "${4:-$tag}"
}
