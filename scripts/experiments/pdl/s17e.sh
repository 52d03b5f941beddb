#!/bin/bash
# session 17 call 5: why --flush-l2 slows ALG1's graph time: order of modes / buffer alone
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
D=.shared/matrices
MS="$D/ct2010.mtx.gz $D/wathen100.mtx.gz $D/bcsstk13.mtx.gz $D/crack.mtx.gz"
O="--alg auto,cusparse-alg1 --precision both --runs 100 --max-time 0.3 --graph-batch 50 --quiet"
build/smv bench $MS $O --csv $OUT/b-1none.csv >/dev/null 2>&1; echo "none rc=$?"
build/smv bench $MS $O --flush-l2 --csv $OUT/b-2flush.csv >/dev/null 2>&1; echo "flush rc=$?"
SMV_DEV_ORDER=g build/smv bench $MS $O --flush-l2 --csv $OUT/b-3graphfirst.csv >/dev/null 2>&1; echo "gfirst rc=$?"
SMV_DEV_ORDER=a build/smv bench $MS $O --flush-l2 --csv $OUT/b-4alloconly.csv >/dev/null 2>&1; echo "alloc rc=$?"
build/smv bench $MS $O --graph-batch 100 --csv $OUT/b-5batch100.csv >/dev/null 2>&1; echo "b100 rc=$?"
cd $OUT && tar czf csv.tgz *.csv && rm -f *.csv
