#!/bin/sh
# The README's C example (examples/spmv.c) builds and gives the right answer
# on the GPU when there is one, else on the CPU.
. tests/cli/lib.sh
EX="${SMV_BUILD:-build}/examples/spmv"
if [ ! -x "$EX" ]; then
  bad "examples/spmv not built ($EX)"
else
  expect_rc 0 "example on its default matrix" "$EX"
  expect_out "lap3d:32: 32768 x 32768, nnz 223232" "example reports the matrix"
  expect_out "(ok)" "example verified against the reference"
  expect_rc 0 "example on a rectangular matrix with empty rows" "$EX" "band:50:2,cols=300"
  expect_rc 0 "example on an empty matrix" "$EX" "empty:7:3"
  expect_err 1 "no such file" "example on a missing file" "$EX" /nonexistent.mtx
fi
finish
