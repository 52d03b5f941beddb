#!/bin/bash
# e1.sh — why plain CSR in f64 streams at only ~70% of the copy bandwidth
# on an H200 with rung 10 (tiled) on local columns of 17..81 entries per
# row, where rung 9 (adaptive) reaches the copy bandwidth on rows of 129
# (issues 21 and 23). Bands of 17, 25, 33, 49, 65 and 81 entries per row
# (about 65M entries, ~780 MB in f64: far past the L2), stencil27:100 and
# elastic3d:50: rungs 9 and 10, cuSPARSE ALG1 and AUTO at their default
# shapes, then rung 10 at 128 and 512 threads, then rung 10 with its
# largest tile at 1024 and 4096 entries (SMV_TILE_TOP; 2048 by default in
# f64). Every rung verified against the serial reference before timing.
#   OUT=dir scripts/experiments/h200f64/e1.sh
set -u
OUT=${OUT:-/tmp/h200f64}
mkdir -p "$OUT"
M="band:4000000:8 band:2500000:12 band:2000000:16 band:1300000:24
   band:1000000:32 band:800000:40 stencil27:100 elastic3d:50"
run() { # label, then smv bench options
  local label=$1
  shift
  timeout 150 build/smv bench $M --precision f64 --runs 40 --max-time 0.3 \
    --graph-batch 0 --quiet --label "$label" --csv "$OUT/$label.csv" "$@" \
    >"$OUT/$label.log" 2>&1
  echo "$label: exit $?"
}
run base --alg adaptive,tiled,cusparse-alg1,auto
run tiled-b128 --alg tiled --block 128
run tiled-b512 --alg tiled --block 512
SMV_TILE_TOP=1024 run tiled-t1024 --alg tiled
SMV_TILE_TOP=4096 run tiled-t4096 --alg tiled
echo "label,matrix,alg,block,verify,warm_median_ms,warm_pct_copy"
for f in "$OUT"/*.csv; do tail -n +2 "$f"; done | cut -d, -f1,6,11,12,14,20,43 | head -80
