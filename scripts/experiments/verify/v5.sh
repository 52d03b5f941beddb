#!/bin/bash
# v5.sh — the review mends of stop 29 (tc_run shared by the SpMV tests;
# matrix analysis's reason_add and reuse flags) and rung 14 in the tests
# that walk the whole ladder.
#   OUT=dir scripts/experiments/verify/v5.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
for t in test_cuda_spmv test_cuda_mixed test_cuda_reuse test_cuda_plan; do
  timeout 200 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -12
done
for s in test_info test_spmv; do
  timeout 200 sh tests/cli/$s.sh >"$OUT/$s.log" 2>&1
  echo "tests/cli/$s.sh: exit $?: $(tail -1 "$OUT/$s.log")"
  grep -E "FAIL" "$OUT/$s.log" | head -8
done
