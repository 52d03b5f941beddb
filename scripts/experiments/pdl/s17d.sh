#!/bin/bash
# session 17 call 4: does the suite's option set change ALG1's graph time? (same matrices, light vs suite options)
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
D=.shared/matrices
MS="$D/ct2010.mtx.gz $D/wathen100.mtx.gz $D/bcsstk13.mtx.gz $D/crack.mtx.gz"
build/smv bench $MS --alg auto,cusparse-alg1 --precision both --runs 50 --warmup 5 --graph-batch 50 --graph-replays 10 --max-time 0.1 --csv $OUT/b-1light.csv --quiet >/dev/null 2>&1; echo "light rc=$?"
build/smv bench $MS --alg auto,adaptive,stream,cusparse-alg1,cusparse-alg2 --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 --csv $OUT/b-2suite.csv --quiet >/dev/null 2>&1; echo "suite rc=$?"
build/smv bench $MS --alg auto,cusparse-alg1 --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 --csv $OUT/b-3flush.csv --quiet >/dev/null 2>&1; echo "flush rc=$?"
build/smv bench $MS --alg auto,adaptive,stream,cusparse-alg1,cusparse-alg2 --precision both --runs 100 --max-time 0.3 --graph-batch 50 --csv $OUT/b-4algs.csv --quiet >/dev/null 2>&1; echo "algs rc=$?"
build/smv bench $MS --alg auto,cusparse-alg1 --precision both --runs 100 --max-time 0.3 --graph-batch 50 --csv $OUT/b-5runs.csv --quiet >/dev/null 2>&1; echo "runs rc=$?"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
cd $OUT && tar czf csv.tgz *.csv && rm -f *.csv
