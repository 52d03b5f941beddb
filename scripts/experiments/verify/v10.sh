#!/bin/bash
# v10.sh — the resident persistent CG as the default (cg_coop_res.cu):
# every device test of the solvers, the CLI's solve script, the Python
# solver tests, memcheck and racecheck on the persistent-CG test.
#   OUT=dir scripts/experiments/verify/v10.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
for t in test_cuda_solve_coop test_cuda_solve test_cuda_solve_harden; do
  [ -x build/tests/$t ] || continue
  timeout 300 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -8
done
timeout 200 sh tests/cli/test_solve.sh >"$OUT/test_solve.log" 2>&1
echo "tests/cli/test_solve.sh: exit $?: $(tail -1 "$OUT/test_solve.log")"
grep -E "FAIL" "$OUT/test_solve.log" | head -8
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 150 \
  python3 -m pytest -q tests/python -k "solve or cg or linalg" >"$OUT/pytest.log" 2>&1
echo "pytest (solvers): exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# memcheck on the resident kernel's own tests; racecheck (slow on a
# persistent kernel: the first run of this script ran out of time on those)
# on the smallest test that runs it, lap2d:80 with progress relaunches.
for run in "memcheck resident" "racecheck test_auto_and_progress [res]" "racecheck test_resident_map"; do
  set -- $run
  tool=$1
  shift
  SMV_TEST_ONLY="$*" timeout 120 "$SAN" --tool $tool --error-exitcode 99 \
    build/tests/test_cuda_solve_coop >"$OUT/san-$tool.log" 2>&1
  echo "$tool ($*): exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-$tool.log" | tr '\n' ' ')"
done
