#!/bin/bash
# e17.sh — rung 10's f64 tile size after entry-order staging into plain
# slots: rows under 32 entries take tiles of 2048 on the H200 (tiled_top),
# chosen when f64 staged quads (e1: 4096 slower on rows of 17-26 then).
# SMV_TILE_TOP=1024|2048|4096 on f64 local rows of 7-33 past the L2 (rung
# 10 forced; rows of 32+ already take 4096), every run verified.
# Binary built here: bis/new-smv.xz (prebuild.sh; carry ["bis"]).
# Device: OUT=dir [E17_M="..."] [E17_TOPS="..."] scripts/experiments/h200f64/e17.sh
set -u
OUT=${OUT:-/tmp/h200f64-e17}
mkdir -p "$OUT"
. "$(dirname "$0")/prebuilt.sh"
prebuilt_unpack /tmp/e17
M=${E17_M:-"band:4000000:8 band:3000000:10 band:2500000:12 stencil27:100 stencil27:150 band:2000000:16"}
echo "top,matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
for top in ${E17_TOPS:-2048 4096 1024}; do
  SMV_TILE_TOP=$top timeout 100 /tmp/e17/new-smv bench $M --alg tiled \
    --precision f64 --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
    --csv "$OUT/top$top.csv" >"$OUT/top$top.log" 2>&1 || echo "top $top rc=$?"
  tail -n +2 "$OUT/top$top.csv" | cut -d, -f6,10,11,14,20,43 | sed "s/^/$top,/"
done
