#!/bin/sh
# tests/cli/test_bench_spmm.sh — `smv bench-spmm`: usage errors (exit 2),
# no GPU (exit 1, clear message); with a GPU, a small verified run whose
# rows all PASS (cuSPARSE may answer n/a for a layout it lacks) and whose
# Markdown table has one line per case.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "--help" $SMV bench-spmm --help
expect_out "--layout" "help names --layout"
expect_err 2 "no MATRIX" "no matrix" $SMV bench-spmm
expect_err 2 "--k wants" "k = 0" $SMV bench-spmm --k 0 lap2d:4
expect_err 2 "--k wants" "k too big" $SMV bench-spmm --k 4,2000 lap2d:4
expect_err 2 "--prec" "bad precision" $SMV bench-spmm --prec f16 lap2d:4
expect_err 2 "--layout" "bad layout" $SMV bench-spmm --layout diag lap2d:4
expect_err 2 "--algs" "bad alg" $SMV bench-spmm --algs ours,magic lap2d:4
expect_err 2 "unknown option" "bad option" $SMV bench-spmm --frob lap2d:4

run $SMV bench-spmm --k 1,3,16 --prec both --runs 5 --markdown "$T_TMP/t.md" lap2d:12
if grep -q "no CUDA device\|needs a GPU" "$ERR"; then
  if [ "$RC" -eq 1 ]; then ok; else bad "no GPU: exit $RC, want 1"; fi
  skip "no GPU: bench-spmm run not checked"
else
  if [ "$RC" -eq 0 ]; then ok; else bad "GPU run: exit $RC"; sed 's/^/  /' "$ERR" | head >&2; fi
  # 2 precisions x 3 k x 2 orders x 4 algorithms = 48 result rows
  n=$(grep -c '^| lap2d' "$T_TMP/t.md")
  if [ "$n" -eq 48 ]; then ok; else bad "markdown has $n rows, want 48"; fi
  if grep -q 'FAIL\|ERROR' "$OUT"; then bad "a case failed"; else ok; fi
  n=$(grep -c ' ours .*PASS' "$OUT")
  if [ "$n" -eq 12 ]; then ok; else bad "ours PASS rows: $n, want 12"; fi
fi
finish
