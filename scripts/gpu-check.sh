#!/bin/bash
# scripts/gpu-check.sh — everything the GPU machine is for, in ONE call:
# build (nvcc -arch=sm_90), run every test incl. the device tests on the real
# matrices, compute-sanitizer, the microbenchmarks and the SpMV benchmark.
#
#   scripts/gpu-check.sh [test] [micro | micro-NAME] [bench] [suite]
#                        [solvers] [dist] [tune]     (default: test micro bench)
#
#   suite    smv bench --suite issue8 (+ the real matrices): AUTO, rungs 9
#            and 10 and cuSPARSE ALG1/ALG2, f64 and f32, warm/flushed/graph
#            (issue 8's tables: bench/results/<device>/suite.md)
#   solvers  scripts/bench-solvers.sh (issue 13: solvers.md)
#   dist     mpirun smv bench on CPU ranks (16 cores) and GPU ranks sharing
#            the GPU: stencil27 and rmat strong scaling (issue 11: dist.md)
#   tune     smv info --plan --tune on a few matrices (the measured plan)
#
# The device copy has no .git: pass the commit from here as SMV_COMMIT=<hash>
# so every binary and results file names it. Needs the real matrices carried as .shared/matrices (device tool:
# carry [".shared"]). Full logs go to $OUT/gpu-check.tgz (one file, so the
# device tool's 8-file limit never bites) and a summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_FINAL=${OUT:-/tmp/smv-gpu-check}
WORK=$(mktemp -d)
mkdir -p "$OUT_FINAL"
parts=${*:-test micro bench}
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
summary=$WORK/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  echo "commit ${SMV_COMMIT:-unknown}"
  nvidia-smi
  nvcc --version | tail -2
} >"$WORK/env.txt" 2>&1
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"

export SMV_COMMIT=${SMV_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
export MAKEFLAGS="GIT_COMMIT=$SMV_COMMIT"
note "commit: $SMV_COMMIT"
t0=$SECONDS
targets="all tests"
case " $parts " in *" micro"*) targets="$targets micro" ;; esac
make -j16 $targets >"$WORK/build.log" 2>&1
rc=$?
note "build: rc=$rc ($((SECONDS - t0)) s), warnings: $(grep -c 'warning' "$WORK/build.log")"
[ $rc -eq 0 ] || { tail -40 "$WORK/build.log"; }

run_part() { # name script [args...]
  local name=$1 script=$2
  shift 2
  if [ ! -x "$script" ] && [ ! -f "$script" ]; then
    note "$name: $script missing, skipped"
    return
  fi
  mkdir -p "$WORK/$name"
  local t=$SECONDS
  OUT="$WORK/$name" bash "$script" "$@" >"$WORK/$name.log" 2>&1
  local r=$?
  note "$name: rc=$r ($((SECONDS - t)) s): $(grep -E 'passed, .* failed' "$WORK/$name.log" | tail -1)"
  tail -25 "$WORK/$name.log"
}

for p in $parts; do
  case $p in
  test)
    t=$SECONDS
    make test >"$WORK/make-test.log" 2>&1
    note "make test: rc=$? ($((SECONDS - t)) s): $(tail -1 "$WORK/make-test.log")"
    grep -E '^(FAIL|skip)' "$WORK/make-test.log" | head -20
    export SMV_GPU_TEST_NOTESTS=1
    run_part gpu-test scripts/gpu-test.sh
    ;;
  micro) run_part micro scripts/gpu-micro.sh ;;
  micro-*) # one experiment, e.g. micro-readonly
    run_part "$p" scripts/gpu-micro.sh "${p#micro-}" ;;
  bench) run_part bench scripts/gpu-bench.sh ;;
  suite)
    t=$SECONDS
    rc=0
    timeout "${SMV_SUITE_BUDGET:-560}" build/smv bench --suite issue8 \
      --matrices "$SMV_MATRICES" --alg auto,adaptive,stream,cusparse-alg1,cusparse-alg2 \
      --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 \
      --quiet --csv "$WORK/suite.csv" --markdown "$WORK/suite.md" \
      >"$WORK/suite.txt" 2>"$WORK/suite.err"
    rc=$?
    note "suite: rc=$rc ($((SECONDS - t)) s), $(grep -c ',PASS,' "$WORK/suite.csv" 2>/dev/null) rows PASS, $(grep -c ',FAIL,' "$WORK/suite.csv" 2>/dev/null) FAIL"
    tail -40 "$WORK/suite.txt"
    tail -5 "$WORK/suite.err"
    ;;
  solvers)
    t=$SECONDS
    OUT="$WORK/solvers" GIT_COMMIT="$SMV_COMMIT" timeout "${SMV_SOLVERS_BUDGET:-330}" \
      sh scripts/bench-solvers.sh >"$WORK/solvers.log" 2>&1
    note "solvers: rc=$? ($((SECONDS - t)) s): $(grep 'PASS lines' "$WORK/solvers/steps.log" 2>/dev/null)"
    tail -30 "$WORK/solvers.log"
    ;;
  dist)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    t=$SECONDS
    OMP_NUM_THREADS=1 timeout 100 mpirun -np 8 --bind-to core build/smv bench \
      stencil27:100 rmat:20:16 --backend cpu --scaling strong --runs 20 \
      >"$WORK/dist-cpu.md" 2>"$WORK/dist-cpu.err"
    note "dist cpu ranks: rc=$? ($((SECONDS - t)) s)"
    t=$SECONDS
    OMP_NUM_THREADS=2 timeout 80 mpirun -np 4 --oversubscribe build/smv bench \
      stencil27:100 rmat:20:16 --backend cuda --exchange host --scaling strong \
      --runs 20 >"$WORK/dist-gpu.md" 2>"$WORK/dist-gpu.err"
    note "dist gpu ranks: rc=$? ($((SECONDS - t)) s)"
    tail -30 "$WORK/dist-cpu.md" "$WORK/dist-gpu.md"
    ;;
  tune)
    for m in lap3d:160 stencil27:100 rand:2000000:16 rmat:20:16; do
      for p in f64 f32; do
        timeout 60 build/smv info "$m" --plan --tune --precision $p >>"$WORK/tune.txt" 2>&1
      done
    done
    note "tune: $(grep -c -i 'measured' "$WORK/tune.txt") measured plans"
    grep -i -E '^matrix|AUTO|plan|reason' "$WORK/tune.txt" | head -40
    ;;
  *) note "unknown part $p" ;;
  esac
done

tar czf "$OUT_FINAL/gpu-check.tgz" -C "$WORK" .
echo "==== summary"
cat "$summary"
