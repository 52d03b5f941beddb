#!/bin/sh
# tests/python/run.sh BUILD — the Python package's tests (pytest), run by
# tests/run.sh; prints the "RESULT passed failed skipped" line it adds up.
# Uses the first interpreter that has numpy, scipy and pytest: $SMV_PYTHON,
# /usr/bin/python3 (Debian's python3-numpy, python3-scipy, python3-pytest),
# then python3 on PATH. Without one, or in a sanitizer build (an ASan
# libsmv.so cannot be loaded into an ordinary python), one clear SKIP line.
BUILD=${1:-${SMV_BUILD:-build}}
case "$BUILD" in
*-san)
  echo "skip: python tests: $BUILD is a sanitizer build (ASan libsmv.so is not loadable from python)"
  echo "RESULT 0 0 1"
  exit 0
  ;;
esac
PY=
for p in ${SMV_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 &&
    "$p" -c 'import numpy, scipy, pytest' >/dev/null 2>&1; then
    PY=$p
    break
  fi
done
if [ -z "$PY" ]; then
  echo "skip: python tests: no python3 with numpy, scipy and pytest (apt-get install python3-numpy python3-scipy python3-pytest)"
  echo "RESULT 0 0 1"
  exit 0
fi
if [ ! -f "$BUILD/libsmv.so" ]; then
  echo "FAIL: $BUILD/libsmv.so missing (make builds it)"
  echo "RESULT 0 1 0"
  exit 1
fi
xml=$(mktemp)
SMV_LIB="$BUILD/libsmv.so" "$PY" -m pytest -q -rfEs -p no:cacheprovider \
  --junitxml="$xml" "$(dirname "$0")"
rc=$?
# Counts from pytest's JUnit report (tests, failures, errors, skipped).
"$PY" - "$xml" "$rc" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
    s = root if root.tag == "testsuite" else root.find("testsuite")
    n, f, e, k = (int(s.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
    bad = f + e
    if bad == 0 and sys.argv[2] != "0":
        bad = 1
    print("RESULT %d %d %d" % (n - f - e - k, bad, k))
except Exception as ex:  # no report: pytest could not run
    print("python tests: no pytest report (%s)" % ex)
    print("RESULT 0 1 0")
PYEOF
rm -f "$xml"
[ "$rc" -eq 0 ]
