#!/bin/bash
# v2.sh — the device tests of this session's changes, when the whole
# `make test` does not fit the call: the persistent solvers (lanes per
# row, j-major partials, copies), declared reuse (the plan by
# measurement, rung 13 a tuner candidate), the f64-with-f32-values mode,
# the plan and the rungs, and the Python package's tests (pytest, CuPy and
# torch on the device); then the CLI's reuse report.
#   OUT=dir scripts/experiments/verify/v2.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
for t in test_cuda_solve_coop test_cuda_reuse test_cuda_mixed \
  test_cuda_packed test_cuda_plan test_cuda_hot test_cuda_solve \
  test_cuda_spmv test_rungs test_cuda_matrix_device; do
  [ -x build/tests/$t ] || { echo "$t: not built"; continue; }
  timeout 200 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -10
done
for c in "info lap2d:10 --plan --reuse 5000" "info lap3d:100 --plan --reuse" \
  "info lap3d:100 --plan"; do
  echo "== smv $c"
  timeout 120 build/smv $c 2>&1 | grep -iE "plan|reuse|rung|candidate" | head -8
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 200 \
  python3 -m pytest -q tests/python >"$OUT/pytest.log" 2>&1
echo "pytest: exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
