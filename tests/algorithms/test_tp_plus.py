"""Tests of TP+ (src/starmin/algorithms/approx/tp_plus.py): TP, then Hilbert on R."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.approx import tp, tp_plus
from starmin.algorithms.exact import brute_force
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput
from starmin.models import KAnonymity, LDiversity
from starmin.transform.plan import STAR, ReleasePlan
from tests.algorithms.tp_support import l_eligible_table
from tests.helpers.tables import from_rows, satisfies


@pytest.mark.parametrize("seed", range(30))
def test_never_more_stars_than_tp_and_within_l_d_of_the_optimum(seed: int) -> None:
    l = 2 + seed % 2
    rt = l_eligible_table(700 + seed, 6 + seed % 5, l, m=3, values=2 + seed % 2, s=l + 1)
    model = LDiversity(l)
    plan = tp_plus.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    base = tp.solve(rt, model)
    opt = brute_force.solve(rt, model).stars
    assert plan.lower_bound == base.lower_bound
    assert plan.lower_bound is not None and plan.lower_bound <= opt
    assert opt <= plan.stars <= base.stars <= l * rt.m * opt
    assert plan.certificate["tp_stars"] == base.stars
    assert plan.certificate["fallback"] is False
    assert plan.guarantee.ratio == l * rt.m


@pytest.mark.parametrize("cut", ["buckets", "greedy"])
@pytest.mark.parametrize("seed", range(8))
def test_larger_tables(seed: int, cut: str) -> None:
    l = 2 + seed % 4
    rt = l_eligible_table(800 + seed, 2000, l, m=5, values=5, s=l + 4)
    model = LDiversity(l)
    plan = tp_plus.solve(rt, model, cut=cut)
    assert plan.certificate["cut"] == cut
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    base = tp.solve(rt, model)
    assert plan.stars <= base.stars
    if base.stars:
        assert plan.stars < base.stars                          # R gets cut finer


def test_falls_back_to_tp_if_the_residue_cut_were_worse(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    rt = from_rows([[0, 0]] * 2 + [[1, 1]] * 2 + [[2, 2]], [0, 1, 0, 1, 2])
    model = LDiversity(2)

    def everything_starred(rt_: RowTypes, entries: object, *a: object, **k: object
                           ) -> ReleasePlan:                    # valid, but d stars per row
        t, s = np.nonzero(rt_.counts)
        return ReleasePlan(np.full((1, rt_.m), STAR), np.zeros(len(t)), t, s,
                           rt_.counts[t, s], "tp+", tp.GUARANTEE)

    monkeypatch.setattr(tp_plus, "plan_from_entries", everything_starred)
    plan = tp_plus.solve(rt, model)
    assert plan.certificate["fallback"] is True
    assert plan.stars == tp.solve(rt, model).stars
    assert plan.method == "tp+"
    plan.validate(rt)


def test_nothing_to_do_when_tp_suppresses_nothing() -> None:
    rt = from_rows([[0]] * 2 + [[1]] * 2, [0, 1, 1, 0])
    plan = tp_plus.solve(rt, LDiversity(2))
    assert plan.stars == 0
    assert plan.certificate["residue_groups"] == 0


def test_refusals_and_entry() -> None:
    rt = from_rows([[0], [1], [2]], [0, 0, 1])
    with pytest.raises(Infeasible):
        tp_plus.solve(rt, LDiversity(2))
    with pytest.raises(InvalidInput):
        tp_plus.solve(rt, KAnonymity(2))
    a = tp_plus.ALGORITHM
    assert a.name == "tp+"
    assert a.guarantee.kind == "ratio"
    assert "6.1" in a.guarantee.reference
