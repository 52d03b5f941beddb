#!/bin/sh
# tests/python/venv.sh — the package as a user installs it (issue 21): a
# virtual environment with Debian's numpy/scipy/pytest
# (--system-site-packages), `pip install . --no-build-isolation` offline,
# then `python -m smv` and the package's tests run from outside the source
# tree against the installed copy (SMV_TEST_INSTALLED=1: conftest.py leaves
# python/ off sys.path; SMV_LIB unset). Then the same package with an
# unloadable libsmv_cuda.so beside it must still import and run on the CPU
# (a machine without CUDA libraries). Run by .ci/run; needs python3-venv.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${SMV_PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PY" -m venv --system-site-packages "$T/venv"
unset SMV_LIB
(cd "$ROOT" && "$T/venv/bin/pip" install -q --no-build-isolation --no-index \
  --no-deps .)
cd "$T"
"$T/venv/bin/python" -m smv
SITE=$("$T/venv/bin/python" -c 'import smv, os; print(os.path.dirname(smv.__file__))')
case "$SITE" in
"$T"/venv/*) echo "installed package: $SITE" ;;
*)
  echo "FAIL: smv imported from $SITE, not the venv"
  exit 1
  ;;
esac
SMV_TEST_INSTALLED=1 "$T/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$ROOT/tests/python"
# No CUDA libraries: a libsmv_cuda.so that cannot load is skipped.
if [ ! -f "$SITE/libsmv_cuda.so" ]; then
  printf 'not a library' >"$SITE/libsmv_cuda.so"
fi
cp "$SITE/libsmv_cuda.so" "$T/keep.so"
printf 'not a library' >"$SITE/libsmv_cuda.so"
"$T/venv/bin/python" -c '
import numpy as np, scipy.sparse as sp, smv
assert smv.library_path.endswith("/libsmv.so"), smv.library_path
with smv.Matrix(sp.eye(3, format="csr"), backend="auto") as M:
    assert M.backend == "cpu"
    assert np.array_equal(M @ np.arange(3.0), np.arange(3.0))
print("CPU fallback without a loadable CUDA library: ok")'
cp "$T/keep.so" "$SITE/libsmv_cuda.so"
echo "venv install: ok"
