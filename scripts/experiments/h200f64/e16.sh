#!/bin/bash
# e16.sh — the device tests this stop's changes reach beyond e13-e15's
# (f32 quads in plain slots, rule 7 at 72, rung 10's entry order into
# plain slots, rung 13's defaults, far_entries): the solvers (AUTO inside
# CG, BiCGStab and the persistent kernels), f64-f32v, graphs, hardening,
# rungs 12 and 14, SpMM. Binaries built here, xz'd into bis/NAME.xz
# (carry ["bis"]).   Device: OUT=dir scripts/experiments/h200f64/e16.sh
set -u
OUT=${OUT:-/tmp/h200f64-e16}
mkdir -p "$OUT"
. "$(dirname "$0")/prebuilt.sh"
prebuilt_unpack /tmp/e16
prebuilt_tests /tmp/e16/ "$OUT" $(cd bis && ls *.xz | sed 's/\.xz$//')
