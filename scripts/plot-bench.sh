#!/bin/sh
# scripts/plot-bench.sh — PNGs from benchmark CSVs fetched from the GPU
# machine (which has no gnuplot), made here with gnuplot.
#
#   scripts/plot-bench.sh [-o DIR] FILE.csv...
#
# For each CSV, `smv bench --from-csv FILE.csv --plot DIR/NAME.png` draws:
# a block-sweep CSV -> one PNG per matrix and precision (time and
# calculated occupancy against block size); a ladder CSV -> one PNG per
# precision (effective GB/s and speedup over cuSPARSE ALG1 per matrix and
# rung). DIR defaults to the CSV's folder; NAME is the CSV's name. The
# gnuplot script and data (.gp, .dat) stay beside each PNG.
# Uses $SMV, else build/smv, else build-cpu/smv (built with make CUDA=0 if
# missing): plotting needs no GPU.
set -eu
cd "$(dirname "$0")/.."
dir=
if [ "${1:-}" = "-o" ]; then
  [ $# -ge 2 ] || { echo "usage: $0 [-o DIR] FILE.csv..." >&2; exit 2; }
  dir=$2
  shift 2
fi
[ $# -ge 1 ] || { echo "usage: $0 [-o DIR] FILE.csv..." >&2; exit 2; }
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot-bench: gnuplot not found: apt-get install gnuplot-nox" >&2
  exit 1
fi
smv=${SMV:-}
if [ -z "$smv" ]; then
  if [ -x build/smv ]; then smv=build/smv
  else
    [ -x build-cpu/smv ] || make -s CUDA=0 build-cpu/smv >/dev/null
    smv=build-cpu/smv
  fi
fi
for csv in "$@"; do
  out=${dir:-$(dirname "$csv")}
  mkdir -p "$out"
  name=$(basename "$csv" .csv)
  "$smv" bench --from-csv "$csv" --quiet --plot "$out/$name.png"
done
