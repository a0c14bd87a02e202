"""Hierarchies over node codes: the ARX file -> node codes, covers / lca, plan validation,
and each star released as the lowest common ancestor of its class."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.data.hierarchies import ROOT, ColumnHierarchy, Hierarchies
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.transform.generalize import lowest_nodes
from starmin.transform.hierarchy import Hierarchy
from starmin.transform.nodes import column_hierarchy, read_specs, resolve
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

G = Guarantee("heuristic", "test plan")

# 47 is in the file but not in the table: it counts as a leaf of 45-49 / 40-49 (and of the
# domain, 5 values) but 45-49 holds no value of the table, so it is no node.
AGE = """30;30-34;30-39;*
32;30-34;30-39;*
35;35-39;30-39;*
41;40-44;40-49;*
47;45-49;40-49;*
"""
DOMAIN = (30, 32, 35, 41)


def age() -> ColumnHierarchy:
    return column_hierarchy(Hierarchy.parse(AGE, name="age"), DOMAIN)


def test_file_to_node_codes_literal() -> None:
    c = age()
    # leaves 0..3 = 30, 32, 35, 41; level 1: 30-34 (4), 35-39 (5), 40-44 (6); level 2:
    # 30-39 (7), 40-49 (8); the root is -1
    assert c.card == 4 and c.nodes == 9 and c.height == 3
    assert c.labels == ("30-34", "35-39", "40-44", "30-39", "40-49")
    assert c.parent.tolist() == [4, 4, 5, 6, 7, 7, 8, ROOT, ROOT]
    assert c.level.tolist() == [0, 0, 0, 0, 1, 1, 1, 2, 2]
    assert c.leaves.tolist() == [1, 1, 1, 1, 2, 1, 1, 3, 2]  # over the file's 5 values
    assert c.observed.tolist() == [1, 1, 1, 1, 2, 1, 1, 3, 1]  # over the table's 4
    assert c.domain == 5
    assert c.up.tolist() == [[0, 1, 2, 3], [4, 4, 5, 6], [7, 7, 7, 8], [ROOT] * 4]
    assert c.label(7) == "30-39"


def test_covers_and_lca() -> None:
    c = age()
    node = np.array([4, 4, 4, 7, 7, 8, 0, 0, ROOT, 9, -2])
    leaf = np.array([0, 1, 2, 2, 3, 3, 0, 1, 3, 0, 0])
    assert c.covers(node, leaf).tolist() == [True, True, False, True, False, True, True,
                                             False, True, False, False]
    assert c.lca(np.array([0, 1])) == 4
    assert c.lca(np.array([0, 2])) == 7
    assert c.lca(np.array([1, 3])) == ROOT
    assert c.lca(np.array([2, 2])) == 2
    assert c.level_of(np.array([0, 5, 8, ROOT])).tolist() == [0, 1, 2, 3]
    assert c.leaves_of(np.array([0, 5, 7, ROOT])).tolist() == [1, 1, 3, 5]


def test_flat_is_suppression() -> None:
    c = ColumnHierarchy.flat(3)
    assert c.is_flat and c.height == 1 and c.nodes == 3 and c.domain == 3
    assert c.up.tolist() == [[0, 1, 2], [ROOT] * 3]
    assert c.covers(np.array([0, ROOT, 1]), np.array([0, 2, 2])).tolist() == [True, True, False]
    assert c.lca(np.array([0, 1])) == ROOT and c.lca(np.array([1, 1])) == 1
    h = Hierarchies.flat([3, 2])
    assert h.is_flat and h.heights == (1, 1)
    # the generalizer of flat hierarchies is Liang & Yuan's suppressor
    codes = np.array([[0, 1], [0, 0]])
    assert h.generalizer(codes).tolist() == [0, STAR]


def test_generalizer_is_the_lowest_common_ancestor_per_column() -> None:
    h = Hierarchies((age(), ColumnHierarchy.flat(2)))
    assert h.generalizer(np.array([[0, 1], [1, 1]])).tolist() == [4, 1]
    assert h.generalizer(np.array([[0, 1], [2, 0]])).tolist() == [7, STAR]
    out = np.array([[4, 1], [ROOT, 0], [8, 1]])
    assert h.level_of(out).tolist() == [[1, 0], [3, 0], [2, 0]]
    assert h.leaves_of(out).tolist() == [[2, 1], [5, 1], [2, 1]]
    assert h.generalized(out).tolist() == [[True, False], [False, False], [True, False]]


def test_a_value_may_go_straight_to_the_root() -> None:
    h = Hierarchy.parse("a;g;*\nb;g;*\nc;*;*\n;*;*\n")
    c = column_hierarchy(h, ("a", "b", "c", None))
    assert c.labels == ("g",) and c.parent.tolist() == [4, 4, ROOT, ROOT, ROOT]
    assert c.up[1].tolist() == [4, 4, ROOT, ROOT]
    assert c.lca(np.array([0, 2])) == ROOT


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a;x;*\nb;y;ALL\n", r"more than one top: line 1 ends in '\*' but line 2 ends in "
                             r"'ALL'.*add a last level '\*' to every line"),
        ("a;b;*\nb;c;*\n", r"'b' names two nodes: a value on line 2 and a group at level 1 on "
                           r"line 1.*give the group a label of its own"),
        ("a;x;y;*\nb;y;z;*\n", r"'y' names two nodes: a group at level 1 on line 2 and a group "
                               r"at level 2 on line 1"),
        ("a;*;x;*\n", r"line 1 of the hierarchy \(h.csv\) reaches the top '\*' at level 1 and then "
                      r"continues with 'x'"),
        ("a;x\nb;y\n", r"more than one top: line 1 ends in 'x' but line 2 ends in 'y'"),
        ("a;g;ALL\nALL;g;ALL\n", r"value 'ALL' on line 2 is also the label of the root"),
    ],
)
def test_tree_rules(text: str, message: str) -> None:
    h = Hierarchy.parse(text, source="h.csv")
    with pytest.raises(InvalidInput, match=message):
        h.check_tree()


def test_two_parents_is_named() -> None:
    with pytest.raises(InvalidInput, match=r"'x' \(level 1\) has two parents: line 1 puts"):
        Hierarchy.parse("a;x;*\nb;x;+\n")


def test_value_missing_from_the_file_is_named() -> None:
    h = Hierarchy.parse(AGE, name="age", source="age.csv")
    with pytest.raises(InvalidInput, match=r"hierarchy for column 'age' \(age.csv\) has no row "
                                           r"for value '33': add a line '33;\.\.\.'"):
        column_hierarchy(h, (30, 33))
    with pytest.raises(InvalidInput, match=r"no row for the missing value: add a line ';\.\.\.'"):
        column_hierarchy(h, (30, None))


def test_every_arx_hierarchy_is_a_tree() -> None:
    from tests.helpers.shared import shared_file

    files = sorted(shared_file("data/arx/adult_hierarchy_age.csv").parent
                   .glob("*hierarchy*.csv"))
    assert len(files) == 15
    for f in files:
        h = Hierarchy.read(f)
        h.check_tree()
        c = column_hierarchy(h, h.values)
        assert c.domain == len(h) and c.height == h.top


def rowtypes(hierarchies: Hierarchies | None = None) -> RowTypes:
    # age codes 0..3 = 30, 32, 35, 41; sex 0 = F, 1 = M; one row per row type
    codes = np.array([[0, 1], [1, 1], [2, 0], [3, 0]])
    return RowTypes(("age", "sex"), codes, np.ones((4, 1), dtype=np.int64),
                    (DOMAIN, ("F", "M")), hierarchies=hierarchies)


def hier() -> Hierarchies:
    return Hierarchies((age(), ColumnHierarchy.flat(2)))


def plan(outputs: list[list[int]], out_idx: list[int]) -> ReleasePlan:
    return ReleasePlan(np.array(outputs), np.array(out_idx), np.arange(4), np.zeros(4, int),
                       np.ones(4, int), "test", G)


def test_validate_accepts_ancestors_only_with_hierarchies() -> None:
    p = plan([[4, 1], [ROOT, 0]], [0, 0, 1, 1])
    p.validate(rowtypes(hier()))
    with pytest.raises(ValueError, match="does not generalize"):
        p.validate(rowtypes())  # without hierarchies a cell is its value or a star
    with pytest.raises(ValueError, match="does not generalize"):
        plan([[5, 1], [ROOT, 0]], [0, 0, 1, 1]).validate(rowtypes(hier()))  # 35-39 ∌ 30
    with pytest.raises(ValueError, match="does not generalize"):
        plan([[99, 1], [ROOT, 0]], [0, 0, 1, 1]).validate(rowtypes(hier()))
    plan([[ROOT, 1], [ROOT, 0]], [0, 0, 1, 1]).validate(rowtypes())


def test_rowtypes_carry_flat_hierarchies_by_default() -> None:
    rt = rowtypes()
    assert rt.hierarchies is None and rt.dgh.is_flat and rt.dgh.heights == (1, 1)
    rt2 = rt.with_hierarchies(hier())
    assert rt2.dgh.heights == (3, 1) and rt2.with_hierarchies(None).hierarchies is None
    with pytest.raises(ValueError, match="one hierarchy per QI column"):
        rt.with_hierarchies(Hierarchies((age(),)))


def test_lowest_nodes_literal() -> None:
    rt = rowtypes(hier())
    # classes {30, 32} (both M) and {35, 41} (both F): age 30-34 for the first; 35 and 41
    # share only the root, so that star stays
    got = lowest_nodes(plan([[ROOT, 1], [ROOT, 0]], [0, 0, 1, 1]), rt)
    got.validate(rt)
    assert got.outputs.tolist() == [[ROOT, 0], [4, 1]]  # rows sorted as np.unique sorts
    assert got.class_sizes.tolist() == [2, 2] and got.stars == 2
    assert got.certificate["generalization"] == {
        "stars_before": 4, "stars": 2, "generalized_cells": 2,
        "rule": "each star -> lowest common ancestor of its class (Bredereck et al. Sec. 4.4)"}
    # equal output vectors are one class: generalized over their joint rows (30, 32, 35)
    got = lowest_nodes(plan([[ROOT, ROOT], [ROOT, ROOT], [ROOT, ROOT], [3, 0]], [0, 1, 2, 3]),
                       rt)
    assert got.outputs.tolist() == [[7, ROOT], [3, 0]]
    # a star over one value becomes its parent, never the value: classes cannot merge
    got = lowest_nodes(plan([[ROOT, 1], [1, 1], [ROOT, 0]], [0, 1, 2, 2]), rt)
    assert got.outputs.tolist() == [[ROOT, 0], [4, 1], [1, 1]]
    # suppression only: the plan itself
    p = plan([[ROOT, 1], [ROOT, 0]], [0, 0, 1, 1])
    assert lowest_nodes(p, rowtypes()) is p


def test_lowest_nodes_keeps_the_classes_on_random_plans() -> None:
    rng = np.random.default_rng(3)
    rt = rowtypes(hier())
    for _ in range(50):
        out_idx = rng.integers(0, 3, 4)
        codes = rt.codes
        vecs = []
        for o in range(3):
            rows = codes[out_idx == o]
            vecs.append(rt.dgh.generalizer(rows).tolist() if len(rows) else [ROOT, ROOT])
        # the suppressor of each group, then randomly more stars
        sup = [[v if v < 4 else ROOT for v in vec] for vec in vecs]
        sup = [[ROOT if rng.random() < 0.3 else v for v in vec] for vec in sup]
        p = plan(sup, out_idx.tolist())
        p.validate(rt)
        got = lowest_nodes(p, rt)
        got.validate(rt)
        before = {tuple(sorted(np.flatnonzero(np.unique(p.outputs, axis=0, return_inverse=True)[1]
                                              .reshape(-1)[p.out_idx] == o)))
                  for o in range(3)} - {()}
        after = {tuple(sorted(np.flatnonzero(got.out_idx == o))) for o in range(got.t_out)} - {()}
        assert before == after  # the same partition of the row types
        assert got.stars <= p.stars


def test_read_specs_and_resolve() -> None:
    with pytest.raises(InvalidInput, match=r"column 'zip', which is not a quasi-identifier"):
        read_specs({"zip": "z.csv"}, ("age",))
    with pytest.raises(InvalidInput, match=r"hierarchy file .*nope.csv does not exist"):
        read_specs({"age": "/nonexistent/nope.csv"}, ("age",))
    with pytest.raises(InvalidInput, match="is a int"):
        read_specs({"age": 3}, ("age",))  # type: ignore[dict-item]
    rt = rowtypes()
    assert resolve(rt, {}, False) is None
    got = resolve(rt, {"age": Hierarchy.parse(AGE)}, False)
    assert got is not None and got.hierarchies.heights == (3, 1) and set(got.files) == {"age"}
    got = resolve(rt, {}, True)  # built-in: intervals for age, flat for sex
    assert got is not None and not got.hierarchies[0].is_flat and got.hierarchies[1].is_flat
    assert set(got.files) == {"age"}
