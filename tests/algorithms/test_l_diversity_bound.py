"""The diversity lower bounds (Xiao et al.'s phase-one bound for frequency l-diversity; row
types with too few distinct sensitive values) never exceed the optimum (brute force), are
tight on literal tables, and make the reported bound independent of the method that ran."""

from __future__ import annotations

import numpy as np
import pytest

import starmin
from starmin.algorithms.diversity_levels import levels
from starmin.algorithms.exact import brute_force
from starmin.algorithms.l_diversity_bound import (
    diversity_lower_bounds,
    few_values_bound,
    frequency_tuple_bound,
)
from starmin.api import lower_bounds
from starmin.errors import Infeasible
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
)
from starmin.models.base import PrivacyModel
from tests.helpers.tables import from_rows, random_table, two_sensitive_table

MODELS: list[PrivacyModel] = [
    LDiversity(2), LDiversity(3), DistinctLDiversity(2), DistinctLDiversity(3),
    EntropyLDiversity(2), RecursiveCLDiversity(c=2, l=2), PSensitiveKAnonymity(p=2, k=2),
    AllOf(KAnonymity(3), LDiversity(2)),
]


def _balanced(seed: int) -> starmin.RowTypes:
    """6-11 rows, 1-3 QIs; sensitive values as even as possible (so l = 3 is often feasible)."""
    rng = np.random.default_rng(seed)
    n, m, s = 6 + seed % 6, 1 + seed % 3, 3 + seed % 2
    X = rng.integers(0, 2 + seed % 2, size=(n, m))
    return starmin.RowTypes.from_arrays(X, rng.permutation(np.arange(n) % s))


def _optimum(rt: starmin.RowTypes, model: PrivacyModel) -> int | None:
    try:
        return int(brute_force.solve(rt, model).stars)
    except Infeasible:
        return None


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_bounds_never_exceed_the_optimum(model: PrivacyModel) -> None:
    feasible = tight = 0
    for seed in range(60):
        n = 6 + seed % 6
        rt = (_balanced(seed) if seed % 2 else
              random_table(seed, n, m=1 + seed % 3, values=2 + seed % 2, s=2 + seed % 3))
        opt = _optimum(rt, model)
        if opt is None:
            continue
        feasible += 1
        bounds = lower_bounds(rt, model)
        assert all(v <= opt for v in bounds.values()), (seed, bounds, opt)
        tight += bounds["best"] == opt
    assert feasible >= 15  # the sample exercises the bound, not only infeasible tables
    assert tight >= 3


@pytest.mark.parametrize("model", [LDiversity(2), DistinctLDiversity(2)], ids=str)
def test_two_sensitive_columns(model: PrivacyModel) -> None:
    checked = 0
    for seed in range(60):
        rt = two_sensitive_table(seed, 8 + seed % 3, m=2, values=2, s=(3, 3))
        opt = _optimum(rt, model)
        if opt is None:
            continue
        checked += 1
        assert lower_bounds(rt, model)["best"] <= opt, seed
    assert checked >= 10


def test_literal_tables() -> None:
    # two row types of three rows, each holding one value: every row needs a star (m = 1)
    rt = from_rows([[0]] * 3 + [[1]] * 3, [0] * 3 + [1] * 3)
    assert diversity_lower_bounds(rt, [DistinctLDiversity(2)]) == {"distinct_values": 6}
    assert diversity_lower_bounds(rt, [LDiversity(2)]) == {"distinct_values": 6,
                                                           "l_frequency": 6,
                                                           "l_value_flow": 6}
    assert brute_force.solve(rt, LDiversity(2)).stars == 6
    # one row type x x x y: phase one keeps x y (h* = 1), R1 = {x, x}: 2 * h(R1) = 4 tuples
    counts = np.array([[3, 1], [0, 2], [1, 1]])
    assert frequency_tuple_bound(np.array([[3, 1]]), 2) == 4  # |R1| = 2, l * h(R1) = 4
    assert few_values_bound(counts, 2) == 2  # the [0, 2] row type
    assert few_values_bound(counts, 1) == 0
    assert diversity_lower_bounds(from_rows([[0]], None), [LDiversity(2)]) == {}


def test_reported_bound_does_not_depend_on_the_method() -> None:
    from starmin.datasets import synthetic_census

    df = synthetic_census(1500, seed=5)
    qi = "sex,age,race,marital-status,education"
    seen = {}
    for method in ("tp", "tp+", "hilbert", "merge-repair"):
        r = starmin.anonymize(df, qi=qi, sensitive="occupation", l=2, method=method)
        bounds = {k: v for k, v in r.report["lower_bounds"].items() if k != "algorithm"}
        seen[method] = (r.report["lower_bound"], bounds)
        assert r.report["stars"] >= r.report["lower_bound"]
    assert len({repr(v) for v in seen.values()}) == 1, seen
    assert seen["tp"][1]["l_frequency"] > 0


