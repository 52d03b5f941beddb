#!/bin/bash
# session 18: rung 12 at its defaults on the scattered suite matrices, and the tuner
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
O="--precision both --runs 100 --max-time 0.3 --graph-batch 0 --quiet"
t=$SECONDS
timeout 400 build/smv bench rmat:22:16 rmat:22:16,perm=rand plaw:4000000:16 rand:2000000:16,cols=1000000 --alg auto,stream,hot,cusparse-alg1,cusparse-alg2 $O --csv $OUT/hot.csv >$OUT/hot.txt 2>&1
echo "bench rc=$? $((SECONDS-t)) s PASS $(grep -c ,PASS, $OUT/hot.csv) FAIL $(grep -c ,FAIL, $OUT/hot.csv)"
timeout 120 build/smv info rmat:22:16 --plan --tune --precision f32 > $OUT/tune.txt 2>&1; echo "tune rc=$?"; grep -E "plan|why|hot|stream|alg1|memory" $OUT/tune.txt | head -20
date -u +%FT%TZ
for t in test_cuda_context test_occupancy_gpu test_cuda_hot test_cuda_plan test_cuda_spmv test_cuda_graph; do timeout 200 build/tests/$t > $OUT/$t.log 2>&1; echo "$t rc=$? $(tail -1 $OUT/$t.log)"; done
make -j16 tests >/dev/null 2>&1; bash tests/cli/test_spmv.sh build/smv 2>&1 | tail -1
timeout 150 compute-sanitizer --tool memcheck build/tests/test_cuda_hot >$OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -2 $OUT/memcheck.log
