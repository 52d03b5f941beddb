#!/bin/sh
# tests/cli/test_bench_spmm.sh — `smv bench-spmm`: usage errors (exit 2),
# no GPU (exit 1, clear message); with a GPU, a small verified run whose
# rows all PASS (cuSPARSE and rung 2 may answer n/a for a layout they
# lack) and whose Markdown table has one line per case; the suites (list,
# unknown name, and with a GPU the CI-sized one with its CSV).
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
expect_err 2 "unknown suite" "bad suite" $SMV bench-spmm --suite nope
expect_err 2 "needs a directory" "real without dir" env SMV_MATRICES= $SMV bench-spmm --suite real
expect_rc 0 "suite list" $SMV bench-spmm --suite list
expect_out "rmat:20:16" "quick lists R-MAT scale 20"
expect_out "stencil27:80" "quick lists a local-column matrix"
expect_out "plaw:1000000:16" "quick lists a power-law matrix"

run $SMV bench-spmm --k 1,3,16 --prec both --runs 5 --markdown "$T_TMP/t.md" lap2d:12
if grep -q "no CUDA device\|needs a GPU" "$ERR"; then
  if [ "$RC" -eq 1 ]; then ok; else bad "no GPU: exit $RC, want 1"; fi
  skip "no GPU: bench-spmm run not checked"
else
  if [ "$RC" -eq 0 ]; then ok; else bad "GPU run: exit $RC"; sed 's/^/  /' "$ERR" | head >&2; fi
  # 2 precisions x 3 k x 2 orders x 15 algorithms (auto, ours, 3 of
  # cuSPARSE, rungs 2-11) = 180 result rows
  n=$(grep -c '^| lap2d' "$T_TMP/t.md")
  if [ "$n" -eq 180 ]; then ok; else bad "markdown has $n rows, want 180"; fi
  n=$(grep -c ' auto:[a-z]* .*PASS' "$OUT")
  if [ "$n" -eq 12 ]; then ok; else bad "auto PASS rows: $n, want 12"; fi
  if grep -q 'FAIL\|ERROR' "$OUT"; then bad "a case failed"; else ok; fi
  n=$(grep -c ' ours .*PASS' "$OUT")
  if [ "$n" -eq 12 ]; then ok; else bad "ours PASS rows: $n, want 12"; fi
fi
run $SMV bench-spmm --suite small --runs 3 --csv "$T_TMP/s.csv"
if grep -q "no CUDA device\|needs a GPU" "$ERR"; then
  skip "no GPU: bench-spmm --suite small not checked"
else
  if [ "$RC" -eq 0 ]; then ok; else bad "suite small: exit $RC"; fi
  # 4 matrices x 2 precisions x 4 k x 2 orders x 15 algorithms + header
  n=$(wc -l <"$T_TMP/s.csv")
  if [ "$n" -eq 961 ]; then ok; else bad "suite csv has $n lines, want 961"; fi
  if grep -q ',FAIL,\|,ERROR,' "$T_TMP/s.csv"; then bad "a suite case failed"; else ok; fi
fi
finish
