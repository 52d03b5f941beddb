#!/bin/bash
# s1.sh — SpMM rung 10 (rowstream: a warp streams 32 rows' entries as one
# sequence at X rows of a whole warp) against rung 4 (AUTO's rung there),
# rung 8 and every cuSPARSE SpMM algorithm, row-major, f32 k = 128, 256
# and f64 k = 64, 128 on the quick suite's graphs and stencil plus a
# larger power-law graph; every case verified against the CPU reference
# first. The SpMM device tests first (rung 10 must give rung 4's bits),
# memcheck of the bits test, then Nsight Compute on rung 10's row kernel
# where gnn/n1 found rung 4's latency-bound (rmat:20:16 f32 k = 128).
#   OUT=dir scripts/experiments/rowstream/s1.sh
set -u
OUT=${OUT:-/tmp/rowstream}
mkdir -p "$OUT"
for t in test_cuda_spmm test_cuda_spmm_plan; do
  timeout 300 build/tests/$t >"$OUT/$t.log" 2>&1
  echo "$t: exit $?: $(tail -1 "$OUT/$t.log")"
  grep -E "CHECK failed|FAIL" "$OUT/$t.log" | head -8
done
SMV=build/smv timeout 300 sh tests/cli/test_bench_spmm.sh >"$OUT/cli.log" 2>&1
echo "test_bench_spmm.sh: exit $?: $(tail -2 "$OUT/cli.log" | tr '\n' ' ')"
SMV_TEST_ONLY=test_rowstream_bits timeout 300 compute-sanitizer \
  --tool memcheck build/tests/test_cuda_spmm >"$OUT/memcheck.log" 2>&1
echo "memcheck rowstream bits: exit $?: $(grep -E 'ERROR SUMMARY|RESULT' "$OUT/memcheck.log" | tr '\n' ' ')"
timeout 300 build/smv bench-spmm rmat:20:16 plaw:1000000:16 stencil27:80 \
  --k 128,256 --prec f32 --layout row \
  --algs auto,rowsplit,rowpipe,rowstream,cusparse-alg2,cusparse-alg3 \
  --runs 20 --csv "$OUT/s1-f32.csv" >"$OUT/s1-f32.log" 2>&1
echo "bench f32: exit $?"
cut -d, -f4-11 "$OUT/s1-f32.csv"
timeout 300 build/smv bench-spmm rmat:20:16 plaw:1000000:16 stencil27:80 \
  --k 64,128 --prec f64 --layout row \
  --algs auto,rowsplit,rowstream,cusparse-alg2,cusparse-alg3 \
  --runs 20 --csv "$OUT/s1-f64.csv" >"$OUT/s1-f64.log" 2>&1
echo "bench f64: exit $?"
cut -d, -f4-11 "$OUT/s1-f64.csv"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__issue_active.avg.pct_of_peak_sustained_active
timeout 200 "$NCU" --clock-control none --metrics "$M" -k regex:spmm_row \
  --launch-skip 2 --launch-count 2 build/smv bench-spmm rmat:20:16 --k 128 \
  --prec f32 --layout row --algs rowstream --runs 3 >"$OUT/ncu-rmat128.txt" 2>&1
echo "ncu: exit $?"
grep -E "^  [a-zA-Z_]|^    (gpu__|dram|lts|l1tex|sm__|smsp|launch)" "$OUT/ncu-rmat128.txt" |
  awk '/^  [a-zA-Z_]/{print "  " substr($1,1,60); next} {print "    " $1, $(NF-1), $NF}'
