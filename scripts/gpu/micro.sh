#!/bin/bash
# scripts/gpu/micro.sh — part `micro` of scripts/gpu-check.sh, on the GPU
# machine: build the micro programs
# (nvcc -arch=sm_90, as the Makefile does) and run `smv micro`, writing
# everything under $OUT:
#   $OUT/micro.log            the full output of `smv micro`
#   $OUT/micro-results.tgz    csv/*.csv, micro.log, build.log, env.txt and
#                             the SASS of restrict, atomics and readonly (one
#                             file, so the device tool's 8-file limit never
#                             bites)
# A short summary is printed last. Usage:
#   scripts/gpu/micro.sh [NAME...]        (default: all)
#   scripts/gpu-check.sh micro | micro:NAME,... | micro-NAME
# Then, on the development machine: scripts/plot-micro.sh DIR (see there);
# the committed results are micro/results/<device>/.
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-micro}
mkdir -p "$OUT"
WORK=$(mktemp -d)
names=${*:-all}
J=$(nproc 2>/dev/null || echo 8)

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  echo "commit $COMMIT"
  git status --short 2>/dev/null | head -30
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,ecc.mode.current \
    --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
} >"$WORK/env.txt" 2>&1

# The micro programs use only host functions of libsmv (version,
# occupancy). If the CUDA library does not build right now (another part
# of the tree mid-edit), the CPU-only library serves them just as well.
# The device machine's copy of the tree has no .git: SMV_COMMIT (set by
# the caller) names the commit the programs then report.
mkvars=("GIT_COMMIT=$COMMIT")
t0=$SECONDS
BUILD=build
if ! make -j"$J" "${mkvars[@]}" micro cli >"$WORK/build.log" 2>&1; then
  echo "gpu-micro: the CUDA build failed (below); using the CPU-only library"
  grep -E 'error' "$WORK/build.log" | head -10
  BUILD=build-cpu
  if ! make -j"$J" CUDA=0 "${mkvars[@]}" micro cli >>"$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log"
    cp "$WORK/build.log" "$OUT/"
    exit 1
  fi
fi
nwarn=$(grep -ci 'warning' "$WORK/build.log")
echo "gpu-micro: built in $((SECONDS - t0)) s ($BUILD), $nwarn warning lines"

# SASS of the programs whose explanations cite instructions
if command -v cuobjdump >/dev/null 2>&1; then
  for p in restrict atomics readonly; do
    cuobjdump -sass "$BUILD/micro/$p" >"$WORK/$p.sass" 2>&1
  done
fi

t1=$SECONDS
# shellcheck disable=SC2086
"$BUILD/smv" micro $names --csv "$WORK/csv" 2>&1 | tee "$WORK/micro.log"
rc=${PIPESTATUS[0]}
echo "gpu-micro: smv micro $names: exit $rc in $((SECONDS - t1)) s" |
  tee -a "$WORK/micro.log"

cp "$WORK/micro.log" "$OUT/micro.log"
tar czf "$OUT/micro-results.tgz" -C "$WORK" .
echo "==== gpu-micro summary"
grep -E '^(device  :|date    :)' "$WORK/micro.log" | sort -u
grep -E 'checks, [0-9]+ failed' "$WORK/micro.log"
grep -E 'CHECK FAILED' "$WORK/micro.log" | head -20
echo "exit $rc; $(ls "$WORK/csv" 2>/dev/null | wc -l) CSV files"
exit "$rc"
