#!/bin/bash
# v1.sh — the device tests of the changes of one session, when the whole
# `make test` does not fit the call: the persistent solvers (fused grid
# reduction), AUTO's plan (rule 7), SpMM's plan (rung 8) and ladder, and
# the Python package's tests (pytest, CuPy and torch on the device).
#   OUT=dir scripts/experiments/verify/v1.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
for t in test_cuda_solve_coop test_cuda_plan test_cuda_spmm_plan \
  test_cuda_spmm test_cuda_solve test_rungs; do
  timeout 200 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -10
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 200 \
  python3 -m pytest -q tests/python >"$OUT/pytest.log" 2>&1
echo "pytest: exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
