#!/bin/bash
# v11.sh — the part of this stop's untested device code (commits
# 3232e5e..fd88460) that `scripts/gpu-check.sh spmm:quick` does not test:
# spmm:quick runs test_cuda_spmm (rung 10 through the plan, the shared
# rung 4 driver, rung 6's inner rung, the window-edge matrix, the chunk
# order), test_cuda_spmm_plan, the transposed products, test_bench_spmm.sh
# and memcheck of the SpMM tests; this adds the short-row counter of the
# device-array statistics pass (test_cuda_matrix_device compares the SpMM
# plans of device- and host-built matrices), `smv info --plan`, the
# Python device-array tests, and memcheck of the statistics pass. Run it
# after spmm:quick:  scripts/gpu-check.sh spmm:quick exp:verify/v11
#   OUT=dir scripts/experiments/verify/v11.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
timeout 200 build/tests/test_cuda_matrix_device >"$OUT/matrix_device.log" 2>&1
echo "test_cuda_matrix_device: exit $?: $(grep '^RESULT' "$OUT/matrix_device.log" | tail -1)"
grep -E "CHECK failed|FAIL" "$OUT/matrix_device.log" | head -8
SMV=build/smv timeout 200 sh tests/cli/test_info.sh >"$OUT/test_info.log" 2>&1
echo "tests/cli/test_info.sh: exit $?: $(tail -1 "$OUT/test_info.log")"
grep -E "FAIL|not ok" "$OUT/test_info.log" | head -8
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 200 \
  python3 -m pytest -q tests/python/test_device.py >"$OUT/pytest.log" 2>&1
echo "pytest test_device.py: exit $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SMV_TEST_ONLY=test_matches_host timeout 200 "$SAN" --tool memcheck \
  --error-exitcode 99 build/tests/test_cuda_matrix_device >"$OUT/san.log" 2>&1
echo "memcheck test_matches_host: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san.log" | tr '\n' ' ')"
