"""Regression: on this 12-row slice of adult, HiGHS's MIP once stopped with 'Status 4: Solve
error'; two-diversity-milp now retries without presolve and must equal brute force (9 stars)."""

from __future__ import annotations

import polars as pl

from starmin.api import solve
from starmin.data import Schema
from starmin.engines import LocalEngine
from starmin.models import LDiversity
from tests.helpers.adult import adult_csv


def test_milp_equals_brute_force_on_the_slice_that_broke_highs() -> None:
    df = pl.read_csv(adult_csv(), separator=";").sample(12, seed=62)
    rt = LocalEngine().to_row_types(
        df, Schema.of("sex,race,workclass,salary-class", "occupation")).row_types
    exact = solve(rt, LDiversity(2), "brute-force").stars
    assert solve(rt, LDiversity(2), "two-diversity-milp").stars == exact
