#!/bin/sh
# test_order.sh — --reorder rcm|degree on smv info (bandwidth and profile
# before and after, JSON), smv gen (the reordered matrix written) and smv
# solve (the same x and iteration count as without, x and residuals in the
# input's order); unknown words and repeats are usage errors (exit 2), a
# rectangular matrix a runtime error (exit 1).
. "$(dirname "$0")/lib.sh"

# The "after" bandwidth of the last run's reorder line.
after_bw() { sed -n 's/^reorder *[a-z]*: bandwidth [0-9]* -> \([0-9]*\),.*/\1/p' "$1"; }

# info: lap2d:30 in random order; RCM restores a band of at most 2N = 60.
expect_rc 0 "info --reorder rcm" "$SMV" info lap2d:30,perm=rand --reorder rcm
expect_out "reorder       rcm: bandwidth" "info reorder line"
expect_out "bandwidth     886 (max |i - j|)" "info table describes the input"
bw=$(after_bw "$OUT")
if [ -n "$bw" ] && [ "$bw" -le 60 ]; then ok; else bad "info rcm bandwidth '$bw' > 60"; fi
expect_rc 0 "info --reorder=degree" "$SMV" info lap2d:30,perm=rand --reorder=degree
expect_out "reorder       degree: bandwidth 886 ->" "info degree line"
expect_rc 0 "info --json --reorder rcm" "$SMV" info --json lap2d:10,perm=rand --reorder rcm
expect_out '"reorder": {"method": "rcm", "bandwidth_before":' "info json reorder"
if command -v python3 >/dev/null 2>&1; then
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["reorder"]["bandwidth_after"] <= 20' "$OUT" 2>/dev/null; then ok; else
    bad "info --json --reorder: invalid JSON or bandwidth > 20"; fi
fi
# Empty and 1x1 matrices reorder to themselves.
expect_rc 0 "info empty --reorder rcm" "$SMV" info empty:4:4 --reorder rcm
expect_out "reorder       rcm: bandwidth 0 -> 0, profile 0 -> 0" "empty reorder"
expect_rc 0 "info 1x1 --reorder rcm" "$SMV" info diag:1 --reorder degree

# Usage errors (exit 2) and a rectangular matrix (exit 1).
expect_err 2 "--reorder must be rcm or degree, not 'amd'" "info unknown order" \
  "$SMV" info lap2d:3 --reorder amd
expect_err 2 "--reorder needs rcm or degree" "info missing order" "$SMV" info lap2d:3 --reorder
expect_err 2 "--reorder given twice" "info repeated" "$SMV" info lap2d:3 --reorder rcm --reorder degree
expect_err 2 "--reorder must be rcm or degree, not 'x'" "gen unknown order" \
  "$SMV" gen lap2d:3 -o "$T_TMP/x.mtx" --reorder x
expect_err 2 "--reorder must be rcm or degree, not 'RCM'" "solve unknown order" \
  "$SMV" solve lap2d:3 --reorder RCM
expect_err 2 "unknown option '--reorder'" "pagerank has no --reorder" \
  "$SMV" pagerank lap2d:3 --reorder rcm
expect_err 1 "needs a square matrix, not 5 x 7" "info rectangular" \
  "$SMV" info empty:5:7 --reorder rcm

# gen: the file holds the reordered matrix (same entries, narrow band).
expect_rc 0 "gen --reorder rcm" "$SMV" gen lap2d:20,perm=rand --reorder rcm -o "$T_TMP/r.mtx"
grep -q "reorder       rcm: bandwidth 391 ->" "$ERR" && ok || bad "gen: reorder line on stderr"
expect_rc 0 "info of the reordered file" "$SMV" info "$T_TMP/r.mtx"
expect_out "nnz           1920" "gen reorder keeps the entries"
bw=$(sed -n 's/^bandwidth *\([0-9]*\) .*/\1/p' "$OUT")
if [ -n "$bw" ] && [ "$bw" -le 40 ]; then ok; else bad "gen rcm file bandwidth '$bw' > 40"; fi
expect_rc 0 "gen --reorder to stdout" "$SMV" gen lap2d:4,perm=rand --reorder degree -o -
head -n 1 "$OUT" | grep -q '^%%MatrixMarket matrix coordinate real general' && ok ||
  bad "gen -o - --reorder: stdout is not just the matrix"

# solve: the same x (to tolerance) and iterations as without reordering.
solve_x() { # OUTFILE ARGS...: solve on the CPU, x into OUTFILE
  o=$1; shift
  "$SMV" solve lap2d:30,perm=rand --backend cpu --tol 1e-10 -o "$o" "$@" >"$OUT" 2>"$ERR"
  RC=$?
}
iters() { sed -n 's/^iterations: \([0-9]*\) .*/\1/p' "$1"; }
solve_x "$T_TMP/x0.mtx"
[ "$RC" -eq 0 ] && ok || bad "solve without --reorder: exit $RC"
it0=$(iters "$OUT")
for r in rcm degree; do
  solve_x "$T_TMP/x_$r.mtx" --reorder $r
  [ "$RC" -eq 0 ] && ok || bad "solve --reorder $r: exit $RC"
  expect_out "reorder       $r: bandwidth 886 ->" "solve $r reorder line"
  expect_out "max error:" "solve $r error in the input's order"
  it=$(iters "$OUT")
  if [ -n "$it" ] && [ -n "$it0" ] &&
    awk -v a="$it0" -v b="$it" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= a * 0.05 + 1) }'; then
    ok
  else bad "solve --reorder $r: $it iterations against $it0"; fi
  # x in the input's order: entry by entry within 1e-8 of the plain solve.
  if paste "$T_TMP/x0.mtx" "$T_TMP/x_$r.mtx" | awk '
      /^%/ { next } n++ == 0 { next }
      { d = $1 - $2; if (d < 0) d = -d; if (d > 1e-8) bad++ ; m++ }
      END { exit !(m == 900 && bad == 0) }'; then ok; else
    bad "solve --reorder $r: x differs from the plain solve"; fi
done
# With a right-hand side from a file: rows 1 and 3 are [4 1; 1 3] x = (1, 2),
# row 2 is 5 x = 10.
cat >"$T_TMP/spd.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real symmetric
3 3 4
1 1 4
3 1 1
3 3 3
2 2 5
MTX
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n10\n2\n' >"$T_TMP/b.mtx"
expect_rc 0 "solve --b --reorder rcm" "$SMV" solve "$T_TMP/spd.mtx" --b "$T_TMP/b.mtx" \
  --reorder rcm --backend cpu -o "$T_TMP/xs.mtx"
# x = (1/11, 2, 7/11)
if awk '/^%/ { next } n++ == 0 { next }
    { x[m++] = $1 }
    END { e = 1e-9; exit !(m == 3 && (x[0] - 1/11)^2 < e && (x[1] - 2)^2 < e && (x[2] - 7/11)^2 < e) }' \
  "$T_TMP/xs.mtx"; then ok; else bad "solve --b --reorder: wrong x: $(tr '\n' ' ' <"$T_TMP/xs.mtx")"; fi
expect_rc 0 "bicgstab --reorder rcm" "$SMV" solve lap2d:12,perm=rand --method bicgstab \
  --reorder rcm --backend cpu
expect_out "iterations:" "bicgstab reorder runs"
finish
