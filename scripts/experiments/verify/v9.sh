#!/bin/bash
# v9.sh — stop 30's last review mends, never run on a GPU: smv_env_int (the
# one reader of integer knobs: rung 14, tiles.cu, cg_coop), rung 14's
# pipe_desc_of / pipe_rows, the shared test helpers (tc_spec_both,
# tc_same_bits, tc_tune_timed, tc_specs_both, coop_options). Every device
# test they touch, the CLI info and spmv scripts, the Python device tests,
# memcheck on every rung.
#   OUT=dir scripts/experiments/verify/v9.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
for t in test_cuda_pipe test_cuda_packed test_cuda_plan test_cuda_reuse \
  test_cuda_solve_coop test_cuda_spmv test_cuda_context test_occupancy_gpu; do
  timeout 200 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL|MISMATCH" "$OUT/$t.log" | head -8
done
for s in test_info test_spmv test_solve; do
  timeout 200 sh tests/cli/$s.sh >"$OUT/$s.log" 2>&1
  echo "tests/cli/$s.sh: exit $?: $(tail -1 "$OUT/$s.log")"
  grep -E "FAIL" "$OUT/$s.log" | head -8
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 150 \
  python3 -m pytest -q tests/python >"$OUT/pytest.log" 2>&1
echo "pytest: exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 120 "$SAN" --tool memcheck --error-exitcode 99 \
  build/tests/test_cuda_sanitize >"$OUT/san-memcheck.log" 2>&1
echo "memcheck: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-memcheck.log" | tr '\n' ' ')"
