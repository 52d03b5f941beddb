#!/bin/bash
# q2.sh — rung 14 at less shared memory per block (2 stages of 512- and
# 1024-entry tiles: more blocks per SM), beside rung 10, f64: q1 found
# fewer stages and smaller tiles faster, i.e. blocks per SM, not bytes in
# flight, limiting the rung.
#   OUT=dir scripts/experiments/pipe/q2.sh
set -u
OUT=${OUT:-/tmp/pipe-q2}
mkdir -p "$OUT"
cols="cut -d, -f6,10,11,14,20,43"
for v in "SMV_PIPE_TILE=1024" "SMV_PIPE_TILE=512"; do
  tag=${v//=/-}
  env SMV_PIPE_STAGES=2 "$v" timeout 80 build/smv bench band:2500000:12 \
    band:1300000:24 stencil27:100 --alg tiled,pipe --precision f64 \
    --runs 30 --max-time 0.25 --graph-batch 0 --quiet \
    --csv "$OUT/q2-$tag.csv" >"$OUT/q2-$tag.log" 2>&1
  echo "== SMV_PIPE_STAGES=2 $v: exit $?"
  tail -n +2 "$OUT/q2-$tag.csv" | $cols
done