def test_levels_weigh_the_rows_that_must_carry_stars() -> None:
    # A = (0, 0, 0) holds only a, B = (1, 1, 0) only b: no one-star group holds both, the
    # two-star group (*, *, 0) does, so each of the four rows carries two stars (the optimum)
    rt = from_rows([[0, 0, 0]] * 2 + [[1, 1, 0]] * 2, [0, 0, 1, 1])
    assert levels(rt.codes, rt.counts, 2, np.array([True, True])).tolist() == [2, 2]
    assert diversity_lower_bounds(rt, [DistinctLDiversity(2)]) == {"distinct_values": 8,
                                                             "distinct_charges": 8}
    assert diversity_lower_bounds(rt, [LDiversity(2)])["l_frequency"] == 8
    assert brute_force.solve(rt, DistinctLDiversity(2)).stars == 8
    # without the codes (or with a budget below the first level) each row counts one star
    assert few_values_bound(rt.counts, 2) == 4
    assert levels(rt.codes, rt.counts, 2, np.array([True, True]), max_patterns=2).tolist() == [1, 1]
    assert levels(rt.codes, rt.counts, 2, np.array([True, True]), max_entries=5).tolist() == [1, 1]
    # a row type that needs no star has level 0
    assert levels(rt.codes, rt.counts, 2, np.array([True, False])).tolist() == [2, 0]


@pytest.mark.parametrize("q", [2, 3])
def test_levels_never_exceed_the_optimum(q: int) -> None:
    """Level-weighted bounds on their own (the report takes the best of all bounds, so this
    is where a wrong level would show), against brute force; some tables need level 2+."""
    deeper = checked = 0
    for seed in range(80):
        rng = np.random.default_rng(100 + seed)
        n, m = 6 + seed % 5, 2 + seed % 2
        X = rng.integers(0, 2, size=(n, m))
        rt = starmin.RowTypes.from_arrays(X, rng.integers(0, q + seed % 2, size=n))
        lev = levels(rt.codes, rt.counts, q, np.ones(rt.t_in, dtype=bool))
        for model, bound in ((DistinctLDiversity(q), few_values_bound(rt.counts, q, lev)),
                             (LDiversity(q), frequency_tuple_bound(rt.counts, q, lev))):
            opt = _optimum(rt, model)
            if opt is None:
                continue
            checked += 1
            assert bound <= opt, (seed, model.name, bound, opt)
            plain = (few_values_bound(rt.counts, q) if isinstance(model, DistinctLDiversity)
                     else frequency_tuple_bound(rt.counts, q))
            deeper += bound > plain
    assert checked >= 30
    assert deeper >= 3  # the levels raise the bound on some tables, not only on literal ones


def test_levels_the_same_with_more_than_64_values() -> None:
    """Beyond 64 values a group's values are counted from a 0/1 matrix instead of bit sets:
    the same levels as the table with its empty value columns dropped."""
    rng = np.random.default_rng(3)
    for seed in range(5):
        codes = rng.integers(0, 3, size=(40, 3))
        compact = rng.integers(0, 3, size=(40, 5)) * (rng.random((40, 5)) < 0.3)
        wide = np.zeros((40, 70), dtype=np.int64)
        wide[:, rng.choice(70, size=5, replace=False)] = compact
        needed = np.ones(40, dtype=bool)
        for q in (2, 3):
            assert np.array_equal(levels(codes, wide, q, needed),
                                  levels(codes, compact, q, needed)), (seed, q)


def _levels_by_definition(codes: np.ndarray, histogram: np.ndarray, q: int,
                          needed: np.ndarray) -> list[int]:
    """The fewest stars j >= 1 of a pattern whose group of each needed row type holds q
    values, every pattern tried directly (no enumeration budget; m when none does)."""
    t_in, m = codes.shape
    out = []
    for v in range(t_in):
        if not needed[v]:
            out.append(0)
            continue
        best = m
        for mask in range(1, 1 << m):
            kept = [c for c in range(m) if not (mask >> c) & 1]
            same = np.all(codes[:, kept] == codes[v, kept], axis=1)
            if (histogram[same].sum(axis=0) > 0).sum() >= q:
                best = min(best, bin(mask).count("1"))
        out.append(best if best < m else m)
    return out


@pytest.mark.parametrize("wide", [False, True])
def test_levels_equal_their_definition(wide: bool) -> None:
    """Groups of a pattern are built from the groups of a pattern with one star fewer; the
    levels equal those of every group formed directly. ``wide``: codes up to 2^20 per column,
    so the mixed radix of all columns overflows int64 and the keys take the rank path."""
    rng = np.random.default_rng(7 + wide)
    for seed in range(60):
        t_in, m = int(rng.integers(1, 25)), int(rng.integers(1, 6))
        codes = rng.integers(0, 3, size=(t_in, m))
        if wide:
            codes[0] = 1 << 20
        histogram = (rng.random((t_in, 4)) < 0.35).astype(np.int64)
        needed = rng.random(t_in) < 0.8
        for q in (1, 2, 3, 4):
            assert levels(codes, histogram, q, needed).tolist() == _levels_by_definition(
                codes, histogram, q, needed), (wide, seed, q)
