#!/bin/sh
# test_gen.sh — `smv gen SPEC -o FILE`: output format, gzip, stdout,
# determinism, conversion, usage errors (exit 2) and bad input (exit 1).
. "$(dirname "$0")/lib.sh"

expect_rc 0 "gen --help" "$SMV" gen --help
for k in "usage: smv gen SPEC -o FILE" lap2d:N lap3d:N rand:ROWS:K plaw:ROWS:AVG \
  band:ROWS:W denserow:ROWS:K diag:N empty:ROWS:COLS cols=C seed=S; do
  expect_out "$k" "gen --help mentions $k"
done

expect_err 2 "missing SPEC" "gen without SPEC" "$SMV" gen
expect_err 2 "missing -o FILE" "gen without -o" "$SMV" gen lap2d:3
expect_err 2 "-o needs a FILE" "-o without value" "$SMV" gen lap2d:3 -o
expect_err 2 "unknown option '--frobnicate'" "gen unknown option" "$SMV" gen lap2d:3 --frobnicate -o x
expect_err 2 "more than one SPEC" "gen two specs" "$SMV" gen lap2d:3 lap2d:4 -o x
expect_err 2 "-o given twice" "gen -o twice" "$SMV" gen lap2d:3 -o a -o b

expect_err 1 "lap4d:3: no such file (and not a generator spec)" "unknown generator" \
  "$SMV" gen lap4d:3 -o "$T_TMP/x.mtx"
expect_err 1 "K = 9 exceeds the 5 columns" "bad spec" "$SMV" gen rand:5:9 -o "$T_TMP/x.mtx"
expect_err 1 "no such file (and not a generator spec)" "neither file nor spec" \
  "$SMV" gen nothing-here -o "$T_TMP/x.mtx"
[ -e "$T_TMP/x.mtx" ] && bad "a failed gen left a file" || ok

# lap2d:5: 25 x 25, 5*25 - 20 = 105 entries, coordinate real general.
expect_rc 0 "gen lap2d:5" "$SMV" gen lap2d:5 -o "$T_TMP/l.mtx"
if head -n1 "$T_TMP/l.mtx" | grep -q '^%%MatrixMarket matrix coordinate real general'; then ok; else
  bad "banner: $(head -n1 "$T_TMP/l.mtx")"; fi
if grep -v '^%' "$T_TMP/l.mtx" | head -n1 | grep -q '^25 25 105$'; then ok; else bad "size line"; fi
n=$(grep -v '^%' "$T_TMP/l.mtx" | tail -n +2 | wc -l)
[ "$n" -eq 105 ] && ok || bad "entry lines: $n, want 105"
grep -q '^1 1 4$' "$T_TMP/l.mtx" && ok || bad "first diagonal entry 4"
expect_rc 0 "info of gen'd file" "$SMV" info "$T_TMP/l.mtx"
expect_out "nnz           105" "gen'd file reads back"

# gzip by suffix.
expect_rc 0 "gen .mtx.gz" "$SMV" gen "rand:200:7,seed=5" -o "$T_TMP/r.mtx.gz"
magic=$(od -An -tx1 -N2 "$T_TMP/r.mtx.gz" | tr -d ' \n')
[ "$magic" = "1f8b" ] && ok || bad "not gzip: $magic"
expect_rc 0 "info .gz" "$SMV" info "$T_TMP/r.mtx.gz"
expect_out "nnz           1400" "gz reads back"

# Standard output, and determinism: two runs give identical bytes.
expect_rc 0 "gen -o -" "$SMV" gen "plaw:500:6" -o -
cp "$OUT" "$T_TMP/p1.mtx"
head -n1 "$T_TMP/p1.mtx" | grep -q '^%%MatrixMarket' && ok || bad "stdout not Matrix Market"
"$SMV" gen "plaw:500:6" -o "$T_TMP/p2.mtx"
cmp -s "$T_TMP/p1.mtx" "$T_TMP/p2.mtx" && ok || bad "two gens of one spec differ"
"$SMV" gen "plaw:500:6,seed=2" -o "$T_TMP/p3.mtx"
cmp -s "$T_TMP/p1.mtx" "$T_TMP/p3.mtx" && bad "seed= changed nothing" || ok

# Values survive the round trip exactly (%.17g): y from the spec and from
# the written file are identical bytes.
"$SMV" spmv "rand:300:9,cols=200" --backend cpu -o "$T_TMP/y1.mtx" 2>/dev/null
"$SMV" gen "rand:300:9,cols=200" -o "$T_TMP/rr.mtx"
"$SMV" spmv "$T_TMP/rr.mtx" --backend cpu -o "$T_TMP/y2.mtx" 2>/dev/null
[ -s "$T_TMP/y1.mtx" ] && cmp -s "$T_TMP/y1.mtx" "$T_TMP/y2.mtx" && ok || bad "round trip changed y"

# A file as SPEC converts it (here .mtx -> .mtx.gz).
expect_rc 0 "gen converts a file" "$SMV" gen "$T_TMP/l.mtx" -o "$T_TMP/l2.mtx.gz"
expect_rc 0 "info converted" "$SMV" info "$T_TMP/l2.mtx.gz"
expect_out "nnz           105" "converted keeps entries"

# Unwritable output.
expect_err 1 "/nonexistent-dir/x.mtx" "unwritable output" "$SMV" gen lap2d:3 -o /nonexistent-dir/x.mtx

finish
