"""Loaded by pytest before the tests, whatever its --import-mode: puts the
source tree's package (python/) ahead of any installed smv, and this folder
(for smv_testing) on sys.path."""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
for _p in (_here, os.path.normpath(os.path.join(_here, "..", "..",
                                                "python"))):
    if _p not in sys.path:
        sys.path.insert(0, _p)
