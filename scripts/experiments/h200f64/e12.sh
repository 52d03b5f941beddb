#!/bin/bash
# e12.sh — one call, prebuilt binaries (no device build time):
#   A. e11's bisection with the slow control in the same call: rung 10
#      f32 (and ALG1) on band:4000000:8 from 03dc1f7 (fast in e9b), four
#      of e11's 23 candidates between it and a0c1048 (bb9f605, 035e6ca,
#      7798319, f596c33: the 4th, 8th, 13th, 17th), a0c1048 (the f32 tile
#      kernel's PTX the same as 03dc1f7's) and 1acd764 (main, "head",
#      slow in e9), two passes, alternating. Tells whether the loss is in
#      03dc1f7..a0c1048 (host side; narrowed to 4-6 commits) or after
#      a0c1048 (the tile kernels' staging changes).
#   B. branch packed-eo (scripts/experiments/packed/p2-packed-eo.patch):
#      its device tests (rung 13 in both staging modes, rung 10 in
#      SMV_TILE_EO=2), memcheck of the packed test, then rung 13 against
#      rung 10, cuSPARSE and AUTO on e8's local classes (both precisions)
#      and rung 10's entry order into plain (2) and swizzled (1) slots
#      (the memcheck and the last two only with E12_FULL=1).
#   C. AUTO's rule 7 on this tree (main): f64 local rows of 56 or more go
#      to rung 9 on the H200 class, measured before rung 10's staging
#      changes (e6-e8 made rung 10 faster on rows of 23 and more; e8 saw
#      it ahead of rung 9 at 65 entries). Rung 9 against rung 10 on band
#      rows of 49-129 entries, f64, past the L2.
# The binaries are built here (prebuild.sh, no GPU needed) with sm_90 SASS only, which
# halves them so that they fit the call's 64 MiB:
#   /tmp/bisbuild.sh-style: git archive REV | tar x; make -j2 SM=90
#   NVCCFLAGS="-O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -lineinfo
#   -Xcompiler -Wall,-Wextra,-fPIC" build/smv [tests]; xz each into
#   bis/NAME-BIN.xz (bis/ is ignored; carry ["bis"]).
# Device: OUT=dir scripts/experiments/h200f64/e12.sh
set -u
OUT=${OUT:-/tmp/h200f64-e12}
mkdir -p "$OUT"
. "$(dirname "$0")/prebuilt.sh"
prebuilt_unpack /tmp/e12
ls /tmp/e12
echo "== A: bisection step (f32, L2-warm)"
# Trees in commit order (those whose binary came); 03dc1f7 and head, the
# controls, also time stencil27:100.
trees=""
for c in 03dc1f7 bb9f605 035e6ca 7798319 f596c33 a0c1048 head; do
  [ -x /tmp/e12/$c-smv ] && trees="$trees $c"
done
echo "trees:$trees"
echo "tree,pass,matrix,alg,verify,warm_median_ms,warm_pct_copy"
for pass in 1 2; do
  for c in $trees; do
    M=band:4000000:8
    case $c in 03dc1f7 | a0c1048 | head) M="$M stencil27:100" ;; esac
    timeout 60 /tmp/e12/$c-smv bench $M --alg tiled,cusparse-alg1 \
      --precision f32 --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
      --csv "$OUT/bis-$c-$pass.csv" >"$OUT/bis-$c-$pass.log" 2>&1 ||
      echo "$c pass $pass rc=$?"
    tail -n +2 "$OUT/bis-$c-$pass.csv" | cut -d, -f6,11,14,20,43 |
      sed "s/^/$c,$pass,/"
  done
done
echo "== C: rule 7 (f64 rows of 49-129: rung 9 against rung 10)"
timeout 150 /tmp/e12/head-smv bench band:2000000:24 band:2000000:28 \
  band:2000000:32 band:1500000:40 band:1200000:47 band:1000000:64 \
  --alg adaptive,tiled,auto --precision f64 --runs 30 --max-time 0.2 \
  --graph-batch 0 --quiet --csv "$OUT/rule7.csv" >"$OUT/rule7.log" 2>&1
echo "rule7 bench: exit $?"
tail -n +2 "$OUT/rule7.csv" | cut -d, -f6,10,11,14,20,43
echo "== B: packed-eo device tests"
P=/tmp/e12/p2
for m in default 0 1; do
  if [ $m = default ]; then unset SMV_PACK_EO; else export SMV_PACK_EO=$m; fi
  timeout 120 $P-test_cuda_packed >"$OUT/packed-$m.log" 2>&1
  echo "test_cuda_packed SMV_PACK_EO=$m: exit $?: $(grep '^RESULT' "$OUT/packed-$m.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/packed-$m.log" | head -5
done
unset SMV_PACK_EO
for t in test_cuda_spmv test_cuda_hot test_cuda_pipe; do
  SMV_TILE_EO=2 timeout 120 $P-$t >"$OUT/$t-eo2.log" 2>&1
  echo "$t SMV_TILE_EO=2: exit $?: $(grep '^RESULT' "$OUT/$t-eo2.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t-eo2.log" | head -5
done
if [ "${E12_FULL:-0}" = 1 ]; then
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 "$SAN" --tool memcheck --error-exitcode 99 $P-test_cuda_packed \
  >"$OUT/san-packed.log" 2>&1
echo "memcheck test_cuda_packed: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-packed.log" | tr '\n' ' ')"
fi
echo "== B: rung 13 (packed) against rung 10, cuSPARSE, AUTO"
M="band:4000000:8 band:2000000:16 band:1500000:23 stencil27:100 elastic3d:50 lap3d:160 stencil27:150"
timeout 200 $P-smv bench $M --alg tiled,packed,cusparse-alg1,cusparse-alg2,auto \
  --precision both --runs 30 --max-time 0.2 --graph-batch 0 --quiet \
  --csv "$OUT/p2.csv" >"$OUT/p2.log" 2>&1
echo "bench: exit $?"
for m in 1 0; do
  [ "${E12_FULL:-0}" = 1 ] || break
  SMV_TILE_EO=$m timeout 80 $P-smv bench $M --alg tiled --precision f64 \
    --runs 30 --max-time 0.2 --graph-batch 0 --quiet --csv "$OUT/eo$m.csv" \
    >"$OUT/eo$m.log" 2>&1
  echo "bench SMV_TILE_EO=$m f64: exit $?"
done
echo "run,matrix,precision,alg,verify,warm_median_ms,warm_pct_copy"
for f in p2 eo1 eo0; do
  tail -n +2 "$OUT/$f.csv" | cut -d, -f6,10,11,14,20,43 | sed "s/^/$f,/"
done
