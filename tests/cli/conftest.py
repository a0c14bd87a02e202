"""Shared fixtures of the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="package")
def census_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 synthetic census rows as a ``;``-separated CSV (made here, not shared data)."""
    from starmin.datasets import synthetic_census

    p = tmp_path_factory.mktemp("in") / "census.csv"
    synthetic_census(3000, seed=7).write_csv(p, separator=";")
    return p
