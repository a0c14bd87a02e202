"""Merge-repair's ``"distinct-levels"`` start (stop 50): distinct l-diversity's level start
for a model frequency l-diversity implies, repaired for that model. Its releases satisfy the
model (the repair merges the classes holding ``l`` values but too little entropy), the same
seed gives the same plan, ``start="auto"`` and ``auto``'s ladder take it for entropy
l-diversity from ``ENTROPY_DISTINCT_MIN_L`` on and not below, it is refused with the fix for
the models it cannot take, and on ARX adult's first 2,000 rows (8 QIs, occupation) entropy
l = 4 releases fewer stars from it than from frequency's level start."""

from __future__ import annotations

import polars as pl
import pytest

from starmin.algorithms.heuristic import merge_repair
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine
from starmin.errors import InvalidInput
from starmin.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.models.apply import holds
from tests.helpers.adult import adult_csv
from tests.helpers.plans import same_plan
from tests.helpers.tables import random_table

MIN_L = merge_repair.ENTROPY_DISTINCT_MIN_L


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("model", [EntropyLDiversity(MIN_L), EntropyLDiversity(3),
                                   RecursiveCLDiversity(2, 3), DistinctLDiversity(3)],
                         ids=lambda m: m.name)
def test_releases_satisfy_the_model_and_repeat(seed: int, model: object) -> None:
    rt = random_table(300 + seed, 200, 5, values=[3, 4, 3, 4, 3], s=7)
    plan = merge_repair.solve(rt, model, seed=seed, start="distinct-levels")
    plan.validate(rt)
    assert holds(model, rt, plan.class_key_counts(rt.s)).all()
    again = merge_repair.solve(rt, model, seed=seed, start="distinct-levels")
    assert same_plan(plan, again)
    assert plan.certificate["starts"].keys() == {"distinct-levels"}


def test_auto_takes_it_for_entropy_from_its_l_on() -> None:
    rt = random_table(7, 120, 4, values=3, s=7)
    assert merge_repair.expand_start("auto", EntropyLDiversity(MIN_L), rt) == (
        "distinct-levels", "pattern-packing")
    for model in (EntropyLDiversity(MIN_L - 1), RecursiveCLDiversity(3, MIN_L),
                  DistinctLDiversity(MIN_L)):
        assert merge_repair.expand_start("auto", model, rt) == ("levels", "pattern-packing")
    ladder = [merge_repair.auto_run(EntropyLDiversity(MIN_L), rt, u / 1000)
              for u in range(0, 20000, 5)]
    starts = {r.options.get("start") for r in ladder}
    assert "distinct-levels" in starts and "levels" not in starts
    below = [merge_repair.auto_run(EntropyLDiversity(MIN_L - 1), rt, u / 1000)
             for u in range(0, 20000, 5)]
    assert "distinct-levels" not in {r.options.get("start") for r in below}


@pytest.mark.parametrize("model", [KAnonymity(3), TCloseness(0.4)], ids=lambda m: m.name)
def test_refused_for_models_without_l_distinct_values(model: object) -> None:
    rt = random_table(8, 60, 3, values=3, s=4)
    with pytest.raises(InvalidInput, match="start='auto'"):
        merge_repair.solve(rt, model, start="distinct-levels")


def test_refused_for_two_sensitive_columns() -> None:
    df = pl.DataFrame({"a": [0, 1, 2, 0, 1, 2, 0, 1] * 4, "b": [0, 0, 1, 1, 2, 2, 0, 1] * 4,
                       "s1": [0, 1, 2, 3] * 8, "s2": [0, 1] * 16})
    rt = LocalEngine().to_row_types(df, Schema.of(["a", "b"], ["s1", "s2"])).row_types
    with pytest.raises(InvalidInput, match="one sensitive column"):
        merge_repair.solve(rt, EntropyLDiversity(2), start="distinct-levels")


def test_adult_entropy_4_fewer_stars_than_frequency_s_level_start() -> None:
    """Measured 3,388 against 3,590 stars (rule ``spread``, stop 50)."""
    df = pl.read_csv(adult_csv(), separator=";").head(2000)
    qi = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
          "salary-class"]
    rt = LocalEngine().to_row_types(df.select([*qi, "occupation"]),
                                    Schema.of(qi, "occupation")).row_types
    model = EntropyLDiversity(4)
    runs = {start: merge_repair.solve(rt, model, start=start, rules=("spread",))
            for start in ("distinct-levels", "levels")}
    for plan in runs.values():
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
    assert runs["distinct-levels"].stars < runs["levels"].stars
