#!/bin/bash
# o1.sh — rung 4's chunk kernel with the chunks taken by their place in
# their rows (SMV_SPMM_CHUNK_ORDER=1) against row order, on the graphs whose
# hub rows are most of the work (rmat:20:16: 64% of its entries in rows
# past a chunk; gnn/n1 found that kernel at 92% of the L2's throughput and
# 55% hits at f32 k = 128; an LRU model predicts 86% hits by place). AUTO
# (rungs 8 and 10 run the same chunk kernel) and rung 4 at f32 k = 32, 128
# and f64 k = 64, row-major, both orders in one call; every case verified
# first. The bits are the same in both orders (test_chunk_order_bits).
#   OUT=dir scripts/experiments/chunkorder/o1.sh
set -u
OUT=${OUT:-/tmp/chunkorder}
mkdir -p "$OUT"
for o in 0 1; do
  SMV_SPMM_CHUNK_ORDER=$o timeout 150 build/smv bench-spmm rmat:20:16 \
    plaw:1000000:16 --k 32,128 --prec f32 --layout row \
    --algs auto,rowsplit --runs 20 --csv "$OUT/o1-f32-order$o.csv" \
    >"$OUT/o1-f32-order$o.log" 2>&1
  echo "f32, order $o: exit $?"
  cut -d, -f4-10 "$OUT/o1-f32-order$o.csv" | grep -v '^matrix'
  SMV_SPMM_CHUNK_ORDER=$o timeout 100 build/smv bench-spmm rmat:20:16 \
    --k 64 --prec f64 --layout row --algs auto,rowsplit --runs 20 \
    --csv "$OUT/o1-f64-order$o.csv" >"$OUT/o1-f64-order$o.log" 2>&1
  echo "f64, order $o: exit $?"
  cut -d, -f4-10 "$OUT/o1-f64-order$o.csv" | grep -v '^matrix'
done
