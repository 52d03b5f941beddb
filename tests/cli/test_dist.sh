#!/bin/sh
# test_dist.sh — distributed SpMV (issue 11) under mpirun with 1..4 CPU
# ranks (--oversubscribe: CI has 2 cores): the library tests of
# mpi_dist.c, then `mpirun smv spmv|bench` against the single-process CLI.
# Skips when smv was built without MPI or mpirun is missing.
. "$(dirname "$0")/lib.sh"
: "${SMV_BUILD:=build}"
MPI_TEST="$SMV_BUILD/mpitests/mpi_dist"
MPIRUN=${MPIRUN:-$(command -v mpirun 2>/dev/null)}
if [ ! -x "$MPI_TEST" ] || [ -z "$MPIRUN" ]; then
  skip "smv built without MPI, or no mpirun (install libopenmpi-dev openmpi-bin)"
  finish
  exit 0
fi
# Root in CI containers; one OpenMP thread per rank (ranks already
# oversubscribe the cores); Open MPI's own allocations are not ours to
# report under LeakSanitizer.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
export LSAN_OPTIONS="suppressions=$(pwd)/tests/data/lsan-mpi.supp:print_suppressions=0"
# Full stacks, so leaks inside MPI components it unloads at MPI_Finalize
# still show libmpi frames the suppressions match.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
mpi() { np=$1; shift; "$MPIRUN" -np "$np" --oversubscribe "$@"; }

for np in 1 2 3 4; do
  mpi "$np" "$MPI_TEST" >"$OUT" 2>"$ERR"
  rc=$?
  res=$(grep '^RESULT ' "$OUT" | tail -n 1)
  set -- $res
  if [ "$rc" -eq 0 ] && [ -n "$res" ] && [ "$3" -eq 0 ]; then
    T_PASS=$((T_PASS + $2)) T_SKIP=$((T_SKIP + $4))
  else
    bad "mpi_dist with $np ranks: exit $rc, '$res'"
    grep -v '^skip' "$ERR" | head -20 >&2
  fi
done

# The CLI: y from N ranks matches y from one process. The local and remote
# blocks are summed separately, so rows with off-rank entries may differ in
# the last bits: compare with a relative 1e-13 (far inside the bound for
# rows of a few entries) and the same header.
same_vec() { # FILE1 FILE2
  [ "$(grep -v '^%' "$1" | head -n1)" = "$(grep -v '^%' "$2" | head -n1)" ] || return 1
  grep -v '^%' "$1" | tail -n +2 >"$T_TMP/a.txt"
  grep -v '^%' "$2" | tail -n +2 >"$T_TMP/b.txt"
  paste "$T_TMP/a.txt" "$T_TMP/b.txt" | awk '
    { d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1;
      if (d > 1e-13 * m + 1e-300) bad++; n++ }
    END { exit (bad > 0 || n == 0) }'
}
if ! "$SMV" version >/dev/null 2>&1; then
  skip "no $SMV"
  finish
  exit 0
fi
# (Few mpirun calls: each costs seconds under the sanitizers.)
for case in "lap2d:6 2 3 4" "rand:30:4,cols=17 3" "diag:5 4"; do
  set -- $case
  spec=$1
  shift
  "$SMV" spmv "$spec" --backend cpu >"$T_TMP/one.mtx" 2>/dev/null
  for np in "$@"; do
    run mpi "$np" "$SMV" spmv "$spec" --backend cpu
    if [ "$RC" -eq 0 ] && same_vec "$OUT" "$T_TMP/one.mtx"; then ok; else
      bad "mpirun -np $np smv spmv $spec differs from one process (exit $RC)"
      head -5 "$ERR" >&2
    fi
  done
done
run mpi 3 "$SMV" spmv lap2d:4 --partition rows -o "$T_TMP/y3.mtx"
"$SMV" spmv lap2d:4 --backend cpu -o "$T_TMP/y1.mtx" 2>/dev/null
if [ "$RC" -eq 0 ] && same_vec "$T_TMP/y1.mtx" "$T_TMP/y3.mtx"; then ok; else bad "spmv -o with --partition rows"; fi
expect_rc 0 "bench on 2 ranks" mpi 2 "$SMV" bench lap2d:20 rand:300:5 --runs 3 --warmup 1
expect_out "verified: 400 x 400" "bench verifies"
expect_out "| rank | rows |" "bench prints the per-rank table"
expect_rc 0 "strong scaling on 3 ranks" mpi 3 "$SMV" bench lap3d:8 --scaling strong --runs 2 --warmup 0
expect_out "| 3 | 512 |" "strong scaling reaches 3 ranks"
expect_rc 0 "weak scaling on 4 ranks" mpi 4 "$SMV" bench band:100:2 --scaling weak --runs 2 --warmup 0
expect_out "| 4 | 400 |" "weak scaling grows the matrix"
expect_rc 0 "--dist with one rank" mpi 1 "$SMV" spmv lap2d:3 --dist
expect_err 2 "--partition must be" "bad --partition" mpi 2 "$SMV" spmv lap2d:3 --partition cols
expect_err 1 "no-such.mtx" "missing matrix" mpi 2 "$SMV" spmv no-such.mtx
expect_err 1 "not nccl" "nccl on the CPU backend" mpi 2 "$SMV" spmv lap2d:3 --backend cpu --exchange nccl

