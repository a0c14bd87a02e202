"""Loss measures from the plan and the row types: literal values worked by hand, and agreement
with a row-by-row computation on random plans."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest

from starmin.data.hierarchies import ROOT, ColumnHierarchy, Hierarchies
from starmin.data.rowtypes import RowTypes
from starmin.transform import loss as L
from starmin.transform.hierarchy import Hierarchy
from starmin.transform.nodes import column_hierarchy
from starmin.transform.plan import Guarantee, ReleasePlan

G = Guarantee("heuristic", "test plan")

# 47 is in the file, not in the table: the age domain has D = 5 values
AGE = "30;30-34;30-39;*\n32;30-34;30-39;*\n35;35-39;30-39;*\n41;40-44;40-49;*\n47;45-49;40-49;*\n"


def plan(outputs: list[list[int]], out_idx: list[int], type_idx: list[int],
         count: list[int]) -> ReleasePlan:
    return ReleasePlan(np.array(outputs), np.array(out_idx), np.array(type_idx),
                       np.zeros(len(count), int), np.array(count), "test", G)


def test_hand_worked_generalization() -> None:
    # rows (30, M), (32, M), (35, F), (41, F); age codes 0..3, 30-34 = 4 (2 leaves), height 3;
    # sex F = 0, M = 1, flat.
    age = column_hierarchy(Hierarchy.parse(AGE), (30, 32, 35, 41))
    rt = RowTypes(("age", "sex"), np.array([[0, 1], [1, 1], [2, 0], [3, 0]]),
                  np.ones((4, 1), np.int64), ((30, 32, 35, 41), ("F", "M")),
                  hierarchies=Hierarchies((age, ColumnHierarchy.flat(2))))
    # class A = {30, 32} as (30-34, M); class B = {35, 41} as (*, F)
    p = plan([[4, 1], [ROOT, 0]], [0, 0, 1, 1], [0, 1, 2, 3], [1, 1, 1, 1])
    got = L.measures(p, rt, k=2)
    assert got.stars == 2 and got.generalized_cells == 2
    assert dict(got.generalized_per_column) == {"age": 2, "sex": 0}
    # LM, age: A's 2 cells (2 - 1) / (5 - 1) = 0.25 each, B's 2 cells 1 each: 2.5 / 4 rows
    # = 0.625; sex 0; the average over the 8 cells: 0.3125
    assert got.loss_per_column["age"] == pytest.approx(0.625)
    assert got.loss == pytest.approx(0.3125) and got.granularity == pytest.approx(0.6875)
    # Prec: age levels 1 (A) and 3 (B) of height 3 -> (2 x 1/3 + 2 x 1) / 8 cells = 1/3
    assert got.precision == pytest.approx(2 / 3)
    # discernibility 2^2 + 2^2; 2 classes of 4 rows: average 2, normalized 4 / (2 x 2) = 1
    assert got.discernibility == 8 and got.classes == 2
    assert got.average_class_size == 2 and got.normalized_average_class_size == 1
    # KL: P = 1/4 each. A: area 2 x 1, mass (2/4) / 2 = 1/4 on (30,M), (32,M). B: the root
    # covers the table's 4 ages (47 is not in the table): area 4 x 1, mass (2/4) / 4 = 1/8 on
    # (35,F), (41,F) (and the unobserved (30,F), (32,F)).
    # KL = 2 x 1/4 log2(1) + 2 x 1/4 log2((1/4) / (1/8)) = 1/2
    assert got.kl_divergence == pytest.approx(0.5)
    assert got.kl_note is None


def test_hand_worked_overlapping_classes() -> None:
    # suppression only: row types (30,M) x 2, (30,F) x 2, (32,M) x 2, n = 6.
    # class A = (30, *) holds (30,M) x 1 and (30,F) x 2; class B = (*, M) holds (30,M) x 1
    # and (32,M) x 2: local recoding, both classes cover (30, M).
    rt = RowTypes(("age", "sex"), np.array([[0, 1], [0, 0], [1, 1]]),
                  np.full((3, 1), 2, np.int64), ((30, 32), ("F", "M")))
    p = plan([[0, ROOT], [ROOT, 1]], [0, 0, 1, 1], [0, 1, 0, 2], [1, 2, 1, 2])
    p.validate(rt)
    got = L.measures(p, rt)
    # 6 stars of 12 cells: LM = 6 / 12 (a star covers both values: (2-1)/(2-1) = 1), Prec
    # 1 - 6/12; discernibility 3^2 + 3^2; no k: no normalized size
    assert (got.stars, got.generalized_cells) == (6, 0)
    assert got.loss == pytest.approx(0.5) and got.precision == pytest.approx(0.5)
    assert got.discernibility == 18 and got.average_class_size == 3
    assert got.k == 1 and got.normalized_average_class_size is None
    # P = 1/3 each. A: area 1 x 2, mass (3/6)/2 = 1/4 on (30,M), (30,F); B: area 2 x 1, mass
    # 1/4 on (30,M), (32,M). Q(30,M) = 1/2, Q(30,F) = Q(32,M) = 1/4.
    # KL = 1/3 [log2((1/3)/(1/2)) + 2 log2((1/3)/(1/4))] = 1/3 log2(32/27)
    assert got.kl_divergence == pytest.approx(math.log2(32 / 27) / 3)


def test_suppression_measures_match_the_star_count() -> None:
    rt = RowTypes.from_arrays(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]))
    ident = plan([[0, 0], [0, 1], [1, 1]], [0, 1, 2], [0, 1, 2], [1, 1, 2])
    got = L.measures(ident, rt)
    assert (got.stars, got.loss, got.precision, got.kl_divergence) == (0, 0.0, 1.0, 0.0)
    allstar = plan([[ROOT, ROOT]], [0, 0, 0], [0, 1, 2], [1, 1, 2])
    got = L.measures(allstar, rt)
    assert got.stars == 8 and got.loss == 1.0 and got.precision == 0.0
    # the largest KL: sum P log2(P x |domain|), domain 2 x 2: 2 x 1/4 log2(1) + 1/2 log2(2)
    assert got.kl_divergence == pytest.approx(0.5)


def test_kl_work_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = RowTypes.from_arrays(np.array([[0, 0], [0, 1], [1, 1]]))
    p = plan([[ROOT, ROOT]], [0, 0, 0], [0, 1, 2], [1, 1, 1])
    monkeypatch.setattr(L, "KL_MAX_WORK", 2)
    got = L.measures(p, rt)
    assert got.kl_divergence is None and "1 level patterns x 3 row types" in (got.kl_note or "")
    assert L.LossMeasures.from_dict(got.as_dict()) == got


def _naive(p: ReleasePlan, rt: RowTypes) -> tuple[float, float, float]:
    """LM, Prec and KL computed row by row and over the whole product domain."""
    dgh = rt.dgh
    rows = np.repeat(p.outputs[p.out_idx], p.count, axis=0)   # one output vector per row
    n, m = rows.shape
    lm = prec = 0.0
    for r in rows:
        for j in range(m):
            c = dgh[j]
            lm += (c.leaves_of(np.array(r[j])) - 1) / max(c.domain - 1, 1)
            prec += c.level_of(np.array(r[j])) / c.height
    q: dict[tuple[int, ...], float] = {}
    vecs, sizes = np.unique(rows, axis=0, return_counts=True)
    for g, size in zip(vecs, sizes, strict=True):
        covered = [v for v in product(*(range(c.card) for c in dgh.columns))
                   if all(dgh[j].covers(np.array([g[j]]), np.array([v[j]]))[0]
                          for j in range(m))]
        area = len(covered)  # the table's value combinations under g
        for v in covered:
            q[v] = q.get(v, 0.0) + size / n / area
    kl = sum(s / n * math.log2((s / n) / q[tuple(int(x) for x in v)])
             for v, s in zip(rt.codes, rt.sizes, strict=True))
    return lm / (n * m), 1 - prec / (n * m), kl


@pytest.mark.parametrize("seed", range(8))
def test_measures_agree_with_a_row_by_row_computation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    age = column_hierarchy(Hierarchy.parse(AGE), (30, 32, 35, 41))
    cols = [age, ColumnHierarchy.flat(3)]
    codes = np.array(list(product(range(4), range(3))))[rng.permutation(12)[:7]]
    counts = rng.integers(1, 4, (7, 1))
    rt = RowTypes(("age", "c"), codes, counts, ((30, 32, 35, 41), (0, 1, 2)),
                  hierarchies=Hierarchies(tuple(cols)))
    # each row type to one of 3 groups; each group released at a random ancestor level
    group = rng.integers(0, 3, 7)
    outs, oi = [], []
    for g in range(3):
        members = codes[group == g]
        if not len(members):
            continue
        vec = rt.dgh.generalizer(members)
        lift = rng.integers(0, 4)
        vec[0] = ROOT if vec[0] == ROOT else age.up[max(lift, int(age.level_of(
            np.array(vec[0])))), members[0, 0]]
        outs.append(vec.tolist())
        oi.extend([len(outs) - 1] * int((group == g).sum()))
    types = np.concatenate([np.flatnonzero(group == g) for g in range(3)])
    p = ReleasePlan(np.array(outs), np.array(oi), types, np.zeros(7, int),
                    counts[types, 0], "random", G)
    p.validate(rt)
    got = L.measures(p, rt)
    lm, prec, kl = _naive(p, rt)
    assert got.loss == pytest.approx(lm) and got.precision == pytest.approx(prec)
    assert got.kl_divergence == pytest.approx(kl)
