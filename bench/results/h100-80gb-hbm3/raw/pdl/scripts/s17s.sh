#!/bin/bash
# session 17: the issue-8 suite at one commit, in two calls: PART=1 local; PART=2 random graph dense real
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
date -u +%FT%TZ
O="--alg auto,adaptive,stream,cusparse-alg1,cusparse-alg2 --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 --quiet"
if [ "$PART" = 1 ]; then S="local"; else S="random graph dense real"; fi
for s in $S; do
  t=$SECONDS
  timeout ${BUDGET:-520} build/smv bench --suite $s --matrices .shared/matrices $O --csv $OUT/suite-$s.csv >$OUT/suite-$s.txt 2>$OUT/suite-$s.err
  echo "suite $s rc=$? $((SECONDS-t)) s PASS $(grep -c ,PASS, $OUT/suite-$s.csv) FAIL $(grep -c ,FAIL, $OUT/suite-$s.csv)"
  tail -3 $OUT/suite-$s.err
done
date -u +%FT%TZ
