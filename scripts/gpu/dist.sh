#!/bin/bash
# scripts/gpu/dist.sh — part `dist` of scripts/gpu-check.sh: distributed
# SpMV (issue 11) on the GPU machine in ONE call: build with MPI (+ NCCL),
# the MPI tests with the CUDA backend under mpirun -np 1/2/4 (ranks sharing
# the one GPU), the CLI against the single process, then timings: strong scaling (1, 2, 4 ranks) with the
# host-staged and the CUDA-aware exchange, weak scaling, CPU ranks, and
# the NCCL fallback. Logs in $OUT/gpu-dist.tgz, a summary last. Results:
# bench/results/<device>/dist.md.
#   SMV_COMMIT=<hash> scripts/gpu/dist.sh
#   scripts/gpu-check.sh dist
# (scripts/gpu/dist-ranks.sh, part `dist-ranks`, is the short run: strong
# scaling of stencil27 and R-MAT on CPU ranks and on GPU ranks.)
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT_FINAL=${OUT:-/tmp/smv-gpu-dist}
WORK=$(mktemp -d)
mkdir -p "$OUT_FINAL"
summary=$WORK/summary.txt
: >"$summary"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export SMV_COMMIT=$COMMIT
RUNS=${RUNS:-30}
MATS=${MATS:-"lap3d:128 band:2000000:13 plaw:2000000:16 rand:2000000:16"}

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  echo "commit $SMV_COMMIT"
  nvidia-smi
  nvidia-smi topo -m
  mpirun --version
  ompi_info | grep -i -E 'cuda|btl|pml' | head -20
  grep -E '#define NCCL_(MAJOR|MINOR|PATCH)' /usr/include/nccl.h
} >"$WORK/env.txt" 2>&1
note "device: $(gpu_device)"
note "commit: $SMV_COMMIT; $(date -u +%Y-%m-%dT%H:%MZ); OMP_NUM_THREADS=$OMP_NUM_THREADS"
note "MPI CUDA support: $(ompi_info --parsable --all 2>/dev/null | grep mpi_built_with_cuda_support:value | head -1)"

t=$SECONDS
make -j16 SM=90 GIT_COMMIT="$SMV_COMMIT" all build/mpitests/mpi_dist build/dist_model >"$WORK/build.log" 2>&1
rc=$?
note "build: rc=$rc ($((SECONDS - t)) s); $(make -s dist-info 2>/dev/null)"
[ $rc -eq 0 ] || { tail -30 "$WORK/build.log"; tar -C "$WORK" -czf "$OUT_FINAL/gpu-dist.tgz" .; exit 1; }

mpi() { np=$1; shift; mpirun -np "$np" --oversubscribe "$@"; }

# 1. correctness: library tests with the CUDA backend as well
for np in 1 2 4; do
  t=$SECONDS
  SMV_DIST_TEST_CUDA=1 timeout 150 mpirun -np $np --oversubscribe build/mpitests/mpi_dist >"$WORK/test-np$np.log" 2>&1
  note "mpi_dist np $np (CPU + CUDA backends): rc=$? ($((SECONDS - t)) s): $(grep '^RESULT' "$WORK/test-np$np.log" | tail -1)"
  grep -E '^np |FAIL|CHECK failed' "$WORK/test-np$np.log" | head -8 | tee -a "$summary"
done

# 2. the CLI: y from 2 and 4 GPU ranks vs one CPU process
build/smv spmv rand:200000:16 --backend cpu >"$WORK/y1.mtx" 2>/dev/null
for np in 2 4; do
  for ex in host cuda-aware; do
    timeout 60 mpirun -np $np build/smv spmv rand:200000:16 --backend cuda --exchange $ex -v >"$WORK/y$np.mtx" 2>"$WORK/spmv-$np-$ex.err"
    r=$?
    cmpres=$(python3 - "$WORK/y1.mtx" "$WORK/y$np.mtx" <<'PY'
import sys
a=[l for l in open(sys.argv[1]) if not l.startswith('%')][1:]
b=[l for l in open(sys.argv[2]) if not l.startswith('%')][1:]
if len(a)!=len(b) or not a: print("length differs"); sys.exit()
w=max(abs(float(x)-float(y))/max(abs(float(x)),1e-300) for x,y in zip(a,b))
print("max rel diff %.3g over %d rows" % (w,len(a)))
PY
)
    note "spmv np $np --exchange $ex vs one CPU process: rc=$r, $cmpres; $(tail -1 "$WORK/spmv-$np-$ex.err")"
  done
done
timeout 60 mpirun -np 2 build/smv spmv lap3d:20 --backend cuda --exchange nccl -v >/dev/null 2>"$WORK/nccl.err"
note "spmv np 2 --exchange nccl (one GPU): rc=$?: $(grep -i nccl "$WORK/nccl.err" | tail -2 | tr '\n' ' ')"

# 3. timings
bench() { # name timeout args...
  local name=$1 to=$2
  shift 2
  local t=$SECONDS
  timeout "$to" "$@" >"$WORK/$name.md" 2>"$WORK/$name.err"
  note "$name: rc=$? ($((SECONDS - t)) s)"
  # the scaling rows (12 columns) and their headings, not the per-rank ones
  awk -F'|' '/^## / || (NF == 14 && $2 ~ /[0-9]/)' "$WORK/$name.md" >>"$summary"
  tail -2 "$WORK/$name.err"
}
bench strong-host 110 mpirun -np 4 build/smv bench $MATS --backend cuda --exchange host --scaling strong --runs $RUNS -v
bench strong-aware 90 mpirun -np 4 build/smv bench $MATS --backend cuda --exchange cuda-aware --scaling strong --runs $RUNS -v
bench weak-host 60 mpirun -np 4 build/smv bench lap3d:100 rand:1000000:16 --backend cuda --exchange host --scaling weak --runs $RUNS
OMP_NUM_THREADS=1 bench cpu-strong 70 mpirun -np 8 --bind-to core build/smv bench lap3d:100 rand:1000000:16 plaw:1000000:16 --backend cpu --scaling strong --runs 20

tar -C "$WORK" -czf "$OUT_FINAL/gpu-dist.tgz" .
cp "$summary" "$OUT_FINAL/summary.txt"
echo "==== summary"
cat "$summary"
