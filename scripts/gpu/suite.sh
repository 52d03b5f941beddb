#!/bin/bash
# scripts/gpu/suite.sh — part `suite` of scripts/gpu-check.sh: issue 8's
# benchmark suite in one call on the GPU machine. `smv bench --suite
# issue8` (21 generated matrices past the L2, plus the real matrices of
# $SMV_MATRICES, default .shared/matrices): AUTO, rungs 9 and 10 and
# cuSPARSE ALG1/ALG2, f64 and f32, L2-warm, L2-flushed and CUDA graph,
# every cell verified first.
#
#   SMV_COMMIT=<hash> scripts/gpu/suite.sh
#   scripts/gpu-check.sh suite
#
# Files under $OUT (default /tmp/smv-gpu-suite): suite.csv (row by row, so
# a run cut short keeps what it finished), suite.md (the bench's tables),
# suite.txt, suite.err, build.log. The whole bench runs under
# SMV_SUITE_BUDGET seconds (default 560). Results:
# bench/results/<device>/suite.md, whose tables are
# `scripts/suite-report.py suite.csv --png-dir suite-plots`.
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-suite}
mkdir -p "$OUT"
LOGS=$OUT
MATS=${SMV_MATRICES:-.shared/matrices}
summary=$OUT/summary.txt
: >"$summary"

note "suite: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device)"
gpu_build all

t=$SECONDS
timeout "${SMV_SUITE_BUDGET:-560}" build/smv bench --suite issue8 \
  --matrices "$MATS" --alg auto,adaptive,tiled,cusparse-alg1,cusparse-alg2 \
  --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 \
  --quiet --csv "$OUT/suite.csv" --markdown "$OUT/suite.md" \
  >"$OUT/suite.txt" 2>"$OUT/suite.err"
rc=$?
note "suite: rc=$rc ($((SECONDS - t)) s), $(grep -c ',PASS,' "$OUT/suite.csv" 2>/dev/null) rows PASS, $(grep -c ',FAIL,' "$OUT/suite.csv" 2>/dev/null) FAIL"
tail -40 "$OUT/suite.txt"
tail -5 "$OUT/suite.err"
echo "==== summary"
cat "$summary"
exit $rc
