#!/bin/bash
# session 18: why is rung 12 slow in f64 / perm=rand? ncu counters
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
M=gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__occupancy_limit_shared_mem,launch__shared_mem_config_size,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,l1tex__t_requests_pipe_lsu_mem_global_op_ld_lookup_miss.sum
run() { # label matrix prec block hb alg
  SMV_HOT_BYTES=$5 timeout 150 ncu --clock-control none --metrics $M --launch-skip 3 --launch-count 1 -k regex:'spmv_hot|spmv_stream' build/smv bench $2 --block $4 --alg $6 --precision $3 --runs 3 --graph-batch 0 --quiet >$OUT/ncu-$1.txt 2>&1
  echo "== $1 rc=$?"; grep -E "^\s+(l1tex|lts|gpu__|sm__|launch|smsp)" $OUT/ncu-$1.txt | awk '{print $1, $NF}' | tr '\n' ';'; echo
}
run f64-hot8k rmat:22:16 f64 256 8192 hot
run f64-hot0 rmat:22:16 f64 256 0 hot
run f64-perm-hot8k rmat:22:16,perm=rand f64 256 8192 hot
run f32-hot48k-512 rmat:22:16 f32 512 49152 hot
run f32-perm-hot48k-512 rmat:22:16,perm=rand f32 512 49152 hot
run f32-perm-stream rmat:22:16,perm=rand f32 256 0 stream
