"""Shared tables of the report tests (small: every test file runs in seconds)."""

from __future__ import annotations

import polars as pl
import pytest

import starmin
from starmin.api import Release

HOSTILE = '<script>alert("q")</script> & \'zip\''
"""A column name that HTML must escape (tag, ampersand, both quotes)."""


def census(n: int = 400, seed: int = 3) -> pl.DataFrame:
    from starmin.datasets import synthetic_census

    return synthetic_census(n, seed=seed)


@pytest.fixture(scope="package")
def t_release() -> Release:
    """t-closeness with k: every plot of the page has data (sensitive measures too)."""
    return starmin.anonymize(census(), qi="sex,age,race,education", sensitive="occupation",
                             k=3, t=0.4)


@pytest.fixture(scope="package")
def l_release() -> Release:
    return starmin.anonymize(census(), qi="sex,age,race", sensitive="occupation", l=2)


def hostile_table(rows: int = 60) -> pl.DataFrame:
    """QI names and values with markup in them, and a missing value."""
    return pl.DataFrame({
        HOSTILE: [f"<b>{i % 3}</b>&amp;" if i % 7 else None for i in range(rows)],
        "age": [20 + i % 4 for i in range(rows)],
        "dis": ['"flu"', "<cold>", "x&y"] * (rows // 3),
    })
