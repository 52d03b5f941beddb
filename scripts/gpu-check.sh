#!/bin/bash
# scripts/gpu-check.sh — everything the GPU machine is for, in ONE call:
# build (nvcc -arch=sm_90), run every test incl. the device tests on the real
# matrices, compute-sanitizer, the microbenchmarks and the SpMV benchmark.
#
#   scripts/gpu-check.sh [test] [micro | micro-NAME] [bench]   (default: all)
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
make -j16 all tests micro >"$WORK/build.log" 2>&1
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
    run_part gpu-test scripts/gpu-test.sh
    ;;
  micro) run_part micro scripts/gpu-micro.sh ;;
  micro-*) # one experiment, e.g. micro-readonly
    run_part "$p" scripts/gpu-micro.sh "${p#micro-}" ;;
  bench) run_part bench scripts/gpu-bench.sh ;;
  *) note "unknown part $p" ;;
  esac
done

tar czf "$OUT_FINAL/gpu-check.tgz" -C "$WORK" .
echo "==== summary"
cat "$summary"
