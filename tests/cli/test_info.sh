#!/bin/sh
# test_info.sh — `smv info`: table and JSON for specs and files (plain,
# gzip, symmetric, pattern), usage errors (exit 2), bad input (exit 1).
. "$(dirname "$0")/lib.sh"

expect_rc 0 "info --help" "$SMV" info --help
expect_out "usage: smv info MATRIX [--json]" "info --help text"
expect_rc 0 "info -h anywhere" "$SMV" info lap2d:3 -h

expect_err 2 "missing MATRIX" "info without MATRIX" "$SMV" info
expect_err 2 "unknown option '--bogus'" "info unknown option" "$SMV" info lap2d:3 --bogus
expect_err 2 "more than one MATRIX" "info two matrices" "$SMV" info lap2d:3 lap2d:4
expect_err 2 "try 'smv info --help'" "usage hint" "$SMV" info

# lap2d:10: 100 rows, 5*100 - 4*10 = 460 entries, lengths 3..5.
expect_rc 0 "info lap2d:10" "$SMV" info lap2d:10
expect_out "rows          100" "table rows"
expect_out "nnz           460" "table nnz"
expect_out "row length    min 3, max 5, mean 4.600" "table row lengths"
expect_out "empty rows    0" "table empty rows"
expect_out "(generator)" "table source"

# Errors: a missing file names itself; a bad spec says what was expected.
expect_err 1 "nope.mtx: no such file (and not a generator spec)" "missing file" \
  "$SMV" info nope.mtx
expect_err 1 "expected rand:ROWS:K" "bad spec" "$SMV" info rand:10
expect_err 1 "3000000000 entries exceed the int32 offset limit" "overflowing spec" \
  "$SMV" info rand:100000000:30

# JSON: every key, right values, valid JSON.
json_ok() { # FILE DESC: parse with python3 if there is one, else a sh check
  if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>"$T_TMP/jerr"; then ok; else
      bad "$2: invalid JSON: $(cat "$T_TMP/jerr" | tail -1)"; fi
  else
    if head -c1 "$1" | grep -q '{' && tail -n1 "$1" | grep -q '^}$' && ! grep -q 'nan\|inf' "$1"; then ok; else
      bad "$2: not a JSON object"; fi
  fi
}
expect_rc 0 "info --json" "$SMV" info --json "denserow:101:3"
cp "$OUT" "$T_TMP/d.json"
json_ok "$T_TMP/d.json" "denserow JSON"
for key in '"rows": 101' '"cols": 101' '"nnz": 401' '"row_min": 3' '"row_max": 101' \
  '"row_mean": 3.9702970297029703' '"row_stddev": ' '"empty_rows": 0' '"field": "real"' \
  '"symmetry": "general"' '"format": "coordinate"' '"histogram": [' '"source": "generator"' \
  '{"lo": 2, "hi": 3, "rows": 100}' '{"lo": 64, "hi": 127, "rows": 1}' \
  '"matrix": "denserow:101:3"' '"diag_entries": ' '"bandwidth": ' '"csr_bytes": 5220'; do
  expect_out "$key" "JSON has $key"
done
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$T_TMP/d.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert sum(b["rows"] for b in d["histogram"]) == d["rows"] == 101
assert d["nnz"] == 100 * 3 + 101 and abs(d["row_mean"] - 401 / 101) < 1e-15
PY
  then ok; else bad "JSON histogram/values do not add up"; fi
fi

# Empty matrices: valid JSON with an empty histogram.
expect_rc 0 "info empty:0:0 --json" "$SMV" info empty:0:0 --json
cp "$OUT" "$T_TMP/e.json"
json_ok "$T_TMP/e.json" "empty JSON"
expect_out '"histogram": []' "empty histogram"
expect_rc 0 "info empty:4:2 --json" "$SMV" info empty:4:2 --json
expect_out '"empty_rows": 4' "empty rows counted"
expect_out '{"lo": 0, "hi": 0, "rows": 4}' "empty-row bin"

# A symmetric pattern file: the stored lower triangle is mirrored, so nnz
# counts both halves (5 stored -> 3 diagonal + 2*2 off-diagonal = 7).
cat >"$T_TMP/sym.mtx" <<'MTX'
%%MatrixMarket matrix coordinate pattern symmetric
% a 3 x 3 symmetric pattern
3 3 5
1 1
2 1
2 2
3 2
3 3
MTX
expect_rc 0 "info symmetric file" "$SMV" info "$T_TMP/sym.mtx" --json
cp "$OUT" "$T_TMP/s.json"
json_ok "$T_TMP/s.json" "symmetric JSON"
expect_out '"nnz": 7' "symmetric expanded"
expect_out '"field": "pattern"' "field from the banner"
expect_out '"symmetry": "symmetric"' "symmetry from the banner"
expect_out '"source": "file"' "file source"
expect_rc 0 "info symmetric table" "$SMV" info "$T_TMP/sym.mtx"
expect_out "symmetric (expanded to general)" "table symmetry"

# gzip: the same matrix through smv gen -o .gz reads back identically.
"$SMV" gen "plaw:300:5" -o "$T_TMP/p.mtx.gz" 2>/dev/null
expect_rc 0 "info .mtx.gz" "$SMV" info "$T_TMP/p.mtx.gz" --json
grep -v '"matrix"\|"source"' "$OUT" >"$T_TMP/gz.json"
"$SMV" info "plaw:300:5" --json | grep -v '"matrix"\|"source"' >"$T_TMP/spec.json"
if cmp -s "$T_TMP/gz.json" "$T_TMP/spec.json"; then ok; else bad "info of gen'd .gz differs from the spec"; fi

