#!/bin/bash
# session 18: rung 12 (hot columns) first run: correctness, then hot-set size
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 100 build/tests/test_cuda_hot 2>&1 | tail -5
timeout 60 build/tests/test_rungs 2>&1 | tail -2
timeout 150 compute-sanitizer --tool memcheck build/tests/test_cuda_hot 2>&1 | tail -4
O="--precision both --runs 100 --max-time 0.3 --graph-batch 0 --quiet"
for hb in 65536 32768 131072; do
  t=$SECONDS
  SMV_HOT_BYTES=$hb timeout 200 build/smv bench rmat:22:16 rmat:22:16,perm=rand --alg auto,stream,hot,cusparse-alg1,cusparse-alg2 $O --csv $OUT/h-$hb.csv > $OUT/h-$hb.txt 2>&1
  echo "hb $hb rc=$? $((SECONDS-t)) s PASS $(grep -c ,PASS, $OUT/h-$hb.csv) FAIL $(grep -c ,FAIL, $OUT/h-$hb.csv)"
done
SMV_HOT_BYTES=65536 timeout 60 build/smv info rmat:22:16 --plan --precision f32 2>&1 | tail -12
date -u +%FT%TZ
