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
. "$(dirname "$0")/ncu.sh"
prof rmat128-rowsplit rmat:20:16 128 rowsplit 'spmm_row'
prof rmat128-cusparse rmat:20:16 128 cusparse-alg2 '^(?!spmm_)'
prof plaw128-rowsplit plaw:1000000:16 128 rowsplit 'spmm_row'
prof plaw32-rowpipe plaw:1000000:16 32 rowpipe 'spmm_row'
prof plaw32-cusparse plaw:1000000:16 32 cusparse-alg3 '^(?!spmm_)'
prof rmat32-rowpipe rmat:20:16 32 rowpipe 'spmm_row'
