#!/bin/bash
# scripts/gpu/dist-ranks.sh — part `dist-ranks` of scripts/gpu-check.sh:
# distributed SpMV, strong scaling of stencil27:100 and rmat:20:16 with
# `mpirun smv bench`, on CPU ranks (8 ranks, one core each) and on GPU
# ranks sharing the one GPU (4 ranks, host-staged exchange). Every product
# is verified first (the bench's rule). The full round (MPI tests, the
# CLI against one process, weak scaling, NCCL fallback) is
# scripts/gpu/dist.sh.
#
#   SMV_COMMIT=<hash> scripts/gpu/dist-ranks.sh
#   scripts/gpu-check.sh dist-ranks
#
# Needs smv built with MPI (mpicc on the machine). Files under $OUT
# (default /tmp/smv-gpu-dist-ranks): dist-cpu.md and dist-gpu.md (the
# bench's tables), the same as .csv (scripts/md-tables-csv.py), their .err,
# build.log. Results:
# bench/results/<device>/dist.md.
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-dist-ranks}
mkdir -p "$OUT"
LOGS=$OUT
summary=$OUT/summary.txt
: >"$summary"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

note "dist-ranks: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device)"
gpu_build all

t=$SECONDS
OMP_NUM_THREADS=1 timeout 100 mpirun -np 8 --bind-to core build/smv bench \
  stencil27:100 rmat:20:16 --backend cpu --scaling strong --runs 20 \
  >"$OUT/dist-cpu.md" 2>"$OUT/dist-cpu.err"
note "dist cpu ranks: rc=$? ($((SECONDS - t)) s)"
t=$SECONDS
OMP_NUM_THREADS=2 timeout 80 mpirun -np 4 --oversubscribe build/smv bench \
  stencil27:100 rmat:20:16 --backend cuda --exchange host --scaling strong \
  --runs 20 >"$OUT/dist-gpu.md" 2>"$OUT/dist-gpu.err"
note "dist gpu ranks: rc=$? ($((SECONDS - t)) s)"
# The tables as CSV too (bench/results keeps a summary and its CSV).
for f in dist-cpu dist-gpu; do
  python3 scripts/md-tables-csv.py "$OUT/$f.md" >"$OUT/$f.csv" 2>>"$OUT/$f.err"
done
tail -30 "$OUT/dist-cpu.md" "$OUT/dist-gpu.md"
echo "==== summary"
cat "$summary"
