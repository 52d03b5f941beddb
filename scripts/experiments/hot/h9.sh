#!/bin/bash
# session 18: rung 12 with predicated ld.shared / ld.global.nc pairs
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ


O="--precision both --runs 60 --max-time 0.2 --graph-batch 0 --quiet"
for cfg in 256:4096 256:12288 256:16384 512:16384 384:8192; do
  b=${cfg%%:*}; hb=${cfg##*:}; t=$SECONDS
  SMV_HOT_BYTES=$hb timeout 150 build/smv bench rmat:22:16 rmat:22:16,perm=rand --block $b --alg stream,hot,cusparse-alg1 $O --csv $OUT/h-$b-$hb.csv > /dev/null 2>$OUT/h-$b-$hb.err
  echo "cfg $cfg rc=$? $((SECONDS-t)) s PASS $(grep -c ,PASS, $OUT/h-$b-$hb.csv) FAIL $(grep -c ,FAIL, $OUT/h-$b-$hb.csv)"
done
date -u +%FT%TZ
