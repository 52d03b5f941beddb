# tests/cli/lib.sh — helpers for CLI tests written in sh. Source it, call
# the checks, end with `finish`. $SMV is the binary under test (set by
# tests/run.sh). Each check is one test in the RESULT count.
: "${SMV:=build/smv}"
T_PASS=0 T_FAIL=0 T_SKIP=0
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT
OUT="$T_TMP/out" ERR="$T_TMP/err"

ok() { T_PASS=$((T_PASS + 1)); }
bad() { T_FAIL=$((T_FAIL + 1)); echo "FAIL: $*" >&2; }
skip() { T_SKIP=$((T_SKIP + 1)); echo "skip: $*" >&2; }

# run CMD...: runs it, stdout in $OUT, stderr in $ERR, status in $RC.
run() { "$@" >"$OUT" 2>"$ERR"; RC=$?; }

# expect_rc N DESC CMD... : CMD must exit with status N.
expect_rc() {
  want=$1 desc=$2; shift 2
  run "$@"
  if [ "$RC" -eq "$want" ]; then ok; else
    bad "$desc: exit $RC, want $want: $*"; sed 's/^/  stderr: /' "$ERR" | head -5 >&2
  fi
}

# expect_err N TEXT DESC CMD... : exit N and stderr contains TEXT.
expect_err() {
  want=$1 text=$2 desc=$3; shift 3
  run "$@"
  if [ "$RC" -eq "$want" ] && grep -qF -- "$text" "$ERR"; then ok; else
    bad "$desc: exit $RC (want $want), stderr lacks '$text': $*"
    sed 's/^/  stderr: /' "$ERR" | head -5 >&2
  fi
}

# expect_out TEXT DESC : last run's stdout contains TEXT.
expect_out() {
  if grep -qF -- "$1" "$OUT"; then ok; else
    bad "$2: stdout lacks '$1'"; head -5 "$OUT" | sed 's/^/  stdout: /' >&2
  fi
}

finish() { echo "RESULT $T_PASS $T_FAIL $T_SKIP"; [ "$T_FAIL" -eq 0 ]; }
