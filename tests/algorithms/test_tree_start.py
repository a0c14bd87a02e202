"""Merge-repair's ``"tree"`` start (stop 59, :mod:`starmin.algorithms.heuristic._tree_start`):
the split tree, its placement LP (against a second formulation of the same LP), the rounding,
releases that satisfy the model, and ``auto``'s choice of it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from starmin.algorithms.exact import brute_force
from starmin.algorithms.heuristic import merge_repair
from starmin.algorithms.heuristic._level_start import _part
from starmin.algorithms.heuristic._tree_start import (
    Tree,
    placement,
    rounded_groups,
    split_tree,
    tree_plan,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from tests.helpers.adult import adult_encoded
from tests.helpers.tables import feasible, from_rows, random_table, tiny_tables


def _tables(l: int, count: int = 12) -> Iterator[RowTypes]:
    """The first ``count`` random tables (3-5 QIs of 2-4 values, 3-5 sensitive values) on
    which frequency l-diversity is feasible."""
    found = 0
    for seed in range(10 * count):
        if found == count:
            return
        m = 3 + seed % 3
        rt = random_table(4_100 + seed, 30 + 3 * seed, m, values=[2, 3, 2, 4, 3][:m],
                          s=3 + seed % 3)
        if feasible(LDiversity(l), rt):
            found += 1
            yield rt


def _part_of(rt: RowTypes, l: int):  # type: ignore[no-untyped-def]
    return partial(_part, judge=merge_repair.make_judge(LDiversity(l), rt), l=l)


def _subtree(tree: Tree) -> list[list[int]]:
    """Per node, the nodes of its subtree (itself included)."""
    below: list[list[int]] = [[v] for v in range(len(tree.parent))]
    for v in np.argsort(-tree.depth, kind="stable").tolist():
        if tree.parent[v] >= 0:
            below[int(tree.parent[v])].extend(below[v])
    return below


@pytest.mark.parametrize("l", [2, 3])
def test_each_node_keeps_the_columns_its_path_split_on(l: int) -> None:
    checked = 0
    for rt in _tables(l):
        checked += 1
        tree = split_tree(rt, _part_of(rt, l), l)
        assert tree.parent[0] == -1 and tree.column[0] == -1 and tree.depth[0] == 0
        assert (tree.parent[1:] < np.arange(1, len(tree.parent))).all()  # parents first
        assert (tree.depth[1:] == tree.depth[tree.parent[1:]] + 1).all()
        below = _subtree(tree)
        for v in range(len(tree.parent)):
            path, u = [], v
            while u > 0:
                path.append(int(tree.column[u]))
                u = int(tree.parent[u])
            assert len(set(path)) == len(path) == tree.depth[v]
            types = np.flatnonzero(np.isin(tree.home, below[v]))
            for c in path:  # the subtree's row types agree on every column kept
                assert len(np.unique(rt.codes[types, c])) == 1
            if v > 0:  # a node holds at least the fewest rows of a class
                assert rt.counts[types].sum() >= l
    assert checked == 12


def _laminar_lp(rt: RowTypes, tree: Tree, l: int) -> float:
    """The placement LP stated without the flow: ``x(N, u)`` only, at most the rows of ``u``
    homed in ``N``'s subtree placed anywhere in that subtree (a laminar family, so this is
    exactly what some placement of the rows up their paths achieves), every row placed, and
    every node l-eligible; HiGHS's dual simplex."""
    N, s = len(tree.parent), rt.s
    below = _subtree(tree)
    own = np.zeros((N, s))
    np.add.at(own, tree.home, rt.counts)
    col = np.arange(N * s).reshape(N, s)
    rows, cols, vals, b_ub = [], [], [], []
    r = 0
    for v in range(N):
        for u in range(s):
            members = [int(col[w, u]) for w in below[v]]
            rows += [r] * len(members)
            cols += members
            vals += [1.0] * len(members)
            b_ub.append(own[below[v], u].sum())
            r += 1
    for v in range(N):  # l x(v, u) - sum_w x(v, w) <= 0
        for u in range(s):
            for w in range(s):
                rows.append(r)
                cols.append(int(col[v, w]))
                vals.append(float(l) - 1.0 if w == u else -1.0)
            b_ub.append(0.0)
            r += 1
    A_ub = sp.csr_matrix((vals, (rows, cols)), shape=(r, N * s))
    A_eq = sp.csr_matrix((np.ones(N * s), (np.tile(np.arange(s), N), np.arange(N * s))),
                         shape=(s, N * s))
    c = np.repeat(rt.m - tree.depth, s).astype(float)
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=rt.counts.sum(axis=0),
                  bounds=(0, None), method="highs-ds")
    assert res.status == 0
    return float(res.fun)


@pytest.mark.parametrize("l", [2, 3])
def test_the_lp_places_every_row_up_its_path_at_the_laminar_lps_optimum(l: int) -> None:
    checked = 0
    for rt in _tables(l, 8):
        checked += 1
        tree = split_tree(rt, _part_of(rt, l), l)
        x = placement(rt, tree, l)
        assert x is not None
        assert np.allclose(x.sum(axis=0), rt.counts.sum(axis=0), atol=1e-5)  # every row
        n = x.sum(axis=1)
        assert (l * x <= n[:, None] + 1e-5).all()  # every node l-eligible
        own = np.zeros_like(x)
        np.add.at(own, tree.home, rt.counts)
        for v, sub in enumerate(_subtree(tree)):  # rows only go up their path
            assert (x[sub].sum(axis=0) <= own[sub].sum(axis=0) + 1e-5).all(), v
        value = float((rt.m - tree.depth) @ n)
        assert value == pytest.approx(_laminar_lp(rt, tree, l), rel=1e-6, abs=1e-5)
    assert checked == 8


