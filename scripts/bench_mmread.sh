#!/bin/sh
# bench_mmread.sh — Matrix Market read speed: smv_mm_read against
# scipy.io.mmread (Debian's python3-scipy, /usr/bin/python3), on the same
# generated files, in the same run, warm page cache.
#
#   scripts/bench_mmread.sh [SPEC] [RUNS] [SCIPY_RUNS]
#                               (default rand:500000:16, 5 runs, scipy 3)
#
# Writes SPEC as .mtx (plain, about 300 MB for the default) and .mtx.gz
# with smv's writer into $TMPDIR, times every reader RUNS times and prints
# a Markdown table (median seconds; file MB/s counts the file as stored,
# i.e. compressed bytes for .gz; text MB/s counts the uncompressed text;
# MB = 10^6 bytes) plus the machine and the date.
# Both readers are single-threaded; scipy is timed for mmread alone (a COO
# matrix) and for mmread + tocsr() (the CSR smv_mm_read returns).
set -eu
SPEC=${1:-rand:500000:16}
RUNS=${2:-5}
SCIPY_RUNS=${3:-3}
cd "$(dirname "$0")/.."
make -s CUDA=0 lib >/dev/null
BUILD=build-cpu
TMP=${TMPDIR:-/tmp}/smv_bench_mmread.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM
cc -std=c11 -O2 -Iinclude scripts/bench_mmread.c "$BUILD/libsmv.a" -fopenmp -lz -lm -o "$TMP/bench_mmread"
"$TMP/bench_mmread" gen "$SPEC" "$TMP/m.mtx" >/dev/null
"$TMP/bench_mmread" gen "$SPEC" "$TMP/m.mtx.gz" >/dev/null

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
size() { wc -c <"$1" | tr -d ' '; }

smv_time() { "$TMP/bench_mmread" read "$1" "$RUNS" | awk '{print $1}' | median; }
scipy_time() { # $1 file, $2 coo|csr
  /usr/bin/python3 - "$1" "$2" "$SCIPY_RUNS" <<'PY'
import sys, time, scipy.io
path, kind, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
for _ in range(runs):
    t = time.perf_counter()
    A = scipy.io.mmread(path)
    if kind == "csr":
        A = A.tocsr()
    print(time.perf_counter() - t)
PY
}

row() { # name file seconds
  awk -v n="$1" -v b="$(size "$2")" -v x="$(size "$TMP/m.mtx")" -v t="$3" \
    'BEGIN {printf "| %s | %.1f | %.3f | %.1f | %.1f |\n", n, b/1e6, t, b/1e6/t, x/1e6/t}'
}

SCIPY=$(/usr/bin/python3 -c 'import scipy, numpy; print("scipy", scipy.__version__, "numpy", numpy.__version__)' 2>/dev/null || echo "scipy unavailable")
echo "Matrix Market read: $SPEC, median of $RUNS runs (scipy: $SCIPY_RUNS), warm page cache"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
echo "- machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $SCIPY, $(/usr/bin/python3 --version 2>&1)"
echo
echo "| reader | file MB | seconds | file MB/s | text MB/s |"
echo "|---|---|---|---|---|"
row "smv_mm_read .mtx" "$TMP/m.mtx" "$(smv_time "$TMP/m.mtx")"
row "smv_mm_read .mtx.gz" "$TMP/m.mtx.gz" "$(smv_time "$TMP/m.mtx.gz")"
if [ "$SCIPY" != "scipy unavailable" ]; then
  row "scipy.io.mmread .mtx (COO)" "$TMP/m.mtx" "$(scipy_time "$TMP/m.mtx" coo | median)"
  row "scipy.io.mmread .mtx + tocsr" "$TMP/m.mtx" "$(scipy_time "$TMP/m.mtx" csr | median)"
  row "scipy.io.mmread .mtx.gz + tocsr" "$TMP/m.mtx.gz" "$(scipy_time "$TMP/m.mtx.gz" csr | median)"
fi
echo
echo "- load after: $(cut -d' ' -f1-3 /proc/loadavg)"
