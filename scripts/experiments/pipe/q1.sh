#!/bin/bash
# q1.sh — rung 14 (pipe: rung 10's tiles copied to shared memory by
# cp.async, tiles ahead) first verified, then timed against rungs 9 and 10,
# cuSPARSE ALG1 and AUTO past the L2, f64 and f32, and its knobs (stages,
# largest tile, L2 prefetch hint) in f64 on three row lengths. The question:
# does f64 CSR on the H200 reach 90% of copy when the bytes in flight no
# longer follow the block's phases (bench/results/h200/suite.md, e1-e3)?
#   OUT=dir scripts/experiments/pipe/q1.sh
set -u
OUT=${OUT:-/tmp/pipe-q1}
mkdir -p "$OUT"
for t in test_cuda_pipe test_cuda_packed test_rungs; do
  timeout 150 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -12
done
cols="cut -d, -f6,10,11,14,20,43"
timeout 240 build/smv bench band:4000000:8 band:2500000:12 band:1300000:24 \
  band:800000:40 stencil27:100 elastic3d:50 lap3d:160 rand:2000000:16 \
  --alg adaptive,tiled,pipe,cusparse-alg1,auto --precision both \
  --runs 30 --max-time 0.25 --graph-batch 0 --quiet \
  --csv "$OUT/q1.csv" --markdown "$OUT/q1.md" >"$OUT/q1.log" 2>&1
echo "bench: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
tail -n +2 "$OUT/q1.csv" | $cols
for v in "SMV_PIPE_STAGES=2" "SMV_PIPE_STAGES=4" "SMV_PIPE_TILE=1024" \
  "SMV_PIPE_TILE=4096" "SMV_PIPE_L2PF=256"; do
  tag=${v//=/-}
  env "$v" timeout 70 build/smv bench band:2500000:12 band:1300000:24 \
    stencil27:100 --alg pipe --precision f64 --runs 30 --max-time 0.25 \
    --graph-batch 0 --quiet --csv "$OUT/q1-$tag.csv" \
    >"$OUT/q1-$tag.log" 2>&1
  echo "== $v: exit $?"
  tail -n +2 "$OUT/q1-$tag.csv" | $cols
done
