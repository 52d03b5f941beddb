#!/bin/bash
# scripts/gpu/common.sh — the helpers every GPU part shares; sourced (never
# run) by scripts/gpu-check.sh and by each part in scripts/gpu/:
#
#   . "$(dirname "$0")/common.sh"    (a part, first thing)
#
# On sourcing: the working directory becomes the repository root, and
# COMMIT is set (see gpu_commit). The functions:
#
#   gpu_commit        the commit under test: $SMV_COMMIT (the device copy of
#                     the tree has no .git, so the caller passes it), else
#                     git's 12-digit hash with "-dirty" when the tree differs
#                     from it, else "unknown".
#   note TEXT...      print TEXT and append it to the file $summary (each
#                     part names its summary file before its first note).
#   gpu_device [F]    one line from nvidia-smi: name,driver_version or the
#                     fields F (nvidia-smi --query-gpu names), "unknown"
#                     without one.
#   gpu_build TARGET...
#                     make -j16 SM=90 GIT_COMMIT=$COMMIT TARGET... with the
#                     log in $LOGS/build.log, a note of the result; on
#                     failure it prints the log's tail, tars $LOGS into
#                     $OUT/logs.tgz (unless $LOGS is $OUT itself) and
#                     exits 1.
#   gpu_left          seconds left of $BUDGET since $START (both the
#                     caller's).
#
# Logs: a part writes its logs under $OUT (the device tool brings back at
# most 8 files, 2 folders deep), so parts with many logs tar them into one
# file there. Tarballs are never committed: bench/results/<device>/ holds
# only summaries (markdown) and the CSVs behind them.

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

gpu_commit() {
  if [ -n "${SMV_COMMIT:-}" ]; then
    echo "$SMV_COMMIT"
  elif git rev-parse --short=12 HEAD >/dev/null 2>&1; then
    echo "$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo -dirty)"
  else
    echo unknown
  fi
}
COMMIT=$(gpu_commit)

note() { echo "$*" | tee -a "$summary"; }

gpu_device() {
  nvidia-smi --query-gpu="${1:-name,driver_version}" --format=csv,noheader 2>/dev/null ||
    echo unknown
}

gpu_build() {
  local t=$SECONDS rc
  make -j16 SM=90 GIT_COMMIT="$COMMIT" "$@" >"$LOGS/build.log" 2>&1
  rc=$?
  note "build (sm_90): rc=$rc, $((SECONDS - t)) s, $(grep -c 'warning' "$LOGS/build.log") warnings"
  if [ $rc -ne 0 ]; then
    tail -30 "$LOGS/build.log"
    [ "$LOGS" = "$OUT" ] || tar czf "$OUT/logs.tgz" -C "$LOGS" .
    exit 1
  fi
}

gpu_left() { echo $((BUDGET - (SECONDS - START))); }
