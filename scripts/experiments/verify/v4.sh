#!/bin/bash
# v4.sh — after declared reuse stopped measuring where no compressed rung
# qualifies: the reuse tests (C, CLI, Python), the tuner's users and the
# solvers' device tests.
#   OUT=dir scripts/experiments/verify/v4.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
for t in test_cuda_reuse test_cuda_packed test_cuda_mixed test_cuda_solve \
  test_cuda_plan; do
  timeout 200 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL|rule .* kept|reuse plan" "$OUT/$t.log" | head -12
done
for s in test_info test_solve; do
  timeout 200 sh tests/cli/$s.sh >"$OUT/$s.log" 2>&1
  echo "tests/cli/$s.sh: exit $?: $(tail -1 "$OUT/$s.log")"
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 200 \
  python3 -m pytest -q tests/python >"$OUT/pytest.log" 2>&1
echo "pytest: exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
