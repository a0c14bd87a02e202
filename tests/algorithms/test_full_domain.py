"""full-domain: one hierarchy level per column, the cheapest level vector satisfying the model.

Oracles: a literal table worked by hand; an exhaustive lattice written here from the ARX rows
(each column generalized by its file, every level vector judged by the independent verifier,
no pruning); the method itself without pruning; attribute suppression for flat hierarchies
(a full-domain release over flat hierarchies suppresses whole columns)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from starmin.algorithms import attribute_suppression, full_domain, registry
from starmin.errors import Infeasible, InvalidInput, SolverLimit
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    MatrixDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.verifier import verify
from tests.algorithms.dgh_support import (
    AGE,
    DghTable,
    _Column,
    dgh_table,
    plan_objective,
    random_dgh_table,
    release_and_verify,
)
from tests.helpers.tables import random_table


def test_hand_example() -> None:
    # Rows (age, sex): (30 M) (32 M) (35 F) (41 F) (30 F) (32 F) (41 F); k = 2. Age levels
    # 0..3, sex (flat) 0..1: 8 level vectors. Age loss per level (per cell (leaves - 1) / 3):
    # level 1: 30-34 on 4 rows = 4/3 (35-39, 40-44 hold one value: 0); level 2: 30-39 on 5
    # rows = 10/3 (40-49: 0); level 3: 7. Sex at level 1: 7.
    # k = 2 fails at (0, 0), (1, 0) (35-39 F alone), (0, 1) (35 alone), (1, 1) (35-39 alone);
    # (2, 0) gives (30-39 M) x 2, (30-39 F) x 3, (40-49 F) x 2 and costs 10/3, cheaper than
    # every other passing vector ((3, 0): 7, (2, 1): 10/3 + 7, ...). Loss 10/3 / 14 = 5/21.
    # It has no star, so it is also the stars optimum (the first 0-star vector that passes).
    X = np.array([[30, 0], [32, 0], [35, 1], [41, 1], [30, 1], [32, 1], [41, 1]])
    t = dgh_table(X, None, {"q0": AGE})
    for objective in ("loss", "stars"):
        plan = full_domain.solve(t.rt, KAnonymity(2), objective=objective)
        assert plan.certificate["levels"] == {"q0": 2, "q1": 0}
        assert plan.certificate["lattice"] == 8
        assert plan_objective(t, plan, "loss") == Fraction(10, 3)
        assert plan.stars == 0
        released = release_and_verify(t, plan, KAnonymity(2))
        assert released["q0"].to_list() == ["30-39"] * 3 + ["40-49"] + ["30-39"] * 2 + ["40-49"]
    plan = full_domain.solve(t.rt, KAnonymity(2), objective="loss")
    assert plan.certificate["objective_value"] == pytest.approx(5 / 21)
    # k = 3: the two M rows force sex to the root (each sex level-0 class is M or F), and
    # then (2, 1) leaves (40-49 *) with 2 rows: only the top (3, 1) passes, loss 14 / 14 = 1
    plan = full_domain.solve(t.rt, KAnonymity(3), objective="loss")
    assert plan.certificate["levels"] == {"q0": 3, "q1": 1}
    assert plan.certificate["objective_value"] == 1.0


# -- the exhaustive lattice, from the ARX rows and the verifier ----------------------------


def exhaustive(t: DghTable, model: PrivacyModel, objective: str) -> Fraction | None:
    """The least objective over every level vector whose generalized table (each value
    replaced by its file's field at that level) passes the verifier; ``None``: none does."""
    rows = t.frame.rows()
    cols = []
    for j, q in enumerate(t.qi):
        values = sorted({str(r[j]) for r in rows})
        cols.append(_Column(t.files.get(q), values))
    best: Fraction | None = None
    for levels in itertools.product(*(range(len(next(iter(c.rows)))) for c in cols)):
        data: dict[str, list[str]] = {}
        cost = Fraction(0)
        for j, (q, c, h) in enumerate(zip(t.qi, cols, levels, strict=True)):
            fields = [c.path[str(r[j])][h] for r in rows]
            data[q] = fields
            cost += sum((c.cost((h, f), objective) for f in fields), Fraction(0))
        for s in t.sensitive:
            data[s] = t.frame[s].to_list()
        if best is not None and cost >= best:
            continue
        if verify(pl.DataFrame(data), list(t.qi), list(t.sensitive), [model]).passed:
            best = cost
    return best


MODELS: dict[str, PrivacyModel] = {
    "k2": KAnonymity(2),
    "k3": KAnonymity(3),
    "l2": LDiversity(2),
    "distinct-l2": DistinctLDiversity(2),
    "entropy-l2": EntropyLDiversity(2),
    "recursive": RecursiveCLDiversity(2, 2),
    "p2-k3": PSensitiveKAnonymity(2, 3),
    "t0.3": TCloseness(0.3),
    "t0.25-hier": TCloseness(0.25, HierarchicalDistance((("v0", "x", "*"), ("v1", "x", "*"),
                                                         ("v2", "*", "*")))),
    "k2+t0.4": AllOf(KAnonymity(2), TCloseness(0.4)),
}


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("seed", range(4))
def test_equals_exhaustive_lattice(seed: int, name: str) -> None:
    model = MODELS[name]
    t = random_dgh_table(2000 + seed, 10, 3, 3, s=3)
    assert not t.rt.dgh.is_flat
    for objective in ("stars+loss", "loss"):  # with hierarchies stars break ties by loss
        opt = exhaustive(t, model, objective)
        asked = "stars" if objective == "stars+loss" else objective
        if opt is None:
            with pytest.raises(Infeasible):
                full_domain.solve(t.rt, model, objective=asked)
            continue
        plan = full_domain.solve(t.rt, model, objective=asked)
        assert plan_objective(t, plan, objective) == opt
        objective = asked
        slow = full_domain.solve(t.rt, model, objective=objective, prune=False)
        assert slow.certificate["levels"] == plan.certificate["levels"]
        assert slow.certificate["pruned"] == 0
        release_and_verify(t, plan, model)


@pytest.mark.parametrize("seed", range(12))
def test_pruned_search_equals_unpruned(seed: int) -> None:
    """Larger lattices than the exhaustive oracle takes: pruning changes only the work."""
    rng = np.random.default_rng(seed)
    t = random_dgh_table(3000 + seed, int(rng.integers(20, 60)), int(rng.integers(3, 6)), 5,
                         s=3)
    for name in ("k3", "distinct-l2", "t0.3", "p2-k3"):
        model = MODELS[name]
        for objective in ("stars", "loss"):
            try:
                fast = full_domain.solve(t.rt, model, objective=objective)
            except Infeasible:
                with pytest.raises(Infeasible):
                    full_domain.solve(t.rt, model, objective=objective, prune=False)
                continue
            slow = full_domain.solve(t.rt, model, objective=objective, prune=False)
            assert fast.certificate["optimum"] == slow.certificate["optimum"]
            assert fast.certificate["levels"] == slow.certificate["levels"]


def test_flat_hierarchies_suppress_the_fewest_columns() -> None:
    for seed in range(10):
        rt = random_table(seed, 30, m=4, values=3)
        for k in (2, 3, 5):
            plan = full_domain.solve(rt, KAnonymity(k))
            cols = attribute_suppression.solve(rt, KAnonymity(k))
            starred = sum(v for v in plan.certificate["levels"].values())
            assert plan.stars == rt.n * starred
            assert plan.stars == cols.stars


def test_monotone_models() -> None:
    assert all(full_domain.monotone(m) for m in MODELS.values())
    matrix = TCloseness(0.3, MatrixDistance([[0, 1], [1, 0]], values=("v0", "v1")))
    assert not full_domain.monotone(matrix)
    assert not full_domain.monotone(AllOf(KAnonymity(2), matrix))


def test_matrix_distance_is_searched_without_pruning() -> None:
    t = random_dgh_table(77, 12, 3, 3, s=2)
    matrix = TCloseness(0.3, MatrixDistance([[0, 1], [1, 0]], values=("v0", "v1")))
    plan = full_domain.solve(t.rt, matrix, objective="loss")
    assert plan.certificate["monotone"] is False and plan.certificate["pruned"] == 0
    assert plan_objective(t, plan, "loss") == exhaustive(t, matrix, "loss")


def test_registry_limits_and_options() -> None:
    alg = registry.get("full-domain")
    assert alg.guarantee.kind == "heuristic" and alg.objectives == ("stars", "loss")
    assert "full-domain" in alg.guarantee.statement and "local" in alg.guarantee.statement
    t = random_dgh_table(5, 20, 3, 4)
    with pytest.raises(InvalidInput, match="objective must be"):
        full_domain.solve(t.rt, KAnonymity(2), objective="area")
    with pytest.raises(InvalidInput, match="max_checks"):
        full_domain.solve(t.rt, KAnonymity(2), max_checks=0)
    with pytest.raises(InvalidInput, match="options"):
        full_domain.solve(t.rt, KAnonymity(2), budget=3)
    with pytest.raises(SolverLimit, match="max_checks"):
        full_domain.solve(t.rt, KAnonymity(20), max_checks=1)
    with pytest.raises(Infeasible):
        full_domain.solve(t.rt, KAnonymity(21))
    wide = random_table(1, 10, m=18, values=2)  # 2^18 level vectors over flat hierarchies
    reason = full_domain.supports(KAnonymity(2), wide)
    assert reason is not None and "200,000" in reason and "--method auto" in reason
