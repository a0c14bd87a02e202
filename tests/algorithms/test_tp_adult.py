"""TP, TP+ and Hilbert on ARX adult, released through the engine and checked by the
independent verifier (which never sees the plan)."""

from __future__ import annotations

import polars as pl
import pytest

from starmin.algorithms.approx import tp, tp_plus
from starmin.algorithms.heuristic import hilbert
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible
from starmin.models import LDiversity
from starmin.verifier import verify
from tests.helpers.adult import adult_encoded

SA = "occupation"


@pytest.fixture(scope="module")
def adult() -> tuple[pl.DataFrame, LocalEngine, object]:
    return adult_encoded(SA)


@pytest.mark.parametrize("l", [3, 7])
def test_releases_pass_the_verifier_and_keep_their_order(adult: tuple, l: int) -> None:
    df, engine, enc = adult
    rt = enc.row_types
    qi = [c for c in df.columns if c != SA]
    stars = {}
    for mod in (tp, tp_plus, hilbert):
        plan = mod.solve(rt, LDiversity(l))
        plan.validate(rt)
        released = engine.apply_plan(enc, plan)
        report = verify(released, qi, SA, LDiversity(l))
        assert report.passed, mod.NAME
        assert report.stars == plan.stars
        assert report.suppressed_records == plan.suppressed_records
        assert plan.lower_bound is not None and plan.lower_bound <= plan.stars
        stars[mod.NAME] = plan.stars
    base = tp.solve(rt, LDiversity(l))
    assert base.certificate["phase"] in (1, 2)                  # as in the paper's Sec. 6.1
    assert base.lower_bound is not None                         # Lemmas 5, 6: <= l h(R1) + l - 1
    assert base.certificate["suppressed_tuples"] <= base.lower_bound + l - 1
    assert stars["tp+"] <= stars["tp"]
    assert stars["tp+"] < stars["hilbert"]                      # Sec. 6.1's finding holds here


def test_l_beyond_the_tables_diversity_is_refused(adult: tuple) -> None:
    _, _, enc = adult
    with pytest.raises(Infeasible, match=r"no 8-diverse release exists: value 'Prof-specialty'"
                                         r" has frequency 4038/30162.*choose l <= 7"):
        tp.solve(enc.row_types, LDiversity(8))
