#!/bin/bash
# session 17 final: device tests at the final commit + scattered matrices with change 8 (suite options)
cd "$(dirname "$0")/.."
make -j16 all tests GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "warnings: $(grep -c warning $OUT/build.log)"; date -u +%FT%TZ
s=$SECONDS; make test >$OUT/make-test.log 2>&1; echo "make test rc=$? $((SECONDS-s))s: $(tail -1 $OUT/make-test.log)"; grep -E "^FAIL" $OUT/make-test.log | head
s=$SECONDS; timeout 200 build/smv bench rand:2000000:16,cols=1000000 rand:1000000:64 rmat:22:16 plaw:4000000:16 denserow:4000000:8 lap3d:160,perm=rand --alg auto,adaptive,stream,cusparse-alg1,cusparse-alg2 --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 --quiet --csv $OUT/scat.csv >/dev/null 2>$OUT/scat.err; echo "scattered rc=$? $((SECONDS-s))s PASS $(grep -c ,PASS, $OUT/scat.csv) FAIL $(grep -c ,FAIL, $OUT/scat.csv)"
date -u +%FT%TZ
cd $OUT && tar czf logs.tgz *.log scat.err && rm -f *.log
