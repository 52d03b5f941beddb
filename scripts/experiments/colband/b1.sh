#!/bin/bash
# b1.sh — SpMM rung 11 (colband, A split into bands of columns sized to the
# L2) on its first device: the SpMM device tests (test_colband: forced
# band counts against the CPU reference, beta in the first band with
# entries, one band = AUTO's bits) and memcheck of test_colband, then the
# GNN rows where X is past the L2: power-law (uniform columns) and R-MAT
# (hot columns), row-major, f32 k = 16, 32, 64 and f64 k = 16, 32, against
# AUTO and cuSPARSE ALG3, at the default band count (60% of the L2 a band)
# and, at f32 k = 32, forced counts 2, 3, 4, 8. Every case verified first.
# About 4 minutes.
#   OUT=dir scripts/experiments/colband/b1.sh      (after `make all tests`)
set -u
OUT=${OUT:-/tmp/colband}
mkdir -p "$OUT"
SMV_TEST_ONLY=test_colband timeout 100 build/tests/test_cuda_spmm >"$OUT/test.log" 2>&1
echo "test_cuda_spmm (test_colband): exit $?: $(grep '^RESULT' "$OUT/test.log" | tail -1)"
grep -E "CHECK failed|FAIL" "$OUT/test.log" | head -8
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SMV_TEST_ONLY=test_colband timeout 120 "$SAN" --tool memcheck \
  --error-exitcode 99 build/tests/test_cuda_spmm >"$OUT/san.log" 2>&1
echo "memcheck test_colband: exit $?: $(grep -E 'ERROR SUMMARY|^RESULT' "$OUT/san.log" | tr '\n' ' ')"
bench() { # tag, bands ("" = default), prec, k list, algs
  SMV_SPMM_BANDS=$2 timeout 100 build/smv bench-spmm plaw:1000000:16 \
    rmat:20:16 --k "$4" --prec "$3" --layout row --algs "$5" --runs 10 \
    --csv "$OUT/b1-$1.csv" >"$OUT/b1-$1.log" 2>&1
  echo "$1 (bands ${2:-default}, $3, k $4): exit $?"
  cut -d, -f4-7,10 "$OUT/b1-$1.csv" | grep -v '^matrix'
}
bench f32-def "" f32 16,32,64 auto,colband,cusparse-alg3
for b in 2 3 4 8; do bench f32-b$b $b f32 32 colband; done
bench f64-def "" f64 16,32 auto,colband,cusparse-alg3
