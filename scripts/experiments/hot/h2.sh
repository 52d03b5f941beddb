#!/bin/bash
# session 18: rung 12 block/hot-set configurations
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 100 build/tests/test_cuda_hot 2>&1 | tail -3
O="--precision both --runs 60 --max-time 0.2 --graph-batch 0 --quiet"
for cfg in 256:24576 256:0 512:49152 256:12288 1024:0; do
  b=${cfg%%:*}; hb=${cfg##*:}; t=$SECONDS
  SMV_HOT_BYTES=$hb timeout 150 build/smv bench rmat:22:16 rmat:22:16,perm=rand --block $b --alg stream,hot,cusparse-alg1 $O --csv $OUT/h-$b-$hb.csv > $OUT/h-$b-$hb.txt 2>&1
  echo "cfg $cfg rc=$? $((SECONDS-t)) s PASS $(grep -c ,PASS, $OUT/h-$b-$hb.csv) FAIL $(grep -c ,FAIL, $OUT/h-$b-$hb.csv)"
done
date -u +%FT%TZ
