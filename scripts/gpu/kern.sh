#!/bin/bash
# scripts/gpu/kern.sh — part `kern` of scripts/gpu-check.sh: issue 8's
# kernel round in ONE call on the GPU machine: build for sm_90, run the
# device tests (every rung, f64 and f32, incl. rung 10 and later) with
# compute-sanitizer memcheck and racecheck on the small set, then time
# rungs 9, 10, cuSPARSE ALG1/ALG2 and AUTO on the row-length sweep past the
# L2 (L2-warm and flushed) and on the real matrices (L2-warm and inside a
# CUDA graph).
#
#   scripts/gpu/kern.sh [test] [large] [real]      (default: all three)
#   scripts/gpu-check.sh kern | kern:large,real | ...
#
# Results: bench/results/<device>/kernels-issue8.md (the large.csv and
# real.csv of each run under raw/kern-issue8/).
#
# SMV_COMMIT names the commit (the device copy has no .git). SMV_KERN_LARGE
# replaces the large-matrix list, SMV_KERN_ALGS the rungs timed,
# SMV_KERN_BUDGET (default 480) caps the seconds of the whole run: each
# bench runs under `timeout`, CSV is written matrix by matrix, and the
# summary always prints. Files under $OUT: kern-summary.txt, large.csv,
# real.csv, logs.tgz (build, tests, sanitizers, full bench output).
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-kern}
mkdir -p "$OUT"
LOGS=$(mktemp -d)
BUDGET=${SMV_KERN_BUDGET:-480}
START=$SECONDS
parts=${*:-test large real}
summary=$OUT/kern-summary.txt
: >"$summary"
MATS=${SMV_MATRICES:-.shared/matrices}
ALGS=${SMV_KERN_ALGS:-adaptive,tiled,cusparse-alg1,cusparse-alg2,auto}
LARGE=${SMV_KERN_LARGE:-band:8000000:3 band:8000000:4 band:8000000:8 band:4000000:16 band:2000000:24 band:2000000:32 band:1500000:40 band:1000000:64 lap3d:100 lap3d:250 lap2d:3000 rand:2000000:16 rand:20000000:16 plaw:2000000:16 denserow:2000000:16}

note "gpu-kern: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device)"
gpu_build all tests

# Per matrix and precision: AUTO's and every rung's warm time against the
# faster of ALG1/ALG2 (warm, flushed, graph where timed) and AUTO's % of
# the copy bandwidth (warm, flushed).
summarize() { # csv
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { k = $c["matrix"] " " $c["precision"]; a = $c["alg"]
      if (!(k in seen)) { seen[k] = 1; order[n++] = k }
      w[k, a] = $c["warm_median_ms"] * 1000; f[k, a] = $c["flushed_median_ms"] * 1000
      g[k, a] = $c["graph_median_ms"] * 1000; ok[k, a] = $c["verify"]
      pw[k, a] = $c["warm_pct_copy"]; pf[k, a] = $c["flushed_pct_copy"]
      algs[a] = 1 }
    function best(arr, k,   b1, b2) { b1 = arr[k, "cusparse-alg1"]; b2 = arr[k, "cusparse-alg2"]
      return (b2 > 0 && b2 < b1) ? b2 : b1 }
    END {
      printf "%-34s %-4s %9s %9s %9s %9s %7s %7s %7s %6s %6s %-6s %s\n", "matrix", "prec", "auto us", "best cs", "rung9", "rung10", "xwarm", "xflush", "xgraph", "%cp w", "%cp f", "verify", "xgA1"
      for (i = 0; i < n; i++) { k = order[i]; split(k, p, " ")
        bw = best(w, k); bf = best(f, k); bg = best(g, k); v = "ok"
        for (a in algs) if (ok[k, a] != "" && ok[k, a] != "PASS") v = "FAIL:" a
        printf "%-34s %-4s %9.2f %9.2f %9.2f %9.2f %7.3f %7s %7s %6.1f %6s %-6s %s\n", p[1], p[2], w[k, "auto"], bw,
          w[k, "adaptive"], w[k, "tiled"], bw / w[k, "auto"],
          (f[k, "auto"] > 0 ? sprintf("%.3f", bf / f[k, "auto"]) : "-"),
          (g[k, "auto"] > 0 ? sprintf("%.3f", bg / g[k, "auto"]) : "-"), pw[k, "auto"],
          (pf[k, "auto"] > 0 ? sprintf("%.1f", pf[k, "auto"]) : "-"), v,
          (g[k, "auto"] > 0 ? sprintf("%.3f", g[k, "cusparse-alg1"] / g[k, "auto"]) : "-") }
    }' "$1"
}

