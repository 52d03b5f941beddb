#!/bin/bash
# session 17: rung 10 change 8 cap 100 KB (committed, 43%) vs 92 KB (40%): config, occupancy, time
cd "$(dirname "$0")/.."
M=launch__shared_mem_config_size,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,gpu__time_duration.sum
for cap in 100 92; do
  sed -i "s/LD == SMV_TILE_EF_TG ? [0-9]* : 0;/LD == SMV_TILE_EF_TG ? $cap : 0;/" src/cuda/spmv_10_stream.cu
  make -j16 all GIT_COMMIT=cap$cap >$OUT/build-$cap.log 2>&1 || { tail -20 $OUT/build-$cap.log; exit 1; }
  timeout 120 ncu --clock-control none --cache-control none --metrics $M --launch-skip 3 --launch-count 1 -k regex:spmv_stream build/smv bench rmat:22:16 --alg stream --precision f32 --runs 3 --graph-batch 0 --quiet 2>&1 | grep -E "launch__|sm__|l1tex|gpu__" | sed "s/^/cap $cap /"
  timeout 150 build/smv bench rmat:22:16 rand:2000000:16,cols=1000000 --alg stream,cusparse-alg1,cusparse-alg2 --precision f32 --runs 50 --max-time 0.2 --graph-batch 0 --quiet --csv $OUT/k-$cap.csv >/dev/null 2>&1; echo "cap $cap bench rc=$? $SECONDS s"
done
