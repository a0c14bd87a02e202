"""Files from the workspace's ``shared`` folder beside the repository (``<repo>/../shared``:
ARX's data and hierarchies, the papers), which is never copied into the repository.

Every test that reads one locates it with ``shared_file("data/arx/adult.csv")``. On a checkout
without that file (a fresh clone elsewhere) the test is skipped with a reason naming the
missing file; with the environment variable ``STARMIN_REQUIRE_SHARED=1`` (``.ci/run`` sets it)
the test fails instead, so CI still runs every test. Call it inside the test or a fixture,
never at import time, so a missing file skips tests instead of breaking their collection.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
REQUIRE_SHARED = "STARMIN_REQUIRE_SHARED"


def required() -> bool:
    """True when ``STARMIN_REQUIRE_SHARED`` is set (to anything but empty or ``0``)."""
    return os.environ.get(REQUIRE_SHARED, "") not in ("", "0")


def unavailable(message: str, *, required_by: str | None = None) -> NoReturn:
    """Skip the running test with ``message``; fail it instead when ``required_by`` names the
    setting that requires the test to run (by default ``STARMIN_REQUIRE_SHARED`` if set)."""
    __tracebackhide__ = True  # pytest reports the skip at the test's line, not here
    if required_by is None and required():
        required_by = f"{REQUIRE_SHARED}={os.environ[REQUIRE_SHARED]}"
    if required_by:
        pytest.fail(f"{message} [{required_by}: a failure, not a skip]", pytrace=False)
    pytest.skip(message)


def shared_file(relative: str) -> Path:
    """``<repo>/../shared/<relative>`` (a file or a folder) if it exists; else skip the test
    (fail it under ``STARMIN_REQUIRE_SHARED=1``) with a reason naming the missing file."""
    __tracebackhide__ = True
    path = SHARED / relative
    if not path.exists():
        unavailable(f"needs ../shared/{relative} (not in this checkout: {path} does not "
                    "exist); put the workspace's shared/ folder beside the repository")
    return path
