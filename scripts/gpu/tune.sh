#!/bin/bash
# scripts/gpu/tune.sh — part `tune` of scripts/gpu-check.sh: the measured
# plan. `smv info MATRIX --plan --tune` on lap3d:160, stencil27:100,
# rand:2000000:16 and rmat:20:16, f64 and f32: which rung AUTO runs after
# timing every candidate, beside the heuristic's choice.
#
#   SMV_COMMIT=<hash> scripts/gpu/tune.sh
#   scripts/gpu-check.sh tune
#
# Files under $OUT (default /tmp/smv-gpu-tune): tune.txt (the printed
# plans), tune.csv (one row per candidate: scripts/plan-csv.py), build.log.
# Results: bench/results/<device>/suite.md (the measured plan), data under
# raw/suite/.
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-tune}
mkdir -p "$OUT"
LOGS=$OUT
summary=$OUT/summary.txt
: >"$summary"

note "tune: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device)"
gpu_build all

: >"$OUT/tune.txt"
for m in lap3d:160 stencil27:100 rand:2000000:16 rmat:20:16; do
  for p in f64 f32; do
    timeout 60 build/smv info "$m" --plan --tune --precision $p >>"$OUT/tune.txt" 2>&1
  done
done
python3 scripts/plan-csv.py --commit "$COMMIT" "$OUT/tune.txt" >"$OUT/tune.csv"
note "tune: $(grep -c -i 'measured' "$OUT/tune.txt") measured plans"
grep -i -E '^matrix|AUTO|plan|reason' "$OUT/tune.txt" | head -40
echo "==== summary"
cat "$summary"
