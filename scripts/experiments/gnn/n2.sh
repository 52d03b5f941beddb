#!/bin/bash
# n2.sh — the one GNN-layout row found below cuSPARSE outside the quick
# suite: rmat:20:16 f64 row-major k = 16 (rung 8 0.89x, rung 4 0.96x
# cuSPARSE ALG3; colband/b1 and the follow-ups in
# bench/results/h200/spmm.md), where rmat:19:16 at the same k and f32 k =
# 32 (the same 128-byte X rows) win. Nsight Compute on rungs 4 and 8 (row
# and chunk kernels) and on ALG3, and on rung 8 at f32 k = 32 for the same
# X row width: is f64's extra 4 bytes an entry, rung 8's three blocks an
# SM (85 registers for doubles) or the chunk kernel what loses? One launch
# profiled per case after the verifying run and a warm-up.
#   OUT=dir scripts/experiments/gnn/n2.sh
set -u
OUT=${OUT:-/tmp/gnn2}
mkdir -p "$OUT"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
prof() { # label matrix k alg kernel-regex
  timeout 200 "$NCU" --clock-control none --metrics "$M" -k "regex:$5" \
    --launch-skip 2 --launch-count 2 build/smv bench-spmm "$2" --k "$3" \
    --prec $PREC --layout row --algs "$4" --runs 3 >"$OUT/$1.txt" 2>&1
  echo "== $1 rc=$?"
  if ! grep -q gpu__time "$OUT/$1.txt"; then # the regex matched nothing
    timeout 200 "$NCU" --clock-control none --metrics "$M" --launch-skip 4 \
      --launch-count 6 build/smv bench-spmm "$2" --k "$3" --prec $PREC \
      --layout row --algs "$4" --runs 3 >"$OUT/$1.txt" 2>&1
    echo "== $1 (every kernel) rc=$?"
  fi
  grep -E "^  [a-zA-Z_]|^    (gpu__|dram|lts|l1tex|sm__|smsp|launch)" "$OUT/$1.txt" |
    awk '/^  [a-zA-Z_]/{print "  " substr($1,1,60); next} {print "    " $1, $NF}'
}
PREC=f64
prof rmat16-rowsplit rmat:20:16 16 rowsplit 'spmm_row'
prof rmat16-rowpipe rmat:20:16 16 rowpipe 'spmm_row'
prof rmat16-cusparse rmat:20:16 16 cusparse-alg3 '^(?!spmm_)'
PREC=f32
prof rmat32-rowpipe-f32 rmat:20:16 32 rowpipe 'spmm_row'
