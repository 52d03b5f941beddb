#!/bin/bash
# v11.sh — the first run of this stop's device code that no GPU has run
# yet (commits 3232e5e..fb041a3): rung 10 through the plan and the shared
# rung 4 driver (rungs 8 and 10), rung 6 running the row-major plan's rung
# inside, the short-row counter of the device-array statistics pass, and
# the new tests (the window-edge matrix, rung 10 against the reference),
# rung 4's chunk order (SMV_SPMM_CHUNK_ORDER=1, same bits as row order).
# Every SpMM and device-matrix test, the CLI scripts that print plans,
# the Python SpMM and device-array tests, memcheck on the SpMM tests.
#   OUT=dir scripts/experiments/verify/v11.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
for t in test_cuda_spmm test_cuda_spmm_plan test_cuda_matrix_device \
  test_cuda_transpose_spmm; do
  [ -x build/tests/$t ] || continue
  timeout 300 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -8
done
for s in test_bench_spmm test_info; do
  SMV=build/smv timeout 300 sh tests/cli/$s.sh >"$OUT/$s.log" 2>&1
  echo "tests/cli/$s.sh: exit $?: $(tail -1 "$OUT/$s.log")"
  grep -E "FAIL|not ok" "$OUT/$s.log" | head -8
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 200 \
  python3 -m pytest -q tests/python/test_device.py tests/python/test_smv.py >"$OUT/pytest.log" 2>&1
echo "pytest (spmm, device arrays): exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in "test_cuda_spmm test_rowstream_bits" "test_cuda_spmm test_rungs" \
  "test_cuda_spmm test_chunk_order_bits" \
  "test_cuda_matrix_device test_matches_host"; do
  set -- $t
  SMV_TEST_SHORT=1 SMV_TEST_ONLY=$2 timeout 200 "$SAN" --tool memcheck \
    --error-exitcode 99 build/tests/$1 >"$OUT/san-$1-$2.log" 2>&1
  echo "memcheck $1 $2: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san-$1-$2.log" | tr '\n' ' ')"
done
