#!/bin/bash
# scripts/gpu/python.sh — part `python` of scripts/gpu-check.sh: the Python
# package on the GPU machine. Builds build/libsmv.so for sm_90, then runs
#   python3 -m pytest -q tests/python                  (the package's tests)
#   python3 scripts/python/bench_python.py --out "$OUT/python"
#                                                      (its benchmark)
# with SMV_LIB=build/libsmv.so, each only where its file exists (a missing
# one is skipped with a note). PYTHON overrides python3.
#
#   SMV_COMMIT=<hash> scripts/gpu/python.sh
#   scripts/gpu-check.sh python
#
# Files under $OUT (default /tmp/smv-gpu-python): pytest.log, bench.log,
# python/ (what the benchmark writes), build.log, summary.txt.
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-python}
mkdir -p "$OUT"
LOGS=$OUT
summary=$OUT/summary.txt
: >"$summary"
PY=${PYTHON:-python3}
export SMV_LIB=$PWD/build/libsmv.so PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
status=0

note "python: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device); $($PY --version 2>&1); $($PY -c 'import numpy, scipy; print("numpy", numpy.__version__, "scipy", scipy.__version__)' 2>&1 | tail -1)"
gpu_build all

if [ -d tests/python ]; then
  t=$SECONDS
  $PY -m pytest -q tests/python >"$OUT/pytest.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  note "pytest tests/python: rc=$rc ($((SECONDS - t)) s): $(tail -1 "$OUT/pytest.log")"
  grep -E '^(FAILED|ERROR)' "$OUT/pytest.log" | head -20
else
  note "pytest: tests/python missing, skipped"
fi

if [ -f scripts/python/bench_python.py ]; then
  t=$SECONDS
  mkdir -p "$OUT/python"
  # SMV_PY_BENCH_ARGS: more options (e.g. --suites real --precisions f64)
  $PY scripts/python/bench_python.py --out "$OUT/python" ${SMV_PY_BENCH_ARGS:-} \
    >"$OUT/bench.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  note "bench_python.py: rc=$rc ($((SECONDS - t)) s), $(ls "$OUT/python" | wc -l) files in python/"
  tail -20 "$OUT/bench.log"
else
  note "bench_python.py: scripts/python/bench_python.py missing, skipped"
fi
echo "==== summary"
cat "$summary"
exit $status
