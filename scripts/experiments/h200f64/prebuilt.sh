#!/bin/bash
# prebuilt.sh — sourced by the experiments that run binaries built off the
# device (e12-e16): sm_90 SASS only, xz'd into bis/NAME.xz here (bis/ is
# ignored; the call carries ["bis"]), so the call spends no device time
# building.
#   prebuilt_unpack DIR       every bis/*.xz into DIR/NAME, executable;
#                             prints the device line and what came
#   prebuilt_tests BIN OUT T  each test T...: BIN-T (or BIN/T), its log
#                             under OUT, RESULT line and any failures
prebuilt_unpack() {
  mkdir -p "$1"
  for f in bis/*.xz; do
    b=$(basename "$f" .xz)
    xz -dc "$f" >"$1/$b" && chmod +x "$1/$b"
  done
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total \
    --format=csv,noheader
}
prebuilt_tests() {
  local bin=$1 out=$2 t
  shift 2
  for t in "$@"; do
    timeout 150 "$bin$t" >"$out/$t.log" 2>&1
    echo "$t: exit $?: $(grep '^RESULT' "$out/$t.log" | tail -1)"
    grep -E "CHECK failed|FAIL" "$out/$t.log" | head -5
  done
}
