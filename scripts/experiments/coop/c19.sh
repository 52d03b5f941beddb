#!/bin/bash
# c19.sh — issue 24: the persistent kernels' sums by a transposed
# butterfly (cg_coop.h, warp_scatter_sum: a block's shuffles for 3 sums
# from 15 doubles a warp to 6, for 5 from 25 to 9; after the grid barrier
# only the warps holding partials shuffle, and one warp adds the warps'
# totals), without Jacobi one sum fewer in the resident kernel (r.r is
# r.z), and the predict-and-recompute recurrence as the resident
# kernel's default (SMV_SOLVE_COOP_VARIANT=res: cg1's). First every test
# of the solvers on the device (all persistent kernels and both sums go
# through the new reduction), the Python solver tests, memcheck of the
# default's tests; then on every matrix of c16 the fair anchor, the
# default (pr) and res in the same run (c18 at 7de218a is the before).
#   OUT=dir scripts/experiments/coop/c19.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c19
make -j16 SM=90 build/tests/test_cuda_solve_coop build/tests/test_cuda_solve \
  build/tests/test_cuda_reuse build/libsmv.so >>"$OUT/build.log" 2>&1 ||
  echo "test build failed: $(tail -3 "$OUT/build.log")"
for t in test_cuda_solve_coop test_cuda_solve test_cuda_reuse; do
  timeout 240 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -8
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 120 \
  python3 -m pytest -q tests/python/test_solve.py >"$OUT/pytest.log" 2>&1
echo "pytest test_solve.py: exit $?: $(tail -1 "$OUT/pytest.log")"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for v in pr res; do
  SMV_TEST_ONLY="test_persistent_matches_cpu [$v]" timeout 150 "$SAN" \
    --tool memcheck --error-exitcode 99 build/tests/test_cuda_solve_coop \
    >"$OUT/san-$v.log" 2>&1
  echo "memcheck [$v]: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-$v.log" | tr '\n' ' ')"
done
for m in $SPD; do
  coop_sweep "$m" "" "VARIANT=res"
done
cut -c1-250 "$R"
