#!/bin/bash
# v7.sh — compute-sanitizer memcheck, racecheck and synccheck on
# test_cuda_sanitize (every rung, rung 14's cp.async stages among them, on
# empty rows, rectangular shapes, a row longer than a block, nnz = 0).
#   OUT=dir scripts/experiments/verify/v7.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  ex=""
  [ $tool = racecheck ] && ex="--kernel-name-exclude kns=cusparse"
  timeout 200 "$SAN" --tool $tool --error-exitcode 99 $ex \
    build/tests/test_cuda_sanitize >"$OUT/san-$tool.log" 2>&1
  echo "$tool: exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^RESULT' "$OUT/san-$tool.log" | tr '\n' ' ')"
done
