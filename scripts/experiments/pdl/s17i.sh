#!/bin/bash
# session 17: rung 10 f32 carveout 40/50/55% on scattered f32 matrices
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
MS="rmat:22:16 rand:2000000:16,cols=1000000 plaw:4000000:16 rmat:22:16,perm=rand denserow:4000000:8 rand:1000000:64"
for c in 40 50 def; do
  if [ $c = def ]; then unset SMV_DEV_CARVE; else export SMV_DEV_CARVE=$c; fi
  timeout 200 build/smv bench $MS --alg stream,cusparse-alg1,cusparse-alg2 --precision f32 --runs 30 --max-time 0.15 --graph-batch 0 --quiet --csv $OUT/c-$c.csv >/dev/null 2>&1
  echo "carve=$c rc=$? $SECONDS s"
done
cd $OUT && tar czf csv.tgz *.csv && rm -f *.csv
