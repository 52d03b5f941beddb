#!/bin/bash
# scripts/gpu/spmm.sh — part `spmm` of scripts/gpu-check.sh: one device
# round for SpMM, transpose and Python
# (issue 13): build with nvcc, run the device tests of transposed SpMV and
# SpMM, the Python package's tests and the bench-spmm CLI test, then the
# verified benchmark (smv bench-spmm, --flush) on lap3d:100,
# rand:2000000:16 and four real matrices (f64 and f32), then every test
# (tests/run.sh) and compute-sanitizer memcheck of the device test, as far
# as BUDGET seconds allow. Full logs under $OUT (logs.tgz); a short
# summary on stdout. Results: bench/results/<device>/spmm.md (the bench's
# table, raw/spmm/spmm-COMMIT.csv).
#   SMV_COMMIT=abc123 scripts/gpu/spmm.sh [MATRIX_DIR]
#   scripts/gpu-check.sh spmm
# MATRIX_DIR: the real matrices, default $SMV_MATRICES, else
# ../.shared/matrices (PREC, RUNS and BUDGET override the defaults).
set -u
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/gpu-spmm}
MDIR=${1:-${SMV_MATRICES:-../.shared/matrices}}
C=$COMMIT
mkdir -p "$OUT"
{
  echo "SMV_COMMIT=$C"
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nvcc --version | tail -2
} >"$OUT/env.txt" 2>&1
head -4 "$OUT/env.txt"
t0=$(date +%s)
if ! make -j16 SM=90 GIT_COMMIT="$C" all tests >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  exit 1
fi
echo "build: $(($(date +%s) - t0)) s"
for t in test_cuda_transpose_spmm test_transpose_spmm_cpu; do
  build/tests/$t >"$OUT/$t.log" 2>&1
  rc=$?
  echo "$t: $(tail -1 "$OUT/$t.log") (exit $rc)"
done
grep -h "FAIL\|cuSPARSE SpMM" "$OUT"/test_*.log | head -20
SMV_PYTHON=${SMV_PYTHON:-python3} sh tests/python/run.sh build >"$OUT/python.log" 2>&1
echo "python: $(tail -1 "$OUT/python.log")"
grep -E "FAILED|Error" "$OUT/python.log" | head -10
SMV=build/smv sh tests/cli/test_bench_spmm.sh >"$OUT/cli.log" 2>&1
echo "cli: $(tail -1 "$OUT/cli.log")"
grep FAIL "$OUT/cli.log" | head
echo "tests done: $(($(date +%s) - t0)) s"
M=""
for f in bcsstk33 G2_circuit cage10 wiki-Vote; do
  [ -f "$MDIR/$f.mtx.gz" ] && M="$M $MDIR/$f.mtx.gz"
done
build/smv bench-spmm --flush --prec ${PREC:-both} --runs ${RUNS:-50} --max-seconds 0.3 \
  --markdown "$OUT/spmm.md" lap3d:100 rand:2000000:16 $M >"$OUT/bench.log" 2>&1
echo "bench exit $?: $(($(date +%s) - t0)) s"
# The bench's table as CSV, the form bench/results keeps beside spmm.md:
# the device, commit and date of its first line on every row.
awk 'NR == 1 { d = $0; sub(/^device: /, "", d); sub(/, device copy.*/, "", d)
      c = $0; sub(/.*\(commit /, "", c); sub(/\).*/, "", c)
      t = $0; sub(/.*; /, "", t)
      print "device,commit,date,matrix,prec,order,k,alg,verify,warm_us,flush_us,gbps_warm,gbps_flushed,vs"; next }
    NF == 11 && $6 ~ /^(PASS|FAIL|ERROR)$/ {
      printf "%s,%s,%s", d, c, t; for (i = 1; i <= 11; i++) printf ",%s", $i; print "" }' \
  "$OUT/bench.log" >"$OUT/spmm.csv"
grep -E "^(lap3d|rand|bcsstk33|G2_|cage10|wiki)" "$OUT/bench.log" |
  awk '$5=="ours" || $5=="cusparse-alg1" {print}' | head -100
echo "bench FAIL/ERROR lines: $(grep -ciE "FAIL|ERROR" "$OUT/bench.log")"
left=$((${BUDGET:-400} - ($(date +%s) - t0)))
if [ "$left" -gt 60 ]; then
  SMV_PYTHON=${SMV_PYTHON:-python3} timeout $((left - 40)) sh tests/run.sh build >"$OUT/test-all.log" 2>&1
  echo "make test (all, exit $?): $(tail -1 "$OUT/test-all.log")"
  grep "^FAIL" "$OUT/test-all.log" | head
fi
left=$((${BUDGET:-400} - ($(date +%s) - t0)))
if [ "$left" -gt 30 ]; then
  timeout $((left - 15)) compute-sanitizer --tool memcheck --error-exitcode 9 \
    build/tests/test_cuda_transpose_spmm >"$OUT/memcheck.log" 2>&1
  echo "memcheck exit $? (124 = out of time): $(grep -c 'Invalid\|ERROR SUMMARY' "$OUT/memcheck.log") lines; $(grep 'ERROR SUMMARY' "$OUT/memcheck.log")"
fi
cd "$OUT" && tar czf logs.tgz *.log env.txt 2>/dev/null
