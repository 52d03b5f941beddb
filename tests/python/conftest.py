"""Loaded by pytest before the tests, whatever its --import-mode: puts this
folder (for smv_testing) on sys.path and, unless SMV_TEST_INSTALLED=1, the
source tree's package (python/) ahead of any installed smv. With
SMV_TEST_INSTALLED=1 (tests/python/venv.sh) the installed package is
tested, from outside the source tree."""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_paths = [_here]
if os.environ.get("SMV_TEST_INSTALLED") != "1":
    _paths.append(os.path.normpath(os.path.join(_here, "..", "..",
                                                "python")))
for _p in _paths:
    if _p not in sys.path:
        sys.path.insert(0, _p)
