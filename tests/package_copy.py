"""A copy of the lostcards package in a temporary folder, with a numba cache of its own: edits there touch
nothing of the checkout (tests/test_numba_cache.py, tests/test_registry.py)."""
from __future__ import annotations

import shutil
import subprocess
import sys

from lostcards.numba_cache import PACKAGE


def copy_package(tmp_path_factory, timeout: float = 600):
    """(top, run): the folder holding the copy, and run(*args) running Python there (asserting it succeeds)."""
    top = tmp_path_factory.mktemp("copy")
    shutil.copytree(PACKAGE, top / "lostcards", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(top), "LOSTCARDS_NUMBA_CACHE": str(tmp_path_factory.mktemp("cache")),
           "PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": "1"}

    def run(*args):
        res = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout,
                             cwd=top)
        assert res.returncode == 0, res.stderr
        return res
    return top, run
