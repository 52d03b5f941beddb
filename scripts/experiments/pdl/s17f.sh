#!/bin/bash
# session 17 call 6: programmatic dependent launch for rung 9 (SMV_DEV_PDL modes 0,1,5,2,6), 28 real matrices
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
D=.shared/matrices
for P in f32 f64; do for M in 0 1 5 2 6; do
  SMV_DEV_PDL=$M timeout 100 build/smv bench $D/*.mtx.gz --alg auto,cusparse-alg1 --precision $P --runs 50 --warmup 5 --graph-batch 50 --graph-replays 10 --max-time 0.1 --csv $OUT/b-$M-$P.csv --quiet >/dev/null 2>$OUT/err-$M-$P.txt
  echo "PDL=$M $P rc=$? $SECONDS s $(grep -c FAIL $OUT/b-$M-$P.csv)"
done; done
for M in 0 5 6; do
  SMV_DEV_PDL=$M timeout 100 build/smv bench lap3d:160 rand:2000000:16 stencil27:100 --alg auto,cusparse-alg1 --precision both --runs 30 --warmup 3 --graph-batch 10 --graph-replays 5 --csv $OUT/L-$M.csv --quiet >/dev/null 2>&1; echo "large PDL=$M rc=$?"
done
cd $OUT && tar czf csv.tgz *.csv err-* && rm -f *.csv err-*
