#!/bin/bash
# session 17 call 3: rung 9 grid that fits one wave (SMV_DEV_RB=-1) vs default, 28 real matrices, graph mode
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
D=.shared/matrices
for rep in 1 2; do for RB in 0 -1; do for P in f32 f64; do
  SMV_DEV_RB=$RB timeout 100 build/smv bench $D/*.mtx.gz --alg auto,cusparse-alg1 --precision $P --runs 50 --warmup 5 --graph-batch 50 --graph-replays 10 --max-time 0.1 --csv $OUT/b-$RB-$P-$rep.csv --quiet >/dev/null 2>$OUT/err-$RB-$P-$rep.txt
  echo "RB=$RB $P rc=$? $SECONDS s"
done; done; done
for RB in 0 980 960 900 1000; do
  SMV_DEV_RB=$RB timeout 100 build/smv bench $D/ct2010.mtx.gz --alg auto,cusparse-alg1 --precision f32 --runs 50 --warmup 5 --graph-batch 50 --graph-replays 10 --csv $OUT/c-$RB.csv --quiet >/dev/null 2>&1
done
cd $OUT && tar czf csv.tgz *.csv err-* && rm -f *.csv err-*
