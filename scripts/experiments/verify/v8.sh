#!/bin/bash
# v8.sh — after the review mends: rung 14's byte count at an array's end
# compared in elements (no 32-bit overflow), its block no longer taken from
# an override in force at set-up, its shared-memory request clamped to the
# device's opt-in limit; torch y that requires grad refused; the shared
# test helpers (tc_tune_timed, tc_specs_both). Device tests, the Python
# device tests, memcheck on every rung.
#   OUT=dir scripts/experiments/verify/v8.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
for t in test_cuda_pipe test_cuda_packed test_cuda_context test_occupancy_gpu; do
  timeout 150 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL|MISMATCH" "$OUT/$t.log" | head -8
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 150 \
  python3 -m pytest -q tests/python >"$OUT/pytest.log" 2>&1
echo "pytest: exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 120 "$SAN" --tool memcheck --error-exitcode 99 \
  build/tests/test_cuda_sanitize >"$OUT/san-memcheck.log" 2>&1
echo "memcheck: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-memcheck.log" | tr '\n' ' ')"
