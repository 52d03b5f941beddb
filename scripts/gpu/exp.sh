#!/bin/bash
# scripts/gpu/exp.sh — part `exp` of scripts/gpu-check.sh: run experiment
# scripts (scripts/experiments/DIR/NAME.sh, each writing under its own
# $OUT) after gpu-check's build, so one device call can hold the tests and
# the experiments of a change:
#   scripts/gpu-check.sh test exp:rowpipe/r1,packed/p1
#   OUT=dir scripts/gpu/exp.sh rowpipe/r1 packed/p1     (alone, built tree)
# Each script's output goes to $OUT/DIR-NAME/ (its files) and
# $OUT/DIR-NAME.log; its exit status is reported. The scripts' own headers
# say what each measures and where its results are recorded.
set -uo pipefail
. "$(dirname "$0")/common.sh"
OUT=${OUT:-/tmp/smv-gpu-exp}
mkdir -p "$OUT"
summary=$OUT/summary.txt
: >"$summary"
note "exp: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT"
note "device: $(gpu_device)"
status=0
for e in "$@"; do
  s=scripts/experiments/$e.sh
  name=$(echo "$e" | tr '/' '-')
  if [ ! -x "$s" ]; then
    note "$e: no script $s"
    status=1
    continue
  fi
  t0=$SECONDS
  OUT="$OUT/$name" "$s" >"$OUT/$name.log" 2>&1
  r=$?
  [ $r -eq 0 ] || status=1
  note "$e: exit $r ($((SECONDS - t0)) s)"
  tail -30 "$OUT/$name.log"
done
echo "==== summary"
cat "$summary"
exit $status
