#!/bin/bash
# n1.sh — issue 22's GNN rows still below 1.2x cuSPARSE (f32, row-major:
# rmat:20:16 k = 128 at 1.15x, plaw:1000000:16 k = 32 at 1.07x and
# k = 128 at 1.15x): what limits them, from Nsight Compute's counters on
# our kernels (rungs 4 and 8, AUTO's picks) and on the fastest cuSPARSE
# algorithm of each row. The question it answers: is the row bound by the
# DRAM (dram__throughput near its peak: only fewer bytes help), by the L2
# (lts__t_sectors near its peak with DRAM idle: hot X rows kept in shared
# memory would help, as SpMV rung 12 does), or by neither (latency: more
# rows or entries in flight would help). One launch profiled per case,
# after the verifying run and a warm-up (--launch-skip 2).
#   OUT=dir scripts/experiments/gnn/n1.sh
set -u
OUT=${OUT:-/tmp/gnn}
mkdir -p "$OUT"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
prof() { # label matrix k alg kernel-regex
  timeout 200 "$NCU" --clock-control none --metrics "$M" -k "regex:$5" \
    --launch-skip 2 --launch-count 2 build/smv bench-spmm "$2" --k "$3" \
    --prec f32 --layout row --algs "$4" --runs 3 >"$OUT/$1.txt" 2>&1
  echo "== $1 rc=$?"
  if ! grep -q gpu__time "$OUT/$1.txt"; then # the regex matched nothing
    timeout 200 "$NCU" --clock-control none --metrics "$M" --launch-skip 4 \
      --launch-count 6 build/smv bench-spmm "$2" --k "$3" --prec f32 \
      --layout row --algs "$4" --runs 3 >"$OUT/$1.txt" 2>&1
    echo "== $1 (every kernel) rc=$?"
  fi
  grep -E "^  [a-zA-Z_]|^    (gpu__|dram|lts|l1tex|sm__|smsp|launch)" "$OUT/$1.txt" |
    awk '/^  [a-zA-Z_]/{print "  " substr($1,1,60); next} {print "    " $1, $NF}'
}
prof rmat128-rowsplit rmat:20:16 128 rowsplit 'spmm_row'
prof rmat128-cusparse rmat:20:16 128 cusparse-alg2 '^(?!spmm_)'
prof plaw128-rowsplit plaw:1000000:16 128 rowsplit 'spmm_row'
prof plaw32-rowpipe plaw:1000000:16 32 rowpipe 'spmm_row'
prof plaw32-cusparse plaw:1000000:16 32 cusparse-alg3 '^(?!spmm_)'
prof rmat32-rowpipe rmat:20:16 32 rowpipe 'spmm_row'
