"""dgh-p-sensitive: Bredereck et al.'s Corollary 2 (Sec. 4.4) on row types with hierarchies.

Oracles: a literal table worked by hand; the partition DP of tests/algorithms/dgh_support.py
(classes of >= k rows and >= p sensitive values, each released as its lowest common ancestors
read from the ARX rows); fpt-p-sensitive for flat hierarchies; the independent verifier."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from starmin.algorithms import registry
from starmin.algorithms.fpt import dgh_p_sensitive as dgh
from starmin.algorithms.fpt import p_sensitive as fpt
from starmin.data.hierarchies import Hierarchies
from starmin.errors import Infeasible, InvalidInput
from starmin.models import KAnonymity, PSensitiveKAnonymity
from tests.algorithms.dgh_support import (
    AGE,
    HAND,
    dgh_table,
    local_optimum,
    plan_objective,
    random_dgh_table,
    release_and_verify,
)
from tests.helpers.tables import random_table

# The table of test_dgh_k_anonymity (age with its hierarchy; sex 0 = M, 1 = F, flat) with a
# sensitive value per row (0 = a, 1 = b): rows (30 M) (32 M) (35 F) (41 F) (30 F) (32 F) hold
# a b a b a a.
X = HAND
SA = np.array([0, 1, 0, 1, 0, 0])


def test_hand_example() -> None:
    # p = 2, k = 2. Only rows 1 (32 M) and 3 (41 F) hold b, so there are at most two classes,
    # one holding each. 41's class has age * (1 per row, >= 2 rows). Two classes: {32 M, 30 M}
    # -> (30-34, M), 2 x 1/3, and the four F rows -> (*, F), 4 x 1: loss 14/3 (of 12 cells:
    # 7/18), 4 stars. Every other split costs more: putting an F row with the M rows stars sex
    # (1 per row) on >= 3 rows, and moving the M row b to 41's class stars both columns.
    # (k-anonymity alone would pair 30/32 F as (30-34, F): 10/3; that class holds only a.)
    t = dgh_table(X, SA, {"q0": AGE})
    model = PSensitiveKAnonymity(2, 2)
    for objective in ("loss", "stars"):
        plan = dgh.solve(t.rt, model, objective=objective)
        released = release_and_verify(t, plan, model)
        assert released["q0"].to_list() == ["30-34", "30-34", "*", "*", "*", "*"]
        assert released["q1"].to_list() == ["0", "0", "1", "1", "1", "1"]
        assert plan_objective(t, plan, "loss") == Fraction(14, 3)
        assert plan.stars == 4
    assert local_optimum(t, 2, 2, "loss") == Fraction(14, 3)
    assert local_optimum(t, 2, 1, "loss") == Fraction(10, 3)
    plan = dgh.solve(t.rt, model, objective="loss")
    assert plan.certificate["objective_value"] == pytest.approx(7 / 18)
    assert plan.certificate["p"] == 2 and plan.certificate["t_in"] == 6


@pytest.mark.parametrize("seed", range(24))
def test_equals_partition_oracle(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(5, 9)), int(rng.integers(1, 4))
    t = random_dgh_table(1000 + seed, n, m, int(rng.integers(2, 4)), s=int(rng.integers(2, 4)))
    p = int(rng.integers(2, 4))
    k = int(rng.integers(p, p + 2))
    model = PSensitiveKAnonymity(p, k)
    for objective in ("stars", "loss"):
        opt = local_optimum(t, k, p, objective)
        if opt is None:
            with pytest.raises(Infeasible):
                dgh.solve(t.rt, model, objective=objective)
            continue
        plan = dgh.solve(t.rt, model, objective=objective)
        plan.validate(t.rt)
        assert plan_objective(t, plan, objective) == opt
        if objective == "stars" and not t.rt.dgh.is_flat:  # ties broken by the least loss
            assert plan_objective(t, plan, "stars+loss") == local_optimum(t, k, p, "stars+loss")
        release_and_verify(t, plan, model)


@pytest.mark.parametrize("seed", range(15))
def test_flat_parity_with_fpt(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(4, 16)), int(rng.integers(1, 4))
    rt = random_table(seed, n, m=m, values=int(rng.integers(2, 4)), s=int(rng.integers(2, 4)))
    p = int(rng.integers(2, 3))
    k = int(rng.integers(p, p + 3))
    model = PSensitiveKAnonymity(p, k)
    try:
        base = fpt.solve(rt, model)
    except Infeasible:
        with pytest.raises(Infeasible):
            dgh.solve(rt, model)
        return
    for r in (rt, rt.with_hierarchies(Hierarchies.flat(rt.cardinalities))):
        plan = dgh.solve(r, model)
        assert np.array_equal(plan.outputs, base.outputs)
        assert np.array_equal(plan.count, base.count)
        assert plan.stars == plan.lower_bound == base.stars


def test_registry_entry_and_refusals() -> None:
    alg = registry.get("dgh-p-sensitive")
    assert alg.objectives == ("stars", "loss")
    assert alg.guarantee.kind == "fpt" and "Cor. 2" in alg.guarantee.reference
    t = dgh_table(X, SA, {"q0": AGE})
    assert "p-sensitive k-anonymity only" in (dgh.supports(KAnonymity(2), t.rt) or "")
    noskey = dgh_table(X, None, {"q0": AGE})
    with pytest.raises(InvalidInput):
        dgh.solve(noskey.rt, PSensitiveKAnonymity(2, 2))
    with pytest.raises(InvalidInput, match="objective must be"):
        dgh.solve(t.rt, PSensitiveKAnonymity(2, 2), objective="kl")
    big = random_table(4, 200, m=6, values=4, s=3)
    reason = dgh.supports(PSensitiveKAnonymity(2, 2), big)
    assert reason is not None and "t_in <= 16" in reason