# A malformed file: exit 1, message with file and line.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n' >"$T_TMP/bad.mtx"
expect_err 1 "bad.mtx:3" "bad file names file:line" "$SMV" info "$T_TMP/bad.mtx"

# The SpMM plan (issue 22): the same rule with or without a device.
# Row-major, X rows of at most 256 bytes and a full pass: rung 8.
expect_rc 0 "spmm plan row" $SMV info lap2d:10 --plan --k 16 --layout row
expect_out "spmm row-major k=16 f64: rowpipe" "f64 k = 16 (128 bytes), row-major: rung 8"
expect_out "128 bytes along k" "the reason names the bytes along k"
expect_out "pipelined" "the reason names the pipeline"
expect_rc 0 "spmm plan row, wide k" $SMV info lap2d:10 --plan --k 64 --layout row
expect_out "spmm row-major k=64 f64: rowvec" "f64 k = 64 (512 bytes), short rows: rung 3"
expect_rc 0 "spmm plan row, not a full pass" $SMV info lap2d:10 --plan --k 24 --layout row
expect_out "spmm row-major k=24 f64: rowvec" "k = 24 not a full pass: rung 3"
expect_rc 0 "spmm plan row, small k" $SMV info lap2d:10 --plan --k 4 --layout row
expect_out "spmm row-major k=4 f64: rowgather" "row-major k < 8: rung 9"
expect_out "no split" "the reason names the split"
expect_rc 0 "spmm plan col, small k" $SMV info lap2d:10 --plan --k 4 --layout col
expect_out "spmm col-major k=4 f64: colsplit" "column-major k < 8, rows of 5: rung 5"
expect_rc 0 "spmm plan col, small k, long rows" $SMV info plaw:4000:16 --plan --k 4 --layout col
expect_out "spmm col-major k=4 f64: coltrans" "column-major k < 8, rows of 16: rung 6"
expect_out "rung 9" "the reason names rung 9 inside"
expect_rc 0 "spmm plan hubs" $SMV info denserow:300:3,cols=900 --plan --k 32 --precision f32
expect_out "spmm row-major k=32 f32: rowpipe" "a long row, f32 k = 32: rung 8"
expect_out "spmm col-major k=32 f32: coltrans" "column-major k = 32: rung 6"
expect_out "4-element loads" "f32 row-major k = 32: 16-byte loads"
expect_rc 0 "spmm plan hubs, wide k" $SMV info denserow:300:3,cols=900 --plan --k 128 --precision f32 --layout row
expect_out "spmm row-major k=128 f32: rowstream" "a long row, f32 k = 128 (512 bytes): rung 10"
expect_rc 0 "spmm plan hubs, wider k" $SMV info denserow:300:3,cols=900 --plan --k 256 --precision f32 --layout row
expect_out "spmm row-major k=256 f32: rowstream" "a long row, f32 k = 256 (two vectors a lane): rung 10"
expect_rc 0 "spmm plan hubs, widest k" $SMV info denserow:300:3,cols=900 --plan --k 512 --precision f32 --layout row
expect_out "spmm row-major k=512 f32: rowsplit" "a long row, f32 k = 512 (four vectors a lane): rung 4"
expect_rc 0 "spmm plan k=1" $SMV info lap2d:10 --plan --k 1 --layout col
expect_out "col-major k=1 f64: spmv" "k = 1: the SpMV engine"
expect_err 2 "--k" "k = 0" $SMV info lap2d:10 --plan --k 0
expect_err 2 "--k and --layout go with --plan" "k without plan" $SMV info lap2d:10 --k 4
expect_err 2 "--layout" "bad layout" $SMV info lap2d:10 --plan --k 4 --layout diag
expect_err 2 "--layout goes with --k" "layout without k" $SMV info lap2d:10 --plan --layout row
# --reuse [N] (issue 23 item 3): the SpMV plan's option; bare is the flag,
# a number (or =N) the expected calls; parsed before any device is needed.
expect_err 2 "--reuse goes with --plan" "reuse without plan" $SMV info lap2d:10 --reuse
expect_err 2 "--reuse goes with --plan" "reuse with --k" $SMV info lap2d:10 --plan --k 4 --reuse 5000
expect_err 2 "want an expected call count" "reuse=abc" $SMV info lap2d:10 --plan --reuse=abc
expect_err 2 "want an expected call count" "reuse 0" $SMV info lap2d:10 --plan --reuse 0
run $SMV info lap2d:10 --plan --reuse 5000
if [ "$RC" -eq 0 ]; then
  grep -q "reuse declared (5000 expected calls >= 960)" "$OUT" && ok || bad "info --plan --reuse 5000: no reuse reason"
elif [ "$RC" -eq 1 ] && grep -q "needs a CUDA device" "$ERR"; then
  ok # parsed; no device here
else
  bad "info --plan --reuse 5000: exit $RC"
fi
run $SMV info --reuse lap2d:10 --plan
if [ "$RC" -eq 0 ]; then
  grep -q "reuse declared (SMV_MATRIX_REUSE)" "$OUT" && ok || bad "info --reuse (bare): no reuse reason"
elif [ "$RC" -eq 1 ] && grep -q "needs a CUDA device" "$ERR"; then
  ok # the matrix was not taken as N
else
  bad "info --reuse lap2d:10 --plan: exit $RC"
fi
run $SMV info lap2d:10 --plan --reuse 100
if [ "$RC" -eq 0 ]; then
  grep -q "below the reuse threshold 960" "$OUT" && ok || bad "info --reuse 100: no threshold note"
elif [ "$RC" -eq 1 ]; then ok; else bad "info --plan --reuse 100: exit $RC"; fi
$SMV info --help >"$T_TMP/h"
grep -q -- "--reuse \[N\]" "$T_TMP/h" && ok || bad "info --help lacks --reuse"

finish