for p in $parts; do
  case $p in
  test)
    t=$SECONDS
    pass=0 fail=0 skip=0
    for b in build/tests/test_cuda_* build/tests/test_*gpu*; do
      [ -x "$b" ] || continue
      name=$(basename "$b")
      SMV_MATRICES=$MATS timeout 200 "$b" >"$LOGS/$name.log" 2>&1
      rc=$?
      res=$(grep '^RESULT ' "$LOGS/$name.log" | tail -n 1)
      [ -n "$res" ] || res="RESULT 0 1 0"
      set -- $res
      pass=$((pass + $2)) fail=$((fail + $3)) skip=$((skip + $4))
      if [ "$3" -ne 0 ] || [ $rc -ne 0 ]; then
        note "FAIL $name ($2 passed, $3 failed, exit $rc)"
        grep -E 'FAIL|CHECK|bad rows' "$LOGS/$name.log" | head -15
      fi
    done
    note "device tests: $pass passed, $fail failed, $skip skipped ($((SECONDS - t)) s)"
    grep -h 'spmv_tiled\|spmv_adaptive' "$LOGS"/test_*.log | sort -u | tee -a "$summary"
    SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in memcheck racecheck; do
      t=$SECONDS
      extra=""
      [ $tool = racecheck ] && extra="--kernel-name-exclude kns=cusparse"
      timeout 150 "$SAN" --tool $tool --error-exitcode 99 $extra \
        build/tests/test_cuda_sanitize >"$LOGS/san-$tool.log" 2>&1
      note "compute-sanitizer $tool: rc=$?, $((SECONDS - t)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^RESULT' "$LOGS/san-$tool.log" | tr '\n' ' ')"
    done
    ;;
  large)
    : >"$LOGS/large.txt"
    for m in $LARGE; do
      [ "$(gpu_left)" -gt 40 ] || { note "large: budget spent before $m"; break; }
      timeout $(($(gpu_left) - 20)) build/smv bench --backend cuda "$m" --alg "$ALGS" \
        --precision both --flush-l2 --graph-batch 0 --runs 100 --max-time 1 \
        --label kern --csv "$LOGS/large-$(echo "$m" | tr ':' '_').csv" \
        >>"$LOGS/large.txt" 2>&1 || note "large: $m rc=$?"
    done
    { head -1 "$(ls "$LOGS"/large-*.csv | head -1)"; for f in "$LOGS"/large-*.csv; do tail -n +2 "$f"; done; } >"$OUT/large.csv"
    grep -m1 '^copy' "$LOGS/large.txt" | tee -a "$summary"
    summarize "$OUT/large.csv" | tee -a "$summary"
    ;;
  real)
    [ "$(gpu_left)" -gt 60 ] || { note "real: budget spent"; continue; }
    timeout $(($(gpu_left) - 15)) build/smv bench --backend cuda "$MATS"/*.mtx.gz \
      --alg "$ALGS,vector-shfl" --precision both --graph-batch 100 \
      --graph-replays 20 --runs 200 --max-time 0.5 --label kern \
      --csv "$OUT/real.csv" >"$LOGS/real.txt" 2>&1 || note "real: rc=$?"
    summarize "$OUT/real.csv" | tee -a "$summary"
    awk '/xgraph/ { next } $13 != "-" { s[$2] += log($13); n[$2]++; if (!($2 in m) || $13 < m[$2]) m[$2] = $13 }
      END { for (p in n) printf "real %s, graph mode: AUTO vs ALG1 geomean %.3f, min %.3f over %d\n", p, exp(s[p] / n[p]), m[p], n[p] }' \
      <(summarize "$OUT/real.csv") | tee -a "$summary"
    ;;
  *) note "unknown part $p" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$LOGS" .
echo "==== summary"
cat "$summary"
