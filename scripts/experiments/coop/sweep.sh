# sweep.sh — sourced by the coop experiments (c5-c7): the setup and the
# per-matrix sweep they share.
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
coop_setup() {
  OUT=${OUT:-/tmp/coop-$1}
  mkdir -p "$OUT"
  S=${SMV_MATRICES:-.shared/matrices}
  R=$OUT/$1.txt
  : >"$R"
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
