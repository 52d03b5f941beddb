#!/bin/bash
# v3.sh — after the persistent BiCGStab became the default: the device
# tests of the solvers (C, CLI, Python) and of declared reuse (its CG),
# when the whole `make test` does not fit the call.
#   OUT=dir scripts/experiments/verify/v3.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
for t in test_cuda_solve_coop test_cuda_solve test_cuda_reuse test_cuda_mixed; do
  timeout 200 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -10
done
timeout 200 sh tests/cli/test_solve.sh >"$OUT/test_solve_sh.log" 2>&1
echo "tests/cli/test_solve.sh: exit $?: $(tail -1 "$OUT/test_solve_sh.log")"
grep -iE "fail" "$OUT/test_solve_sh.log" | head -5
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 200 \
  python3 -m pytest -q tests/python >"$OUT/pytest.log" 2>&1
echo "pytest: exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
