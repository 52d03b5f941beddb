#!/bin/sh
# bench_shared_cores.sh BASE_SMV NEW_SMV [RUNS] — the CPU paths on a machine
# whose cores are shared (issue 25, item 15): two smv binaries (before and
# after a change) side by side, each case with the default OpenMP settings
# and with OMP_NUM_THREADS=1 (the serial reference), while one competing job
# (a busy shell loop) runs for the whole measurement.
#   solve: `smv solve SPEC --backend cpu`, the whole process's wall time (s)
#   bench: `smv bench SPEC --backend cpu`, its warm median per product (us)
# Runs alternate between the binaries, so a drift of the machine's load
# touches both. Prints CSV on stdout (bench/results/<machine>/raw/):
#   case,build,threads,run,value,unit,loadavg
# Needs no GPU; python3 reads the bench's CSV. SMV_COMMIT_BASE and
# SMV_COMMIT_NEW label the builds.
set -eu
BASE=${1:?usage: bench_shared_cores.sh BASE_SMV NEW_SMV [RUNS]}
NEW=${2:?usage: bench_shared_cores.sh BASE_SMV NEW_SMV [RUNS]}
RUNS=${3:-3}
LB=${SMV_COMMIT_BASE:-base} LN=${SMV_COMMIT_NEW:-new}
TMP=$(mktemp -d)
sh -c 'while :; do :; done' &
BUSY=$!
trap 'kill $BUSY 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
echo "case,build,threads,run,value,unit,loadavg"
one() { # one CASE SPEC BIN LABEL THREADS RUN
  kind=$1 spec=$2 bin=$3 label=$4 thr=$5 r=$6
  if [ "$thr" = default ]; then set --; else set -- "OMP_NUM_THREADS=$thr"; fi
  if [ "$kind" = solve ]; then
    t0=$(now)
    env "$@" "$bin" solve "$spec" --backend cpu >/dev/null 2>&1
    t1=$(now)
    v=$(echo "$t0 $t1" | awk '{printf "%.4f", $2 - $1}')
    unit=s
  else
    env "$@" "$bin" bench "$spec" --backend cpu --runs 200 --warmup 20 --quiet \
      --csv "$TMP/b.csv" >/dev/null 2>&1
    # warm_median_ms of the OpenMP row ("cpu"), in microseconds
    v=$(python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["alg"] == "cpu":
        print("%.1f" % (1000 * float(r["warm_median_ms"])))' "$TMP/b.csv")
    unit=us
  fi
  echo "$kind $spec,$label,$thr,$r,$v,$unit,$(load)"
}
# CASES: "KIND SPEC" pairs separated by commas (default: the four below).
CASES=${CASES:-solve lap2d:300,solve lap2d:100,bench lap2d:200,bench lap2d:130}
echo "$CASES" | tr ',' '\n' | while read -r c; do
  set -- $c
  kind=$1 spec=$2
  r=1
  while [ "$r" -le "$RUNS" ]; do
    for thr in default 1; do
      one "$kind" "$spec" "$BASE" "$LB" "$thr" "$r"
      one "$kind" "$spec" "$NEW" "$LN" "$thr" "$r"
    done
    r=$((r + 1))
  done
done
