#!/bin/bash
# scripts/gpu/spmm.sh — part `spmm` of scripts/gpu-check.sh: one device
# round for SpMM (issue 22) and the transposed product, in one call:
#   1. build (nvcc -arch=sm_90) the library, the CLI and the SpMM tests;
#   2. the SpMM device tests (every rung against the CPU reference: hub and
#      empty rows, k tails, both layouts and precisions, alpha/beta, NaN
#      poison, aliasing; the plan) and the transposed SpMV/SpMM tests, then
#      compute-sanitizer memcheck of the SpMM device tests;
#   3. the suite: smv bench-spmm --suite quick (default; spmm:quick) or
#      --suite full (spmm:full), every case verified against the CPU
#      reference before it is timed, AUTO against every cuSPARSE SpMM
#      algorithm; then torch.sparse.mm on the same matrices, k, layouts and
#      precisions (scripts/spmm_torch.py, where torch is installed);
#   4. the verdict: scripts/spmm_summary.py (ratio vs the fastest cuSPARSE
#      and vs torch per case, the issue's goals).
#   SMV_COMMIT=abc123 scripts/gpu/spmm.sh [quick|full|gnn|...] [MATRIX_DIR]
#   scripts/gpu-check.sh spmm:quick        (or spmm:full)
# Files under $OUT: spmm.csv (bench-spmm, every algorithm), torch.csv,
# summary.md + summary.csv (the verdict), bench.md, logs.tgz. Results:
# bench/results/<device>/spmm.md and raw/spmm/. RUNS overrides the suite's
# timed runs; SMV_SPMM_ALGS the algorithms (below). The quick suite takes about 3 minutes of GPU time (an
# estimate: not yet run); full does not fit one 10-minute device call, so
# run its classes as parts of their own: spmm:gnn, spmm:local,
# spmm:random, spmm:graph, spmm:real (the last with .shared carried). The
# Python package's tests moved to their own part (scripts/gpu/python.sh).
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-spmm}
SUITE=${1:-quick}
MDIR=${2:-${SMV_MATRICES:-.shared/matrices}}
mkdir -p "$OUT"
LOGS=$(mktemp -d)
CSR=$(mktemp -d) # the raw CSR dumps for torch: large, never under $OUT
summary=$OUT/summary.txt
: >"$summary"
trap 'rm -rf "$CSR"' EXIT
note "spmm ($SUITE): $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device name,driver_version,memory.total)"
TESTS="test_cuda_spmm test_cuda_spmm_plan test_spmm_cpu test_cuda_transpose_spmm test_transpose_spmm_cpu"
gpu_build all $(for t in $TESTS; do echo build/tests/$t; done)

t0=$SECONDS
for t in $TESTS; do
  build/tests/$t >"$LOGS/$t.log" 2>&1
  note "$t: exit $?: $(tail -1 "$LOGS/$t.log")"
  grep -m5 FAIL "$LOGS/$t.log"
done
SMV=build/smv sh tests/cli/test_bench_spmm.sh >"$LOGS/cli.log" 2>&1
note "tests/cli/test_bench_spmm.sh: exit $?: $(tail -1 "$LOGS/cli.log")"
for t in test_cuda_spmm test_cuda_spmm_plan; do
  SMV_TEST_SHORT=1 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
    build/tests/$t >"$LOGS/memcheck-$t.log" 2>&1
  note "memcheck $t: exit $? $(grep 'ERROR SUMMARY' "$LOGS/memcheck-$t.log")"
done
note "tests: $((SECONDS - t0)) s"

case $SUITE in
quick) K=1,4,32,128 ;;
gnn) K=32,64,128 ;;
small) K=1,3,8,33 ;;
*) K=1,4,16,64,128,256 ;;
esac
t0=$SECONDS
runs=()
[ -n "${RUNS:-}" ] && runs=(--runs "$RUNS")
# SMV_SPMM_ALGS (a list for --algs, e.g. "auto,ours,spmv,rowvec,rowsplit,
# colsplit,coltrans,cusparse-alg1,cusparse-alg2,cusparse-alg3") times
# every rung named instead of the suite's AUTO + cuSPARSE.
[ -n "${SMV_SPMM_ALGS:-}" ] && runs+=(--algs "$SMV_SPMM_ALGS")
SMV_MATRICES=$MDIR build/smv bench-spmm --suite "$SUITE" "${runs[@]}" \
  --csv "$OUT/spmm.csv" --markdown "$OUT/bench.md" --dump "$CSR" \
  >"$LOGS/bench.log" 2>&1
note "bench-spmm --suite $SUITE: exit $?, $((SECONDS - t0)) s, $(grep -c ',PASS,' "$OUT/spmm.csv") verified rows, $(grep -cE ',(FAIL|ERROR),' "$OUT/spmm.csv") FAIL/ERROR"
grep -E 'FAIL|ERROR|skipped' "$LOGS/bench.log" | head -20
t0=$SECONDS
lay=both prec=both
[ "$SUITE" = gnn ] && lay=row prec=f32
timeout 400 python3 scripts/spmm_torch.py --dump "$CSR" --k "$K" --prec $prec \
  --layout $lay --runs "${RUNS:-30}" --csv "$OUT/torch.csv" >"$LOGS/torch.log" 2>&1
note "torch: exit $?, $((SECONDS - t0)) s: $(head -1 "$LOGS/torch.log")"
tors=()
[ -s "$OUT/torch.csv" ] && tors=("$OUT/torch.csv")
python3 scripts/spmm_summary.py "$OUT/spmm.csv" "${tors[@]}" \
  --csv="$OUT/summary.csv" >"$OUT/summary.md" 2>"$LOGS/summary.log"
note "summary: exit $?"
sed -n '/^## Goals/,$p' "$OUT/summary.md" | tee -a "$summary"
tar czf "$OUT/logs.tgz" -C "$LOGS" . && rm -rf "$LOGS"
echo "==== summary"
cat "$summary"