@pytest.mark.parametrize("l", [2, 3])
def test_the_rounding_places_every_row_once_and_only_the_root_may_fail(l: int) -> None:
    checked = 0
    for rt in _tables(l):
        checked += 1
        part = _part_of(rt, l)
        tree = split_tree(rt, part, l)
        x = placement(rt, tree, l)
        assert x is not None
        groups = rounded_groups(rt, tree, x, part)
        got = np.zeros_like(rt.counts)
        for t, u, c in groups:
            np.add.at(got, (t, u), c)
        assert np.array_equal(got, rt.counts)
        hist = np.zeros((len(groups), rt.s), dtype=np.int64)
        for g, (_, u, c) in enumerate(groups):
            np.add.at(hist[g], u, c)
        ok = holds(LDiversity(l), rt, hist)
        assert ok[:-1].all()  # the root's class, made last, is the only one left to repair
    assert checked == 12


MODELS = [LDiversity(2), LDiversity(3), AllOf(KAnonymity(2), LDiversity(3)),
          DistinctLDiversity(3), EntropyLDiversity(2), RecursiveCLDiversity(3, 2)]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_releases_from_the_tree_start_satisfy_the_model_and_repeat(model: PrivacyModel) -> None:
    checked = 0
    for seed, rt in tiny_tables(5_300):
        if not feasible(model, rt):
            continue
        checked += 1
        plan = merge_repair.solve(rt, model, seed=seed, start="tree")
        plan.validate(rt)
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
        assert plan.stars >= brute_force.solve(rt, model).stars
        assert plan.certificate["start"] == "tree"
        again = merge_repair.solve(rt, model, seed=seed, start="tree")
        for a in ("outputs", "out_idx", "type_idx", "key_idx", "count"):
            assert np.array_equal(getattr(plan, a), getattr(again, a))
    assert checked >= 10


def test_a_literal_table() -> None:
    # Rows (QI, value): A = (0, 0) holds a, a; B = (0, 1) holds b, b; C = (1, 0) holds a, b.
    # l = 2: C is a class of its own; A and B meet at one star in (0, *); 4 stars in all
    rt = from_rows([[0, 0]] * 2 + [[0, 1]] * 2 + [[1, 0]] * 2, [0, 0, 1, 1, 0, 1])
    part = _part_of(rt, 2)
    tree = split_tree(rt, part, 2)
    x = placement(rt, tree, 2)
    assert x is not None
    assert float((rt.m - tree.depth) @ x.sum(axis=1)) == pytest.approx(4.0)
    plan = tree_plan(rt, part, 2, 2, "t", merge_repair.GUARANTEE)
    assert plan is not None
    assert plan.stars == 4 == brute_force.solve(rt, LDiversity(2)).stars


@pytest.mark.parametrize("model", [TCloseness(0.3), KAnonymity(2)], ids=lambda m: m.name)
def test_models_it_cannot_place_are_refused_with_the_fix(model: PrivacyModel) -> None:
    rt = random_table(5, 20, 3, values=2, s=3)
    with pytest.raises(InvalidInput, match=r"start 'tree'.*start='auto'"):
        merge_repair.solve(rt, model, start="tree")


def test_auto_takes_the_tree_start_where_the_free_rows_are_near_to_failing() -> None:
    # twelve row types of one row each: phase one keeps none, so every row is free; one value
    # holds 4 of 12: l = 2 gives 2 x 4/12 = 0.67 (< 0.77), l = 3 gives 1.0
    rt = from_rows([[i, 0] for i in range(12)], [0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3])
    assert not merge_repair.tree_prefers(2, rt)
    assert merge_repair.tree_prefers(3, rt)
    # the same values in two row types of six rows, (4, 2, 0, 0) and (0, 1, 2, 3): phase one
    # keeps (2, 2, 0, 0) and all of the second star-free, so the free rows are two of value 0
    # alone (share 1): the tree start first at l = 2, though the table's share gives 0.67
    rt = from_rows([[0, 0]] * 6 + [[1, 1]] * 6, [0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3])
    assert merge_repair.tree_prefers(2, rt)
    # nothing free: no tree
    assert not merge_repair.tree_prefers(2, from_rows([[0, 0]] * 4, [0, 1, 0, 1]))


def test_auto_on_adult_runs_the_tree_start_for_l_5_and_6_and_the_level_start_for_l_4() -> None:
    rt = adult_encoded()[2].row_types  # 8 QIs, occupation (its largest share 13.4 %)
    for l in (5, 6):
        assert merge_repair.auto_run(LDiversity(l), rt, 7.0).options == {
            "start": "tree", "rules": ("spread",)}
    assert merge_repair.auto_run(LDiversity(4), rt, 7.0).options.get("start") == "levels"
