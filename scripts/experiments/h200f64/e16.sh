#!/bin/bash
# e16.sh — the device tests this stop's changes reach beyond e13-e15's
# (f32 quads in plain slots, rule 7 at 72, rung 10's entry order into
# plain slots, rung 13's defaults, far_entries): the solvers (AUTO inside
# CG, BiCGStab and the persistent kernels), f64-f32v, graphs, hardening,
# rungs 12 and 14, SpMM. Binaries built here, xz'd into bis/NAME.xz
# (carry ["bis"]).   Device: OUT=dir scripts/experiments/h200f64/e16.sh
set -u
OUT=${OUT:-/tmp/h200f64-e16}
mkdir -p "$OUT" /tmp/e16
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in bis/*.xz; do
  t=$(basename "$f" .xz)
  xz -dc "$f" >/tmp/e16/$t && chmod +x /tmp/e16/$t
  timeout 200 /tmp/e16/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -5
done
