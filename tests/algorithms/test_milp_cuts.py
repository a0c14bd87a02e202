"""Entropy and recursive (c, l)-diversity in the exact MILP (issue 8, part 1): linear
consequences, cuts from failing classes, and an exact check of every integer solution.

The cuts (starmin.algorithms.lp.cuts) must never cut off a class that satisfies the model
(checked on every composition of small classes), must cut off the failing class they come
from, and the MILP with them must reach brute force's optimum."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import cuts, milp_exact
from starmin.data import Schema
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible
from starmin.models import (
    AllOf,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
)
from starmin.verifier import verify
from tests.algorithms.test_milp_exact import table

PARTS: list[PrivacyModel] = [EntropyLDiversity(2), EntropyLDiversity(3),
                             RecursiveCLDiversity(2, 2), RecursiveCLDiversity(3, 3),
                             RecursiveCLDiversity(0.5, 2), RecursiveCLDiversity(1, 1)]


def passes(part: PrivacyModel, x: np.ndarray) -> bool:
    return bool(part.evaluate(x[None, :], x, list(range(len(x)))).ok[0])


def compositions(r: int, most: int) -> list[np.ndarray]:
    return [np.array(c, dtype=np.int64) for c in itertools.product(range(most + 1), repeat=r)
            if sum(c) > 0]


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_cuts_keep_every_satisfying_class_and_cut_off_their_own(part: PrivacyModel) -> None:
    r = 4
    every = compositions(r, 5)
    good = [x for x in every if passes(part, x)]
    bad = [x for x in every if not passes(part, x)]
    assert good and bad
    separated = 0
    for x_hat in bad:
        cut = cuts.cut_for(part, x_hat)
        if cut is None:
            continue
        separated += 1
        assert cut.coef @ x_hat + cut.y_coef > cut.rhs + cuts.SEPARATION / 2
        lhs = np.array([cut.coef @ x for x in good]) + cut.y_coef
        assert (lhs <= cut.rhs + 1e-9).all(), part.name
    assert separated >= len(bad) // 2  # most failing classes give a cut


@pytest.mark.parametrize(("l", "r"), [(2, 3), (3, 4), (3, 6), (4, 5)])
def test_entropy_cap_holds_for_every_entropy_diverse_class(l: int, r: int) -> None:
    cap = cuts.entropy_cap(l, r)
    assert 1.0 / l <= cap < 1.0
    for x in compositions(r, 6):
        if passes(EntropyLDiversity(l), x):
            assert x.max() <= cap * x.sum() + 1e-9


MODELS: list[PrivacyModel] = [EntropyLDiversity(2), EntropyLDiversity(3),
                              RecursiveCLDiversity(2, 2), RecursiveCLDiversity(3, 3),
                              RecursiveCLDiversity(0.5, 2),
                              # l = 1: the tail is the whole class, so the share cap is
                              # min(1, c), not c / (1 + c) (that cap made the MILP's optimum
                              # 2 stars where brute force's is 0, and its LP infeasible)
                              RecursiveCLDiversity(2, 1), RecursiveCLDiversity(0.5, 1),
                              AllOf(KAnonymity(3), EntropyLDiversity(2))]


def test_the_milp_with_cuts_is_brute_forces_optimum() -> None:
    rounds = 0
    for seed in range(8):
        _, rt = table(seed, 12, 3, 3, 3 + seed % 3)
        for model in MODELS:
            try:
                opt = brute_force.solve(rt, model).stars
            except Infeasible:
                with pytest.raises(Infeasible):
                    milp_exact.solve(rt, model)
                continue
            plan = milp_exact.solve(rt, model)
            assert plan.guarantee.kind == "exact", (seed, model.name)
            assert plan.stars == opt == plan.lower_bound, (seed, model.name)
            rounds += int(plan.certificate.get("cut_rounds", 0))
    assert rounds >= 5  # the cuts were needed, not only the linear consequences


def test_a_class_no_cut_separates_gives_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the cuts stall, the release is repaired and marked 'bound' with the relaxation's
    optimum as its (valid) bound."""
    model = AllOf(KAnonymity(3), EntropyLDiversity(2))
    for seed in (3, 11, 7):
        df, rt = table(seed, 12, 3, 3, 3 + seed % 3)
        opt = brute_force.solve(rt, model).stars
        monkeypatch.setattr(milp_exact, "_incumbent", lambda *a: None)
        monkeypatch.setattr(milp_exact, "cut_for", lambda part, x: None)
        # without entropy's share lines, which settle these small tables with no cut at all
        monkeypatch.setattr(milp_exact, "entropy_share_lines", lambda *a: ())
        plan = milp_exact.solve(rt, model)
        monkeypatch.undo()
        if plan.guarantee.kind == "exact":  # the linear consequences sufficed here
            assert plan.stars == opt
            continue
        assert plan.guarantee.kind == "bound" and plan.certificate["stopped_by"] == "cuts"
        assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars
        qi = [c for c in df.columns if c != "s"]
        enc = LocalEngine().to_row_types(df, Schema.of(qi, "s"))
        released = LocalEngine().apply_plan(enc, plan, seed=0)
        assert verify(released, qi, ["s"], [model]).passed
        return
    pytest.fail("no table needed cuts: pick tables whose MILP optimum fails entropy")


@pytest.mark.parametrize("model", [EntropyLDiversity(3), RecursiveCLDiversity(2, 3)],
                         ids=lambda m: m.name)
def test_a_stopped_milp_releases_no_more_than_merge_repair(model: PrivacyModel) -> None:
    """The LP's rounding states entropy and recursive (c, l) by their linear relaxation only,
    and its repaired classes can be far worse than merge-repair's (here 136 / 120 against 74
    stars); a MILP stopped at its node limit releases the better incumbent, and says whose it
    was."""
    from starmin.algorithms.heuristic import merge_repair

    df, rt = table(3, 40, 4, 3, 5)
    said: list[str] = []
    plan = milp_exact.solve(rt, model, node_limit=1, progress=said.append)
    heuristic = merge_repair.solve(rt, model).stars
    assert plan.stars <= heuristic
    assert plan.certificate["incumbent_by"] == "merge-repair"
    assert plan.certificate["incumbent_stars"] == heuristic
    assert any("first releases: the LP's rounding" in s and "merge-repair's" in s
               for s in said)
    qi = [c for c in df.columns if c != "s"]
    enc = LocalEngine().to_row_types(df, Schema.of(qi, "s"))
    assert verify(LocalEngine().apply_plan(enc, plan, seed=0), qi, ["s"], [model]).passed
