#!/bin/bash
# scripts/gpu/bench.sh — part `bench` of scripts/gpu-check.sh: build smv for
# sm_90 and run the benchmark set on the GPU machine, in one call; results
# under $OUT (default /tmp/smv-gpu-bench). Alone or through the entry point:
#
#   scripts/gpu/bench.sh [ladder] [sweep]           (no argument = both)
#   scripts/gpu-check.sh bench | bench:ladder | bench:sweep
#
#   ladder: every rung and cuSPARSE on the real matrices ($SMV_MATRICES,
#           default .shared/matrices, carried by the device tool) plus
#           lap3d:160, rand:2000000:16 and plaw:2000000:16, f64 and f32,
#           L2-warm, L2-flushed and CUDA graph; plus auto (rung 0, the
#           engine's choice), verified and timed like the others
#           (bench/results/<device>/ladder.md);
#   sweep:  block size 32..1024 for each of our kernels with the calculated
#           occupancy, on one large DRAM-bound generated matrix
#           (rand:2000000:16) and one small real one (delaunay_n16, the
#           size of the seed's mark3jac140: 65536 rows, ~393k nonzeros)
#           (bench/results/<device>/occupancy.md).
#
# SMV_COMMIT: the commit to stamp on the binary and the summary (the device
# machine's copy of the tree has no .git, so without it the results say
# "unknown"). SMV_LADDER: matrices for the ladder instead of the set above
# (a re-run of a few).
# Time: SMV_BENCH_BUDGET seconds in all (default 450); each part runs under
# `timeout` so the summary always prints, and CSV is written matrix by
# matrix, so a part cut short still leaves what it finished. Files under
# $OUT (at most 8, the device tool's limit): ladder.{txt,csv,json},
# sweep.{txt,csv}, gpu-bench-summary.txt, logs.tgz (build, device test,
# stderr). Make PNGs on a machine with gnuplot: scripts/plot-bench.sh.
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-bench}
mkdir -p "$OUT"
LOGS=$(mktemp -d)
MATS=${SMV_MATRICES:-.shared/matrices}
BUDGET=${SMV_BENCH_BUDGET:-450}
START=$SECONDS
parts=${*:-ladder sweep}
summary=$OUT/gpu-bench-summary.txt
: >"$summary"

note "gpu-bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device name,driver_version,clocks.sm,clocks.mem)"

gpu_build all build/tests/test_bench_gpu

# The timing code's own device test first: a bench that cannot time is
# not a result.
t=$SECONDS
timeout 120 build/tests/test_bench_gpu >"$LOGS/test_bench_gpu.log" 2>&1
note "test_bench_gpu: rc=$? ($((SECONDS - t)) s): $(grep '^RESULT' "$LOGS/test_bench_gpu.log")"
grep -E 'FAIL|CHECK' "$LOGS/test_bench_gpu.log" | head -10

SMV=build/smv
status=0
for p in $parts; do
  case $p in
  ladder)
    if [ -n "${SMV_LADDER:-}" ]; then
      mats=$SMV_LADDER
      gen=
    else
      mats=$(ls "$MATS"/*.mtx.gz 2>/dev/null | sort)
      gen="lap3d:160 rand:2000000:16 plaw:2000000:16"
      [ -n "$mats" ] || note "ladder: no matrices in $MATS (carry .shared): generated ones only"
    fi
    # keep ~100 s for the sweep when it follows
    lim=$(($(gpu_left) - 110))
    case " $parts " in *" sweep "*) ;; *) lim=$(($(gpu_left) - 10)) ;; esac
    t=$SECONDS
    timeout -k 5 "$lim" $SMV bench --backend cuda $mats $gen \
      --alg all,auto --precision both --flush-l2 --graph-batch 100 --graph-replays 20 \
      --runs 200 --warmup 10 --max-time 1 --label ladder \
      --csv "$OUT/ladder.csv" --json "$OUT/ladder.json" \
      >"$OUT/ladder.txt" 2>"$LOGS/ladder.err"
    rc=$?
    [ $rc -eq 0 ] || status=1
    note "ladder: rc=$rc ($((SECONDS - t)) s, limit $lim s): $(grep '^summary:' "$OUT/ladder.txt")"
    [ $rc -eq 124 ] && note "ladder: cut short by the time limit; CSV holds the finished matrices"
    tail -5 "$LOGS/ladder.err"
    ;;
  sweep)
    small="$MATS/delaunay_n16.mtx.gz"
    [ -f "$small" ] || small=lap2d:256
    lim=$(($(gpu_left) - 10))
    t=$SECONDS
    timeout -k 5 "$lim" $SMV bench --backend cuda rand:2000000:16 "$small" --block sweep \
      --precision f64 --runs 50 --warmup 5 --max-time 0.5 --label sweep \
      --csv "$OUT/sweep.csv" >"$OUT/sweep.txt" 2>"$LOGS/sweep.err"
    rc=$?
    [ $rc -eq 0 ] || status=1
    note "sweep: rc=$rc ($((SECONDS - t)) s, limit $lim s): $(grep '^summary:' "$OUT/sweep.txt")"
    tail -5 "$LOGS/sweep.err"
    ;;
  *) note "unknown part '$p' (want ladder or sweep)" ;;
  esac
done

tar czf "$OUT/logs.tgz" -C "$LOGS" .
rm -rf "$LOGS"
note "total: $((SECONDS - START)) s"
echo "==== summary"
cat "$summary"
exit $status
