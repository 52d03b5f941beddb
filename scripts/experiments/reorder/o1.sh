#!/bin/bash
# o1.sh — issue 23 item 4 on the device: does the opt-in reordering turn a
# scattered matrix back into a local one? elastic3d:40 and lap3d:100 with
# their rows and columns randomly permuted (perm=rand: the class where AUTO
# ties cuSPARSE), as given and after `smv gen --reorder rcm`; and
# plaw:1000000:16 as given and in degree order. SpMV (AUTO, rung 10,
# cuSPARSE ALG1/ALG2, f64 and f32, every rung verified), then CG per
# iteration through `smv solve --reorder rcm` against the same solve
# without it.
#   OUT=dir scripts/experiments/reorder/o1.sh
set -u
OUT=${OUT:-/tmp/reorder-o1}
mkdir -p "$OUT"
W=${TMPDIR:-/tmp}/reorder-o1
mkdir -p "$W"
cols="cut -d, -f6,10,11,14,20,43"
gen() { # spec order file
  local t=$SECONDS
  timeout 120 build/smv gen "$1" --reorder "$2" -o "$3" >>"$OUT/gen.log" 2>&1
  echo "gen $1 --reorder $2: exit $? ($((SECONDS - t)) s)"
  tail -2 "$OUT/gen.log"
}
gen elastic3d:40,perm=rand rcm "$W/e40-rcm.mtx"
gen lap3d:100,perm=rand rcm "$W/l100-rcm.mtx"
gen plaw:1000000:16 degree "$W/plaw-deg.mtx"
timeout 240 build/smv bench elastic3d:40,perm=rand "$W/e40-rcm.mtx" \
  lap3d:100,perm=rand "$W/l100-rcm.mtx" plaw:1000000:16 "$W/plaw-deg.mtx" \
  --alg auto,tiled,cusparse-alg1,cusparse-alg2 --precision both --runs 30 \
  --max-time 0.25 --graph-batch 0 --quiet --csv "$OUT/o1.csv" \
  >"$OUT/o1.log" 2>&1
echo "bench: exit $?"
echo "matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
tail -n +2 "$OUT/o1.csv" | $cols
for r in none rcm; do
  ro=""
  [ $r = none ] || ro="--reorder $r"
  timeout 60 build/smv solve lap3d:100,perm=rand --precond none --maxit 400 \
    --tol 1e-30 $ro >"$OUT/solve-$r.log" 2>&1
  echo "== solve lap3d:100,perm=rand reorder=$r: exit $?"
  grep -iE "iteration|per it|time|reorder|bandwidth" "$OUT/solve-$r.log" | head -8
done
