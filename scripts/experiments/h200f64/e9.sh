#!/bin/bash
# e9.sh — is rung 10 in f32 slower than on 2026-11-28? e6-e8 timed it at
# 166-168 us on band:4000000:8 (84% of copy) where e2 (81c34ad) and pipe/q1
# had 152-154 (90-92%), with cuSPARSE ALG1 the same (189-190 us) and the
# measured copy bandwidth the same, and the plain-order baseline of e6/e7
# as slow as the swizzled rung. This builds 81c34ad's smv from a copy of
# that commit's tree (git archive 81c34ad into old81/, carried to the
# device) beside this tree's and times both in one call, f32, rung 10 and
# ALG1.   OUT=dir scripts/experiments/h200f64/e9.sh
# The follow-up call (e9b) ran the same way on two other commits, their
# trees in bis/a and bis/b (git archive 0c28217 / 03dc1f7, carried):
#   make -C bis/a -j8 SM=90 build/smv & make -C bis/b -j8 SM=90 build/smv &
#   wait; then smv bench band:4000000:8 --alg tiled --precision f32
#   --runs 30 --max-time 0.2 --graph-batch 0 with each binary, a b a b.
set -u
OUT=${OUT:-/tmp/h200f64-e9}
mkdir -p $OUT/e9
( make -C old81 -j8 SM=90 GIT_COMMIT=81c34ad build/smv > $OUT/e9/build-old.log 2>&1; echo "old build rc=$?" ) &
( make -j8 SM=90 GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo new) build/smv > $OUT/e9/build-new.log 2>&1; echo "new build rc=$?" ) &
wait
M="band:4000000:8 band:2000000:16 stencil27:100 lap3d:160"
for v in old new; do
  b=build/smv; [ $v = old ] && b=old81/build/smv
  timeout 60 $b bench $M --alg tiled,cusparse-alg1 --precision f32 --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv $OUT/e9/$v.csv > $OUT/e9/$v.log 2>&1
  echo "$v bench rc=$?"
  tail -n +2 $OUT/e9/$v.csv | cut -d, -f6,10,11,14,20,43 | sed "s/^/$v,/"
done
