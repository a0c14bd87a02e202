"""Attribute suppression (src/starmin/algorithms/attribute_suppression.py): the fewest whole QI
columns, against an exhaustive check written here over the expanded rows."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.algorithms import attribute_suppression as attrs
from starmin.algorithms import registry
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit
from starmin.models import KAnonymity, LDiversity, TCloseness
from starmin.models.base import PrivacyModel
from starmin.transform.plan import STAR
from tests.helpers.tables import expanded, from_rows, random_table, satisfies


def exhaustive_k(rt: RowTypes, k: int) -> int:
    """Fewest columns: every column subset by size, classes counted row by row."""
    _, _, X = rt.expand()
    for c in range(rt.m + 1):
        for keep in itertools.combinations(range(rt.m), rt.m - c):
            if min(Counter(tuple(row[list(keep)]) for row in X).values()) >= k:
                return c
    raise AssertionError("k > n")


def exhaustive_model(rt: RowTypes, model: PrivacyModel) -> int | None:
    """Fewest columns for any model: the release of each column subset judged by the plan's
    classes (None: not even all columns)."""
    for c in range(rt.m + 1):
        for sup in itertools.combinations(range(rt.m), c):
            vec = rt.codes.copy()
            vec[:, list(sup)] = STAR
            _, cls = np.unique(vec, axis=0, return_inverse=True)
            counts = np.zeros((int(cls.max()) + 1, rt.s), dtype=np.int64)
            np.add.at(counts, np.asarray(cls).reshape(-1), rt.counts)
            from starmin.models.apply import holds

            if holds(model, rt, counts).all():
                return c
    return None


def test_fewest_columns_for_k_anonymity_on_random_tables() -> None:
    suppressed = Counter()
    for seed in range(200):
        m, n, k = 2 + seed % 6, 5 + seed % 25, 2 + seed % 4
        if k > n:
            continue
        rt = random_table(seed, n, m=m, values=2 + seed % 3)
        choice = attrs.fewest_columns(rt, KAnonymity(k))
        assert len(choice.suppressed) == exhaustive_k(rt, k), seed
        assert sorted(choice.suppressed + choice.kept) == list(range(m))
        plan = attrs.solve(rt, KAnonymity(k))
        plan.validate(rt)
        assert satisfies(plan, rt, KAnonymity(k))
        assert plan.stars == rt.n * len(choice.suppressed)
        assert set(np.flatnonzero((plan.outputs == STAR).all(axis=0))) == set(choice.suppressed)
        suppressed[len(choice.suppressed)] += 1
    assert len(suppressed) >= 4, suppressed  # 0, 1, 2, 3+ columns all occur


def test_fewest_columns_for_other_models() -> None:
    models: list[PrivacyModel] = [LDiversity(2), TCloseness(0.3), KAnonymity(3)]
    seen = Counter()
    for seed in range(60):
        rt = random_table(500 + seed, 10 + seed % 15, m=1 + seed % 4, values=2 + seed % 2, s=3)
        model = models[seed % len(models)]
        want = exhaustive_model(rt, model)
        if want is None:
            with pytest.raises(Infeasible):
                attrs.fewest_columns(rt, model)
            continue
        plan = attrs.solve(rt, model)
        assert plan.certificate["columns_suppressed"] == want, seed
        assert satisfies(plan, rt, model)
        seen[want > 0] += 1
    assert seen[True] and seen[False]


def test_repeated_row_types_do_not_matter() -> None:
    for seed in range(30):
        rt = random_table(seed, 12, m=4, values=3)
        a = attrs.fewest_columns(rt, KAnonymity(2))
        b = attrs.fewest_columns(expanded(rt), KAnonymity(2))
        assert len(a.suppressed) == len(b.suppressed)


def test_theorem_3_2_matching_instance() -> None:
    """Thm 3.2's reduction: vertex i has b_1 in column j iff it lies on hyperedge j. A
    3-uniform hypergraph on 6 vertices with a perfect matching {0,1,2}, {3,4,5} and two more
    edges: keeping the matching's 2 columns is 3-anonymous, so m - n/k = 4 - 2 = 2 columns
    are suppressed; without a perfect matching (edges pairwise intersecting) all but one."""
    edges = [(0, 1, 2), (3, 4, 5), (0, 3, 4), (1, 2, 5)]
    rows = [[int(v in e) for e in edges] for v in range(6)]
    choice = attrs.fewest_columns(from_rows(rows), KAnonymity(3))
    assert choice.kept == (0, 1)
    star = [(0, 1, 2), (0, 3, 4), (0, 2, 5), (1, 3, 5)]  # every two edges meet
    rows = [[int(v in e) for e in star] for v in range(6)]
    assert len(attrs.fewest_columns(from_rows(rows), KAnonymity(3)).suppressed) == 3


def test_nothing_to_suppress_and_infeasible() -> None:
    rt = from_rows([[0, 1]] * 3 + [[1, 1]] * 3)
    plan = attrs.solve(rt, KAnonymity(3))
    assert plan.stars == 0 and plan.certificate["suppressed_columns"] == []
    assert "0 of 2" in plan.guarantee.statement
    with pytest.raises(Infeasible):
        attrs.solve(rt, KAnonymity(7))


def test_work_limit_stops_with_a_clear_error() -> None:
    rt = random_table(3, 200, m=10, values=4)
    with pytest.raises(SolverLimit, match="--attributes"):
        attrs.fewest_columns(rt, KAnonymity(5), max_work=rt.t_in * 5)


def test_not_a_registered_star_method() -> None:
    """Not star-optimal, so it is not in the registry (the contract would compare its stars
    with brute force's)."""
    assert attrs.NAME not in registry.algorithms()


# ---------------------------------------------------------------------------------------
# the Python API


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(4)
    n = 60
    return pl.DataFrame({"zip": rng.integers(0, 30, n).tolist(),
                         "sex": rng.choice(["f", "m"], n).tolist(),
                         "age": rng.choice(["young", "old"], n).tolist(),
                         "s": rng.choice(["x", "y"], n).tolist()})


def test_api_releases_whole_columns_verified() -> None:
    release = starmin.anonymize(_frame(), qi="zip,sex,age", k=5, attributes=True)
    assert release.verification.passed
    cert = release.report["certificate"]
    assert cert["suppressed_columns"] == ["zip"] and cert["optimal"] is True
    assert release.report["guarantee"]["kind"] == "exact"
    assert "1 of 3 (zip)" in release.report["guarantee"]["statement"]
    assert release.table["zip"].unique().to_list() == ["*"]
    assert release.report["stars"] == 60
    assert release.report["method"] == "attributes"


def test_api_refuses_a_method_with_attributes() -> None:
    with pytest.raises(InvalidInput, match=r"attributes=True .* drop method='m-approx'"):
        starmin.anonymize(_frame(), qi="zip,sex", k=2, attributes=True, method="m-approx")
    with pytest.raises(InvalidInput, match="True or False"):
        starmin.anonymize(_frame(), qi="zip,sex", k=2, attributes="yes")
