"""Several sensitive columns in the optimization core: a model holds for each column
(docs/models.md), so the exact MILP (``milp``), ``lp-rounding``'s rounding MILP and
``class-partition``'s class pricing state its value rows once per column. Held to brute
force's optimum on small random tables, to a release the verifier passes, and to tables
where the second column binds (dropping its rows changes the optimum)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import milp_exact
from starmin.data import Schema
from starmin.data.rowtypes import RowTypes
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistance,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.verifier import verify

VALUES = ("a", "b", "c", "d")
HIER = HierarchicalDistance((("a", "ab", "*"), ("b", "ab", "*"), ("c", "cd", "*"),
                             ("d", "cd", "*")))
MODELS: dict[str, PrivacyModel] = {
    "l2": LDiversity(2),
    "distinct-l2": DistinctLDiversity(2),
    "k3-p2": PSensitiveKAnonymity(3, 2),
    "entropy-l2": EntropyLDiversity(2),
    "recursive-c2-l2": RecursiveCLDiversity(2, 2),
    "t0.3-equal": TCloseness(0.3, EqualDistance()),
    "t0.25-ordered": TCloseness(0.25, OrderedDistance()),
    "t0.3-hier": TCloseness(0.3, HIER),
    "k3-and-l2": AllOf(KAnonymity(3), LDiversity(2)),
    "l2-and-t0.4": AllOf(LDiversity(2), TCloseness(0.4, EqualDistance())),
}


def table(seed: int, n: int, m: int, v: int, columns: int = 2
          ) -> tuple[pl.DataFrame, RowTypes, list[str], list[str]]:
    """``n`` rows, ``m`` QIs of ``v`` values; sensitive columns ``s0..`` over 2-4 values,
    the later ones partly following the first (so the columns disagree on which classes are
    diverse)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, v, size=(n, m))
    qi = [f"q{j}" for j in range(m)]
    sens = [f"s{a}" for a in range(columns)]
    first = rng.permutation(np.arange(n) % 3)
    cols = {sens[0]: [VALUES[int(x)] for x in first]}
    for a in range(1, columns):
        other = np.where(rng.random(n) < 0.5, first, rng.integers(0, 4, size=n))
        cols[sens[a]] = [VALUES[int(x)] for x in other]
    df = pl.DataFrame({**{q: X[:, j].tolist() for j, q in enumerate(qi)}, **cols})
    return df, LocalEngine().to_row_types(df, Schema.of(qi, sens)).row_types, qi, sens


TABLES = [(seed, n, m, v) for seed, (n, m, v) in enumerate(
    [(10, 3, 2), (11, 3, 3), (12, 4, 2), (12, 2, 4), (11, 4, 3)])]


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("spec", TABLES, ids=lambda s: f"seed{s[0]}-n{s[1]}-m{s[2]}")
def test_equals_brute_force_with_two_sensitive_columns(
        name: str, spec: tuple[int, int, int, int]) -> None:
    df, rt, qi, sens = table(*spec)
    model = MODELS[name]
    assert milp_exact.supports(model, rt) is None
    try:
        opt = brute_force.solve(rt, model).stars
    except Infeasible:
        with pytest.raises(Infeasible):
            milp_exact.solve(rt, model)
        return
    plan = milp_exact.solve(rt, model)
    plan.validate(rt)
    assert plan.guarantee.kind == "exact" and plan.certificate["proven_optimal"], name
    assert plan.stars == opt == plan.lower_bound, name
    engine = LocalEngine()
    released = engine.apply_plan(engine.to_row_types(df, Schema.of(qi, sens)), plan, seed=0)
    verdict = verify(released, qi, sens, [model])
    assert verdict.passed and verdict.stars == plan.stars


def test_three_sensitive_columns_and_cuts_on_a_later_column() -> None:
    """Three columns; entropy and recursive (c, l) need cuts on the columns after the first
    too. Brute force's optimum on every table, and cuts were made."""
    rounds = 0
    solved = 0
    for seed in range(6):
        _, rt, _, _ = table(100 + seed, 12, 3, 3, columns=3)
        for model in (EntropyLDiversity(2), RecursiveCLDiversity(2, 2),
                      AllOf(DistinctLDiversity(2), TCloseness(0.45, EqualDistance()))):
            try:
                opt = brute_force.solve(rt, model).stars
            except Infeasible:
                continue
            plan = milp_exact.solve(rt, model)
            assert plan.guarantee.kind == "exact" and plan.stars == opt, (seed, model.name)
            rounds += int(plan.certificate.get("cut_rounds", 0))
            solved += 1
    assert solved >= 12
    assert rounds >= 3


