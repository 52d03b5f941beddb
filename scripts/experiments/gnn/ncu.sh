# ncu.sh — sourced by gnn/n1.sh and n2.sh: the Nsight Compute counters
# they read (M) and the profile of one bench-spmm case:
#   prof LABEL MATRIX K ALG KERNEL-REGEX   (PREC: f32 here, the caller may
#                                           set it; OUT and NCU: the caller)
# one launch profiled per matched kernel after the verifying run and a
# warm-up (--launch-skip 2); if the regex matches nothing, the first six
# launches after four; the counters printed per kernel, the whole report
# in $OUT/LABEL.txt.
PREC=f32
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
