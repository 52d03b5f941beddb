#!/bin/bash
# scripts/gpu-build.sh — sourced by the device scripts (gpu-bench.sh,
# gpu-kern.sh): gpu_build TARGET... builds for sm_90 with the commit
# stamped ($COMMIT), logs to $LOGS/build.log and notes the result (the
# caller's note()); on failure it prints the log's tail, tars $LOGS into
# $OUT/logs.tgz and exits 1.
gpu_build() {
  local t=$SECONDS rc
  make -j16 SM=90 GIT_COMMIT="$COMMIT" "$@" >"$LOGS/build.log" 2>&1
  rc=$?
  note "build (sm_90): rc=$rc, $((SECONDS - t)) s, $(grep -c 'warning' "$LOGS/build.log") warnings"
  if [ $rc -ne 0 ]; then
    tail -30 "$LOGS/build.log"
    tar czf "$OUT/logs.tgz" -C "$LOGS" .
    exit 1
  fi
}
