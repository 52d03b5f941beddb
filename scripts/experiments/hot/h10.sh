#!/bin/bash
# session 18: final check of the rung-12 AUTO commit: every device test, memcheck, R-MAT rows with the suite's options
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
t=$SECONDS; timeout 330 make test >$OUT/test.log 2>&1; echo "make test rc=$? $((SECONDS-t)) s"; grep -E "^FAIL|CHECK failed|passed, .* failed" $OUT/test.log | tail -8
timeout 100 compute-sanitizer --tool memcheck build/tests/test_cuda_hot >$OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -2 $OUT/memcheck.log
t=$SECONDS
timeout 200 build/smv bench rmat:22:16 rmat:22:16,perm=rand --alg auto,adaptive,stream,hot,cusparse-alg1,cusparse-alg2 --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 --quiet --csv $OUT/rmat.csv >$OUT/rmat.txt 2>&1
echo "bench rc=$? $((SECONDS-t)) s PASS $(grep -c ,PASS, $OUT/rmat.csv) FAIL $(grep -c ,FAIL, $OUT/rmat.csv)"; grep "AUTO =" $OUT/rmat.csv | cut -d, -f6,10,11 | head; grep -o "AUTO = [a-z0-9-]* ([a-z]*)" $OUT/rmat.csv | sort | uniq -c
timeout 60 build/smv info rmat:22:16 --plan --precision f32 2>&1 | grep -E "plan|why|memory"
cd $OUT && tar czf logs.tgz build.log test.log memcheck.log && rm build.log test.log memcheck.log
date -u +%FT%TZ
