# test_mm.sh — Matrix Market errors and vectors as the smv command shows
# them: "smv: FILE:LINE: reason" on stderr, exit 1; vectors in any of the
# accepted shapes work as --x.
. tests/cli/lib.sh
D=tests/data

expect_err 1 "smv: $D/bad/row_zero.mtx:4: row index 0 out of range 1..3" \
  "bad index" "$SMV" info "$D/bad/row_zero.mtx"
expect_err 1 "smv: $D/bad/complex.mtx:1: complex matrices are not supported" \
  "complex" "$SMV" info "$D/bad/complex.mtx"
expect_err 1 "smv: $D/bad/truncated.mtx.gz: truncated gzip data" \
  "truncated gzip" "$SMV" info "$D/bad/truncated.mtx.gz"
expect_err 1 "smv: $D/bad/nnz_overflow.mtx:2: size line: 3000000000 entries exceed" \
  "overflow" "$SMV" info "$D/bad/nnz_overflow.mtx"
expect_err 1 "$D/bad/too_few.mtx:6: the file ends after 3 of 5 entries" \
  "too few" "$SMV" info "$D/bad/too_few.mtx"

# A gzip file without the .gz suffix is recognised by its magic.
expect_rc 0 "gzip without suffix" "$SMV" info "$D/valid/gzip_nosuffix.mtx"
expect_out "nnz           5" "gzip without suffix: nnz"

# y = A x with A = [2 -1 0; -1 0 -1; 0 -1 2] (symmetric file) and
# x = (1.5, -2, 0) as an n x 1 array, a 1 x n array: y = (5, -1.5, 2).
for x in vec_col.mtx vec_row.mtx; do
  expect_rc 0 "spmv --x $x" "$SMV" spmv "$D/valid/real_symmetric.mtx" \
    --x "$D/valid/$x" --backend cpu
  if [ "$(sed -n '3,5p' "$OUT" | tr '\n' ' ')" = "5 -1.5 2 " ]; then ok; else
    bad "spmv --x $x: y is $(tr '\n' ' ' <"$OUT")"
  fi
done
# A matrix that is not a vector, as --x.
expect_err 1 "not a vector: a 3 x 4 matrix" "matrix as --x" \
  "$SMV" spmv "$D/valid/real_general.mtx" --x "$D/valid/real_general.mtx" \
  --backend cpu
finish
