#!/bin/bash
# scripts/gpu-check.sh — the one GPU entry point: everything the GPU machine
# is for, in ONE call. It builds once (nvcc -arch=sm_90), then runs the parts
# named, in order; each part is scripts/gpu/PART.sh (which also runs alone,
# with its own $OUT), and scripts/gpu/common.sh holds what they share.
#
#   SMV_COMMIT=$(git rev-parse --short=12 HEAD) \
#     scripts/gpu-check.sh [PART[:ARG,...]]...       (default: test micro bench)
#
#   test        `make test` (every test, the device tests on the real
#               matrices included), then compute-sanitizer memcheck,
#               racecheck and synccheck                       (gpu/test.sh)
#   micro       the microbenchmarks; micro:NAME,... (or micro-NAME) runs
#               some only                 (gpu/micro.sh; micro/results/)
#   bench       the ladder (every rung and cuSPARSE, warm, flushed, graph)
#               and the block sweep; bench:ladder or bench:sweep for one
#               (gpu/bench.sh; bench/results/<device>/ladder.md, occupancy.md)
#   kern        issue 8's kernel round: device tests, sanitizers, the large
#               matrices and the real ones; kern:test,large,real picks
#               (gpu/kern.sh; kernels-issue8.md)
#   suite       smv bench --suite issue8 (+ the real matrices): AUTO, rungs 9
#               and 10 and cuSPARSE ALG1/ALG2, f64 and f32, warm/flushed/graph
#               (gpu/suite.sh; suite.md)
#   solvers     CG, BiCGStab and PageRank against cuSPARSE+cuBLAS, CuPy and
#               SciPy; solvers:quick for two small matrices
#               (gpu/solvers.sh; solvers.md)
#   spmm        SpMM and transposed SpMV: device tests, memcheck, then the
#               suite (spmm:quick, about 3 minutes, or spmm:full) against
#               every cuSPARSE SpMM and torch.sparse.mm, with the verdict
#               (gpu/spmm.sh; spmm.md)
#   dist        distributed SpMV: MPI tests with the CUDA backend, the CLI
#               against one process, strong and weak scaling, NCCL fallback
#               (gpu/dist.sh; dist.md)
#   dist-ranks  stencil27 and R-MAT strong scaling on CPU ranks (16 cores)
#               and on GPU ranks sharing the GPU    (gpu/dist-ranks.sh; dist.md)
#   tune        smv info --plan --tune on a few matrices: the measured plan
#               (gpu/tune.sh; suite.md)
#   python      pytest of tests/python and scripts/python/bench_python.py
#               where they exist                            (gpu/python.sh)
#   exp         experiment scripts by name: exp:rowpipe/r1,packed/p1 runs
#               scripts/experiments/rowpipe/r1.sh and packed/p1.sh
#                                                              (gpu/exp.sh)
#
# The device copy has no .git: pass the commit from here as SMV_COMMIT=<hash>
# so every binary and results file names it. The real matrices are read from
# .shared/matrices (device tool: carry [".shared"]; SMV_MATRICES overrides).
# Budgets: SMV_SOLVERS_BUDGET (default 330 s) caps the solvers part;
# SMV_PART_BUDGET (seconds, default none) caps every other part; the
# parts carry their own inner limits too (see each file). Full logs and every part's
# files go to $OUT/gpu-check.tgz (one file, so the device tool's 8-file limit
# never bites; never committed: unpack it and copy the summary tables and
# CSVs into bench/results/<device>/). A summary is printed last.
set -uo pipefail
. "$(dirname "$0")/gpu/common.sh"
OUT_FINAL=${OUT:-/tmp/smv-gpu-check}
WORK=$(mktemp -d)
mkdir -p "$OUT_FINAL"
parts=${*:-test micro bench}
export SMV_MATRICES=${SMV_MATRICES:-.shared/matrices}
summary=$WORK/summary.txt
: >"$summary"

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  echo "commit $COMMIT"
  nvidia-smi
  nvcc --version | tail -2
} >"$WORK/env.txt" 2>&1
note "device: $(gpu_device)"

export SMV_COMMIT=$COMMIT
export MAKEFLAGS="GIT_COMMIT=$SMV_COMMIT"
note "commit: $SMV_COMMIT"
t0=$SECONDS
targets="all tests"
case " $parts " in *" micro"*) targets="$targets micro" ;; esac
make -j16 SM=90 $targets >"$WORK/build.log" 2>&1
rc=$?
note "build: rc=$rc ($((SECONDS - t0)) s), warnings: $(grep -c 'warning' "$WORK/build.log")"
[ $rc -eq 0 ] || { tail -40 "$WORK/build.log"; }

status=0
for p in $parts; do
  part=${p%%:*}
  args=
  case $p in *:*) args=$(echo "${p#*:}" | tr ',' ' ') ;; esac
  case $part in micro-*) args=${part#micro-} part=micro ;; esac
  name=$(echo "$p" | tr ':,/' '---')
  script=scripts/gpu/$part.sh
  if [ ! -f "$script" ] || [ "$part" = common ]; then
    note "unknown part $p (parts: $(ls scripts/gpu | sed -n 's/\.sh$//p' | grep -v '^common$' | tr '\n' ' '))"
    status=1
    continue
  fi
  [ "$part" = test ] && args="make-test $args"
  lim=${SMV_PART_BUDGET:-0}
  [ "$part" = solvers ] && lim=${SMV_SOLVERS_BUDGET:-330}
  mkdir -p "$WORK/$name"
  t=$SECONDS
  # shellcheck disable=SC2086
  OUT="$WORK/$name" timeout "$lim" bash "$script" $args >"$WORK/$name.log" 2>&1
  r=$?
  [ $r -eq 0 ] || status=1
  note "$name: rc=$r ($((SECONDS - t)) s)$([ $r -eq 124 ] && echo ", cut at $lim s")"
  # The part's own summary (what follows its last "==== summary" line),
  # else the end of its output.
  if grep -q '^==== ' "$WORK/$name.log"; then
    awk '/^==== / { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' \
      "$WORK/$name.log" | sed 's/^/  /' | tee -a "$summary"
  else
    tail -25 "$WORK/$name.log" | sed 's/^/  /' | tee -a "$summary"
  fi
  # After every part, so a call cut at the device's limit still brings
  # back what the finished parts wrote.
  tar czf "$OUT_FINAL/gpu-check.tgz" -C "$WORK" .
done

tar czf "$OUT_FINAL/gpu-check.tgz" -C "$WORK" .
echo "==== summary"
cat "$summary"
exit $status
