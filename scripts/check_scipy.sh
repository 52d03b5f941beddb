#!/bin/sh
# check_scipy.sh [ARGS...] — build smv if needed, then compare it with scipy
# on every matrix in ../shared/matrices (or .shared/matrices) through
# scripts/check_scipy.py. ARGS go to the script: --backend cuda on the GPU
# machine, --precision f32, --record bench/results/DEVICE/scipy-check.md, names...
# Uses /usr/bin/python3 when it has scipy (it does here), else python3.
set -e
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
if ! "$PY" -c 'import scipy' 2>/dev/null; then PY=python3; fi
SMV_BIN=
for a in "$@"; do
  case "$a" in --smv=*) SMV_BIN=${a#--smv=} ;; esac
done
if [ -z "$SMV_BIN" ]; then
  # The CUDA build when nvcc is here (it falls back to the CPU with
  # --backend auto and reports no device with --backend cuda), else CPU-only.
  if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    make -s build/smv >&2
    SMV_BIN=build/smv
  else
    make -s CUDA=0 build-cpu/smv >&2
    SMV_BIN=build-cpu/smv
  fi
  set -- --smv "$SMV_BIN" "$@"
fi
exec "$PY" scripts/check_scipy.py "$@"
