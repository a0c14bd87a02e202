"""The code base stays ruff- and mypy-clean (both are test extras)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600)


def test_ruff_clean() -> None:
    out = _run("ruff", "check", "src", "tests", "bench")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]


def test_mypy_clean() -> None:
    out = _run("mypy")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]
