#!/bin/sh
# tests/run.sh BUILD — run every test binary in BUILD/tests and every script
# in tests/cli and the Python package's tests (tests/python/run.sh), add up their "RESULT passed failed skipped" lines and print
# the closing "N passed, N failed, N skipped". A program that dies without a
# RESULT line counts as one failure. Exit status 1 if anything failed.
BUILD=${1:-build}
export SMV="$BUILD/smv" SMV_BUILD="$BUILD"
# CUDA's runtime and AddressSanitizer disagree about the shadow gap.
export ASAN_OPTIONS="${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pass=0 fail=0 skip=0
log=$(mktemp)
for t in "$BUILD"/tests/* tests/cli/*.sh tests/python/run.sh; do
  [ -f "$t" ] || continue
  case "$t" in *.d | *.o | */lib.sh) continue ;; esac
  case "$t" in
  tests/python/run.sh) sh "$t" "$BUILD" >"$log" 2>&1 ;;
  *.sh) sh "$t" >"$log" 2>&1 ;;
  *) [ -x "$t" ] || continue; "$t" >"$log" 2>&1 ;;
  esac
  rc=$?
  res=$(grep '^RESULT ' "$log" | tail -n 1)
  if [ -z "$res" ]; then
    echo "FAIL $t: no RESULT line (exit $rc)"
    tail -n 20 "$log"
    fail=$((fail + 1))
    continue
  fi
  set -- $res
  p=$2 f=$3 s=$4
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
  if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
    [ "$f" -eq 0 ] && fail=$((fail + 1))
    echo "FAIL $t ($p passed, $f failed, $s skipped, exit $rc)"
    grep -v '^RESULT ' "$log" | tail -n 40
  else
    echo "ok   $t ($p passed, $s skipped)"
  fi
done
rm -f "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
