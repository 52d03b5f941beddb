#!/bin/bash
# session 17 call 2: rung 9 row blocks as contiguous ranges; grid cap sweep (SMV_DEV_RB) x block, graph mode
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
D=.shared/matrices
MS="$D/ct2010.mtx.gz $D/delaunay_n16.mtx.gz $D/luxembourg_osm.mtx.gz $D/wiki-Vote.mtx.gz $D/PGPgiantcompo.mtx.gz $D/bcsstk33.mtx.gz $D/cage10.mtx.gz $D/crack.mtx.gz $D/memplus.mtx.gz $D/rajat01.mtx.gz"
for B in 256 1024 512; do for RB in 0 132 264 528; do
  SMV_DEV_RB=$RB timeout 100 build/smv bench $MS --alg auto,cusparse-alg1 --block $B --precision f32 --runs 50 --warmup 5 --graph-batch 50 --graph-replays 10 --csv $OUT/b-$B-$RB.csv --quiet >/dev/null 2>$OUT/err-$B-$RB.txt
  echo "B=$B RB=$RB rc=$? $SECONDS s"
done; done
timeout 60 build/smv bench $MS --alg auto,cusparse-alg1 --precision f32 --runs 50 --warmup 5 --graph-batch 50 --graph-replays 10 --csv $OUT/b-def-0.csv --quiet >/dev/null 2>&1; echo "def rc=$?"
cd $OUT && tar czf csv.tgz *.csv err-* && rm -f *.csv err-*
