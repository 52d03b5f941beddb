#!/bin/bash
# f1.sh — the host cost of each step of the Python fast path on CuPy and
# torch vectors (scripts/python/prof_fastpath.py), for issue 21's +4 us.
#   OUT=dir scripts/experiments/pyfast/f1.sh
set -u
OUT=${OUT:-/tmp/pyfast}
mkdir -p "$OUT"
SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python timeout 120 \
  python3 scripts/python/prof_fastpath.py --n 10000 2>&1 | tee "$OUT/f1.txt"
