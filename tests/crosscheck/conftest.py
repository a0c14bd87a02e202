"""pycanon lives in its own virtual environment (its exact pins clash with starmin's numpy,
pandas and scipy), called through a subprocess.

The interpreter is ``$STARMIN_PYCANON_PYTHON`` if set, else ``<repo>/.venv-pycanon/bin/python``,
created on first use with ``python -m venv .venv-pycanon && .venv-pycanon/bin/pip install
pycanon==1.3.6`` (CI does this up front in .ci/run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("pycanon_runner.py")
PYCANON = "pycanon==1.3.6"


def _interpreter() -> Path:
    env = os.environ.get("STARMIN_PYCANON_PYTHON")
    if env:
        return Path(env)
    venv = REPO / ".venv-pycanon"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", PYCANON], check=True,
                       timeout=900)
    return python


@pytest.fixture(scope="session")
def pycanon() -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    """Run jobs through pycanon_runner.py in pycanon's environment."""
    python = _interpreter()
    check = subprocess.run([str(python), "-c", "import pycanon"], capture_output=True,
                           text=True, timeout=120)
    assert check.returncode == 0, (
        f"pycanon is not importable by {python}: {check.stderr.strip()[-300:]}; create it with "
        f"'python -m venv .venv-pycanon && .venv-pycanon/bin/pip install {PYCANON}' or set "
        "STARMIN_PYCANON_PYTHON")

    def run(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = subprocess.run([str(python), str(RUNNER)], input=json.dumps(jobs),
                             capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stderr[-2000:]
        result: list[dict[str, Any]] = json.loads(out.stdout)
        return result

    return run
