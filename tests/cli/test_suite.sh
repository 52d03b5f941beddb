#!/bin/sh
# tests/cli/test_suite.sh — `smv bench --suite` (issue 8): the list names
# every suite with its matrices and sizes, every matrix of a suite other
# than `small` is past the L2 (>= 100 MB of f64 CSR), the small suite runs
# and verifies on the CPU backend, the real-matrix directory is taken from
# --matrices or SMV_MATRICES (a temporary one here: tests never read
# ../shared), and bad suites are usage errors. Also `smv info --plan`
# without a device (a clear runtime error) and its usage errors.
. "$(dirname "$0")/lib.sh"

D="$T_TMP"
# The list and the real suite read SMV_MATRICES: start without it (the
# GPU scripts export one).
unset SMV_MATRICES

expect_rc 0 "suite list" $SMV bench --suite list
for s in issue8 local random graph dense real small; do
  expect_out "$s: " "suite $s listed"
done
for m in band:8000000:8 lap3d:160 stencil27:100 elastic3d:50 \
  rand:20000000:16 plaw:4000000:16 rmat:22:16 rmat:22:16,perm=rand \
  denserow:4000000:8 lap3d:160,perm=rand lap2d:3000 band:1000000:64; do
  expect_out "  $m " "suite list has $m"
done
expect_out "no directory: set SMV_MATRICES" "real without a directory"
# Every matrix listed outside `small` holds >= 100 MB (the MB column).
small=$(awk '/^small:/ { s = 1; next } /^[a-z0-9]+:/ { s = 0 } s && /MB/' "$OUT" | wc -l)
big_short=$(awk '/^small:/ { s = 1; next } /^[a-z0-9]+:/ { s = 0 }
  !s && / MB / { for (i = 1; i <= NF; i++) if ($i == "MB" && $(i - 1) + 0 < 100) print }' "$OUT" | wc -l)
if [ "$small" -ge 8 ]; then ok; else bad "small suite lists $small matrices"; fi
if [ "$big_short" -eq 0 ]; then ok; else bad "$big_short suite matrices below 100 MB"; fi
# rmat's nnz is a bound: marked with '<'
if grep -q "rmat:22:16 .*rows <" "$OUT"; then ok; else bad "rmat bound not marked"; fi

# The real matrices come from a directory: --matrices or SMV_MATRICES.
mkdir -p "$D/mats"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.5\n2 2 -2\n' >"$D/mats/b.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 4\n' >"$D/mats/a.mtx"
echo "not a matrix" >"$D/mats/readme.txt"
expect_rc 0 "list with --matrices" $SMV bench --suite list --matrices "$D/mats"
expect_out "$D/mats/a.mtx" "real lists a.mtx"
expect_out "$D/mats/b.mtx" "real lists b.mtx"
if grep -q readme "$OUT"; then bad "real lists a non-matrix"; else ok; fi
run env SMV_MATRICES="$D/mats" $SMV bench --suite list
expect_out "$D/mats/b.mtx" "SMV_MATRICES honoured"

# The small suite runs and verifies on the CPU backend.
FAST="--runs 3 --warmup 1 --max-time 0.2 --backend cpu"
expect_rc 0 "small suite on the CPU" $SMV bench --suite small $FAST --csv "$D/small.csv"
for m in band:3000:0 lap3d:10 stencil27:8 elastic3d:4 rmat:10:8,perm=rand denserow:2000:4; do
  if grep -q "$m" "$D/small.csv"; then ok; else bad "small suite lacks $m"; fi
done
n=$(grep -c ",PASS," "$D/small.csv")
fails=$(grep -c ",FAIL,\|,ERROR," "$D/small.csv")
if [ "$n" -ge 10 ] && [ "$fails" -eq 0 ]; then ok; else bad "small suite: $n PASS, $fails FAIL/ERROR"; fi
# real after the specs, an extra MATRIX before the suite
expect_rc 0 "suite real plus a MATRIX" $SMV bench diag:5 --suite real --matrices "$D/mats" $FAST --csv "$D/real.csv"
if sed -n 2p "$D/real.csv" | grep -q ",cpu,diag:5,"; then ok; else bad "first matrix not diag:5"; fi
if grep -q "a.mtx" "$D/real.csv" && grep -q "b.mtx" "$D/real.csv"; then ok; else bad "real suite not run"; fi

# Usage and runtime errors.
expect_err 2 "unknown suite 'nope'" "unknown suite" $SMV bench --suite nope
expect_err 2 "--suite needs a name" "suite without name" $SMV bench --suite
expect_err 2 "needs a directory" "real without directory" env -u SMV_MATRICES $SMV bench --suite real
expect_err 1 "cannot open the matrix directory" "missing directory" $SMV bench --suite real --matrices "$D/none"
mkdir -p "$D/empty"
expect_err 1 "no .mtx or .mtx.gz files" "empty directory" $SMV bench --suite real --matrices "$D/empty"
expect_err 2 "no --suite" "suite with --from-csv" $SMV bench --suite small --from-csv "$D/small.csv"

# smv info --plan: a device call; usage errors without one.
expect_err 2 "--tune goes with --plan" "tune without plan" $SMV info lap2d:5 --tune
expect_err 2 "not with --json" "plan with json" $SMV info lap2d:5 --plan --json
expect_err 2 "--precision: want f64, f32 or f64-f32v" "bad precision" $SMV info lap2d:5 --plan --precision f16
run $SMV info lap2d:20 --plan --tune --precision f32
if [ "$RC" -eq 0 ]; then
  expect_out "AUTO runs" "plan line"
  expect_out "why: measured:" "measured reason"
  expect_out "candidates (median us" "candidates listed"
  expect_out "cuSPARSE alone" "cuSPARSE preprocess line"
elif grep -q "needs a CUDA device" "$ERR" && [ "$RC" -eq 1 ]; then
  ok
  skip "no GPU: plan output not checked"
else
  bad "info --plan: exit $RC: $(head -2 "$ERR")"
fi

finish
