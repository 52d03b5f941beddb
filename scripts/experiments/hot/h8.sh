#!/bin/bash
# session 18: rung 12 with predicated ld.shared / ld.global.nc pairs
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
cuobjdump -sass build/obj/src/cuda/spmv_12_hot.o 2>&1 | awk '/Function : .*spmv_hotIfLi4096ELi2E/{f=1;next} f&&/Function : /{f=0} f' | grep -oE "(LDG[A-Z0-9.]*|LD\.[A-Z0-9.]*|LD |LDS[A-Z0-9.]*|BRA|LDL|STL)" | sort | uniq -c | tr '\n' ' '; echo
timeout 100 build/tests/test_cuda_hot 2>&1 | tail -3
O="--precision both --runs 60 --max-time 0.2 --graph-batch 0 --quiet"
for cfg in 512:49152 256:8192 256:24576; do
  b=${cfg%%:*}; hb=${cfg##*:}; t=$SECONDS
  SMV_HOT_BYTES=$hb timeout 150 build/smv bench rmat:22:16 rmat:22:16,perm=rand --block $b --alg stream,hot,cusparse-alg1 $O --csv $OUT/h-$b-$hb.csv > /dev/null 2>$OUT/h-$b-$hb.err
  echo "cfg $cfg rc=$? $((SECONDS-t)) s PASS $(grep -c ,PASS, $OUT/h-$b-$hb.csv) FAIL $(grep -c ,FAIL, $OUT/h-$b-$hb.csv)"
done
date -u +%FT%TZ
