#!/bin/bash
# session 17: rung 10 with a preferred smem carveout (SMV_DEV_CARVE), scattered matrices past the L2
cd "$(dirname "$0")/.."
make -j16 all GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
MS="rand:2000000:16,cols=1000000 rmat:22:16 plaw:4000000:16 lap3d:160,perm=rand band:8000000:8"
for c in def 0 20 40 60; do
  if [ $c = def ]; then unset SMV_DEV_CARVE; else export SMV_DEV_CARVE=$c; fi
  timeout 150 build/smv bench $MS --alg stream,cusparse-alg1,cusparse-alg2 --precision both --runs 30 --max-time 0.15 --graph-batch 0 --quiet --csv $OUT/c-$c.csv >/dev/null 2>&1
  echo "carve=$c rc=$? $SECONDS s"
done
ncu --clock-control none --metrics launch__shared_mem_config_size,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct --launch-skip 3 --launch-count 1 -k regex:spmv_stream build/smv bench rand:2000000:16,cols=1000000 --alg stream --precision f32 --runs 3 --graph-batch 0 --quiet 2>&1 | grep -E "launch__|sm__|l1tex" 
SMV_DEV_CARVE=0 ncu --clock-control none --metrics launch__shared_mem_config_size,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct --launch-skip 3 --launch-count 1 -k regex:spmv_stream build/smv bench rand:2000000:16,cols=1000000 --alg stream --precision f32 --runs 3 --graph-batch 0 --quiet 2>&1 | grep -E "launch__|sm__|l1tex"
cd $OUT && tar czf csv.tgz *.csv && rm -f *.csv
