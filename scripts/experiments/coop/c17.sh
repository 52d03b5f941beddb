#!/bin/bash
# c17.sh — issue 24's iteration count: the resident kernel with the
# predict-and-recompute recurrence (SMV_SOLVE_COOP_VARIANT=pr: s = A p
# computed, five sums in the one grid sum an iteration) against the
# default (res: cg1's Chronopoulos-Gear recurrence) beside the fair anchor
# in the same run, on every matrix of c16. What to read: the iterations to
# 1e-8 (gyro_m: the anchor 4401, res 4498 in c16; the CPU counts predict
# pr near textbook CG's) and the time an iteration (the two extra sums and
# p's stores against cg1's w). This part: the persistent solver tests of
# the pr variant (test_cuda_solve_coop runs every test for it) and
# memcheck of one of them; c18 is the sweep (two calls, each well under
# the device tool's 600 s).
#   OUT=dir scripts/experiments/coop/c17.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c17
make -j16 SM=90 build/tests/test_cuda_solve_coop >>"$OUT/build.log" 2>&1
timeout 240 build/tests/test_cuda_solve_coop >"$OUT/test.log" 2>&1
echo "test_cuda_solve_coop: exit $?: $(grep '^RESULT' "$OUT/test.log" | tail -1)"
grep -E "CHECK failed|FAIL" "$OUT/test.log" | head -8
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SMV_TEST_ONLY="test_persistent_matches_cpu [pr]" timeout 200 "$SAN" \
  --tool memcheck --error-exitcode 99 build/tests/test_cuda_solve_coop \
  >"$OUT/san.log" 2>&1
echo "memcheck [pr]: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san.log" | tr '\n' ' ')"