def test_the_second_column_binds() -> None:
    """On these tables the optimum over both columns is above the optimum over the first
    alone: a program that dropped the second column's rows would release too few stars."""
    binding = 0
    for seed in range(12):
        df, rt, qi, sens = table(200 + seed, 12, 3, 2)
        first = LocalEngine().to_row_types(df.drop(sens[1]), Schema.of(qi, sens[0])).row_types
        for model in (LDiversity(2), DistinctLDiversity(2), TCloseness(0.3, EqualDistance())):
            try:
                both = brute_force.solve(rt, model).stars
                alone = brute_force.solve(first, model).stars
            except Infeasible:
                continue
            assert milp_exact.solve(rt, model).stars == both
            assert milp_exact.solve(first, model).stars == alone
            binding += int(both > alone)
    assert binding >= 6


@pytest.mark.parametrize("model", [LDiversity(2), AllOf(KAnonymity(3), LDiversity(2)),
                                   TCloseness(0.3, EqualDistance()),
                                   RecursiveCLDiversity(2, 2)], ids=lambda m: m.name)
def test_lp_rounding_states_every_column(model: PrivacyModel) -> None:
    """lp-rounding with two sensitive columns: its rounding MILP holds both columns' rows,
    so its release satisfies the model on both (before the repair's merges: ``holds`` on its
    rounded classes), never below brute force's optimum, with a bound never above it."""
    from starmin.algorithms.lp import lp_rounding
    from starmin.algorithms.lp.colgen import column_generation
    from starmin.algorithms.lp.relaxation import relaxations
    from starmin.algorithms.lp.rounding import groups_of, round_lp
    from starmin.models.apply import holds

    linear = not isinstance(model, RecursiveCLDiversity)  # recursive: strict, repaired after
    seen = 0
    for seed in range(8):
        _, rt, _, _ = table(300 + seed, 12, 3, 2)
        try:
            opt = brute_force.solve(rt, model).stars
        except Infeasible:
            continue
        assert lp_rounding.supports(model, rt) is None
        plan = lp_rounding.solve(rt, model)
        plan.validate(rt)
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
        assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars
        if linear:
            cg = column_generation(rt, lp_rounding.primary(relaxations(model, rt)))
            x = round_lp(cg.pairs, lp_rounding.combined(model, rt), cg.blocks, cg.lp.x)
            for _t, keys, counts in groups_of(cg.pairs, cg.blocks, x):
                kc = np.bincount(keys, weights=counts, minlength=rt.s).astype(np.int64)
                assert holds(model, rt, kc[None, :])[0], (seed, model.name)
        seen += 1
    assert seen >= 4


@pytest.mark.parametrize("name", ["l2", "distinct-l2", "k3-p2", "t0.3-equal", "t0.25-ordered",
                                  "k3-and-l2", "l2-and-t0.4"])
def test_class_partition_states_every_column(name: str) -> None:
    """class-partition (CP-SAT pricing of one class) with two sensitive columns: brute
    force's optimum, its LP bound never above it, a release that verifies; the second
    column binds on some of these tables."""
    from starmin.algorithms.classes import class_partition

    model = MODELS[name]
    seen = 0
    for spec in TABLES[:4]:
        df, rt, qi, sens = table(*spec)
        assert class_partition.supports(model, rt) is None
        try:
            opt = brute_force.solve(rt, model).stars
        except Infeasible:
            continue
        plan = class_partition.solve(rt, model, seed=0)
        assert plan.guarantee.kind == "exact" and plan.stars == opt == plan.lower_bound, spec
        bound = class_partition.lower_bound(rt, model)
        assert bound is not None and bound <= opt
        engine = LocalEngine()
        released = engine.apply_plan(engine.to_row_types(df, Schema.of(qi, sens)), plan,
                                     seed=0)
        assert verify(released, qi, sens, [model]).passed
        seen += 1
    assert seen >= 2
