"""pycanon lives in its own virtual environment (its exact pins clash with starmin's numpy,
pandas and scipy), called through a subprocess.

The interpreter is ``$STARMIN_PYCANON_PYTHON`` if set, else ``<repo>/.venv-pycanon/bin/python``,
created (or completed) on first use with ``python -m venv .venv-pycanon &&
.venv-pycanon/bin/pip install pycanon==1.3.6`` (CI does this up front in .ci/run). When pycanon
cannot be installed (no network, say) the cross-check tests skip with the reason, except under
``STARMIN_REQUIRE_SHARED=1`` or ``CI=true``, where they fail.
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

from tests.helpers.shared import REQUIRE_SHARED, required, unavailable

REPO = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("pycanon_runner.py")
PYCANON = "pycanon==1.3.6"
HOW = (f"create it with 'python3 -m venv .venv-pycanon && .venv-pycanon/bin/pip install "
       f"{PYCANON}' or set STARMIN_PYCANON_PYTHON")


def _required_by() -> str | None:
    """The setting under which a missing pycanon fails the tests instead of skipping them."""
    if required():
        return f"{REQUIRE_SHARED}={os.environ[REQUIRE_SHARED]}"
    ci = os.environ.get("CI", "")
    return f"CI={ci}" if ci.lower() in ("1", "true", "yes") else None


def _importable(python: Path) -> str | None:
    """None if ``python`` imports pycanon, else why not."""
    try:
        check = subprocess.run([str(python), "-c", "import pycanon"], capture_output=True,
                               text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{python} does not run ({e})"
    return None if check.returncode == 0 else check.stderr.strip()[-300:]


def _install(venv: Path) -> str | None:
    """Create ``venv`` if needed and pip-install pycanon into it; None on success, else why
    not (the end of pip's output)."""
    python = venv / "bin" / "python"
    steps = ([] if python.exists() else [[sys.executable, "-m", "venv", str(venv)]]) + [
        [str(python), "-m", "pip", "install", "--quiet", PYCANON]]
    for cmd in steps:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"'{' '.join(cmd)}' did not finish ({e})"
        if out.returncode != 0:
            tail = (out.stderr.strip() or out.stdout.strip()).splitlines()[-1:]
            return f"'{' '.join(cmd)}' failed: {' '.join(tail)[-300:]}"
    return None


def _interpreter() -> Path:
    env = os.environ.get("STARMIN_PYCANON_PYTHON")
    if env:
        python = Path(env)
        why = _importable(python)
        # an explicit interpreter that cannot import pycanon is a setup error: fail
        assert why is None, f"pycanon is not importable by {python}: {why}; {HOW}"
        return python
    venv = REPO / ".venv-pycanon"
    python = venv / "bin" / "python"
    if _importable(python) is None:
        return python
    why = _install(venv) or _importable(python)
    if why is not None:
        unavailable(f"needs {PYCANON} in {venv} ({why}); {HOW}", required_by=_required_by())
    return python


@pytest.fixture(scope="session")
def pycanon() -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    """Run jobs through pycanon_runner.py in pycanon's environment."""
    python = _interpreter()

    def run(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = subprocess.run([str(python), str(RUNNER)], input=json.dumps(jobs),
                             capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stderr[-2000:]
        result: list[dict[str, Any]] = json.loads(out.stdout)
        return result

    return run
