#!/bin/bash
# v6.sh — after rung 14 lost its local arrays and allows its shared memory
# when the attribute queries first see it: the tests that walk every
# kernel's attributes and occupancy, rung 14's and its siblings' bits, and
# the torch fast path's profile again (empty_like for square products).
#   OUT=dir scripts/experiments/verify/v6.sh
set -u
OUT=${OUT:-/tmp/verify}
mkdir -p "$OUT"
for t in test_cuda_context test_occupancy_gpu test_cuda_pipe test_cuda_packed \
  test_cuda_hot; do
  timeout 150 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(grep '^RESULT' "$OUT/$t.log" | tail -1)"
  grep -E "CHECK failed|FAIL|MISMATCH" "$OUT/$t.log" | head -12
done
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 120 \
  python3 scripts/python/prof_fastpath.py --n 10000 >"$OUT/prof.txt" 2>&1
echo "prof_fastpath: exit $?"
grep -E "c_api|M @ tx|chain|verify" "$OUT/prof.txt" | head -20