# Issue 25, item 13: the ranks agree on the command line and fail together.
# Each of these used to leave one rank waiting in MPI_Allreduce until the
# job was killed: a timeout (exit 124) is a hang.
mpmd() { # mpmd "ARGS OF RANK 0" "ARGS OF RANK 1": one rank each
  timeout 60 "$MPIRUN" --oversubscribe -np 1 "$SMV" $1 : -np 1 "$SMV" $2
}
for pair in "spmv lap2d:3|spmv lap2d:3 --bogus" "spmv lap2d:3|spmv lap2d:3 --help" \
  "spmv lap2d:3|spmv lap2d:3 --alpha 2" "spmv lap2d:3|solve lap2d:3" \
  "bench lap2d:3 --runs 2|bench lap2d:3 --runs 3" "solve lap2d:3|spmv lap2d:3"; do
  a=${pair%%|*} b=${pair#*|}
  run mpmd "$a" "$b"
  if [ "$RC" -eq 2 ] && grep -qF "were not given the same command line" "$ERR"; then ok; else
    bad "rank 0 '$a', rank 1 '$b': exit $RC (124: hung)"
    head -3 "$ERR" >&2
  fi
done
# A usage error, --help, or no device on every rank: all leave together.
expect_err 2 "unknown option" "usage error on 2 ranks" timeout 60 "$MPIRUN" -np 2 --oversubscribe "$SMV" spmv lap2d:3 --bogus
expect_rc 0 "--help on 2 ranks" timeout 60 "$MPIRUN" -np 2 --oversubscribe "$SMV" spmv --help
if [ "$(grep -c '^usage: mpirun' "$OUT")" -eq 1 ]; then ok; else bad "--help printed $(grep -c '^usage: mpirun' "$OUT") times"; fi
if ! "$SMV" info lap2d:2 --plan >/dev/null 2>&1; then
  # (no device here: --backend cuda is refused by every rank, before the
  # matrix is built)
  expect_err 1 "rank 1: --backend cuda: no CUDA device" "--backend cuda without devices" \
    timeout 60 "$MPIRUN" -np 2 --oversubscribe "$SMV" spmv lap2d:3 --backend cuda
else
  skip "a CUDA device: --backend cuda runs"
fi
# Item 14: commands that are not distributed refuse more than one rank,
# naming those that are; with one rank they run as usual.
for c in "solve lap2d:4" "pagerank rmat:6:4 --pattern" "info lap2d:3" "gen lap2d:3 -o -"; do
  expect_err 2 "The distributed commands are 'mpirun -np N smv spmv' and 'mpirun -np N smv bench'" \
    "mpirun -np 2 smv $c refused" timeout 60 "$MPIRUN" -np 2 --oversubscribe "$SMV" $c
  if [ "$(grep -c 'is not distributed' "$ERR")" -eq 1 ]; then ok; else bad "$c: message not once"; fi
done
expect_rc 0 "mpirun -np 1 smv solve runs" timeout 60 "$MPIRUN" -np 1 "$SMV" solve lap2d:4
expect_out "(converged)" "mpirun -np 1 smv solve converges"
expect_rc 0 "mpirun -np 2 smv solve --help" timeout 60 "$MPIRUN" -np 2 --oversubscribe "$SMV" solve --help
# Item 8: rank 0 checks --x's declared length at its size line.
printf '%%%%MatrixMarket matrix array real general\n2147483647 1\n1\n' >"$T_TMP/hugex.mtx"
expect_err 1 "hugex.mtx:2: vector has 2147483647 entries, expected 9" "mpirun spmv --x declaring 2^31-1" \
  timeout 60 "$MPIRUN" -np 2 --oversubscribe "$SMV" spmv lap2d:3 --x "$T_TMP/hugex.mtx"
finish
