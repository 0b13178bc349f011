"""The code passes ruff with the project's configuration (ruff comes with the test extra)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_ruff_passes():
    here = str(pathlib.Path(sys.executable).parent)
    ruff = shutil.which("ruff", path=here) or shutil.which("ruff")
    assert ruff, "ruff is part of the test extra: pip install -e '.[test]'"
    result = subprocess.run([ruff, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
