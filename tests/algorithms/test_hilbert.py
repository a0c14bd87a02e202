"""Tests of the Hilbert heuristic (src/starmin/algorithms/heuristic/hilbert.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from starmin.algorithms.heuristic import hilbert, hilbert_cut
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, StarminError
from starmin.models import KAnonymity, LDiversity
from starmin.transform.plan import STAR, ReleasePlan
from tests.algorithms.tp_support import l_eligible_table, optimum
from tests.helpers.tables import from_rows, satisfies


def _skilling_scalar(x: list[int], b: int) -> int:
    """Skilling (2004) AxestoTranspose for one point, then the interleaved index."""
    x = list(x)
    n = len(x)
    q = 1 << (b - 1)
    while q > 1:
        p = q - 1
        for i in range(n):
            if x[i] & q:
                x[0] ^= p
            else:
                t = (x[0] ^ x[i]) & p
                x[0] ^= t
                x[i] ^= t
        q >>= 1
    for i in range(1, n):
        x[i] ^= x[i - 1]
    t, q = 0, 1 << (b - 1)
    while q > 1:
        if x[n - 1] & q:
            t ^= q - 1
        q >>= 1
    x = [v ^ t for v in x]
    h = 0
    for j in range(b - 1, -1, -1):
        for i in range(n):
            h = (h << 1) | ((x[i] >> j) & 1)
    return h


def _as_int(words: np.ndarray, total: int) -> int:
    h = 0
    for w in words[:-1].tolist():
        h = (h << 64) | w
    return (h << (total - 64 * (len(words) - 1))) | int(words[-1])


# -- the index ------------------------------------------------------------------------------
@pytest.mark.parametrize(("d", "b"), [(1, 4), (2, 1), (2, 3), (3, 2), (4, 2), (2, 5)])
def test_hilbert_order_visits_a_full_grid_in_unit_steps(d: int, b: int) -> None:
    grid = np.array(list(itertools.product(range(1 << b), repeat=d)), dtype=np.int64)
    keys = hilbert.hilbert_keys(grid, b)
    idx = sorted(_as_int(k, d * b) for k in keys)
    assert idx == list(range(len(grid)))                        # a bijection onto 0..2^(db)-1
    path = grid[hilbert.hilbert_order(grid, [1 << b] * d)]
    steps = np.abs(np.diff(path, axis=0)).sum(axis=1)
    assert (steps == 1).all()                                   # neighbours on the curve


@pytest.mark.parametrize(("d", "b"), [(3, 7), (8, 7), (9, 8), (12, 11)])
def test_vectorized_index_equals_scalar_skilling_also_beyond_64_bits(d: int, b: int) -> None:
    rng = np.random.default_rng(d * b)
    X = rng.integers(0, 1 << b, size=(300, d))
    keys = hilbert.hilbert_keys(X, b)
    assert keys.shape[1] == -(-d * b // 64)
    for x, k in zip(X.tolist(), keys, strict=True):
        assert _as_int(k, d * b) == _skilling_scalar(x, b)
    order = hilbert.hilbert_order(X, [1 << b] * d)
    ints = [_skilling_scalar(x, b) for x in X.tolist()]
    assert [ints[i] for i in order] == sorted(ints)


# -- the fewest tuples that close a group ----------------------------------------------------
def test_fill_takes_the_fewest_tuples_that_make_the_group_l_eligible() -> None:
    rng = np.random.default_rng(1)
    checked = closed = 0
    for _ in range(1000):
        l = int(rng.integers(2, 5))
        m = 5
        c = rng.integers(0, 4, size=m)
        if c.sum() == 0 or c.sum() >= l * c.max():
            continue                                            # the group must be open
        x = rng.integers(0, 4, size=m)
        vals = np.flatnonzero(x).tolist()
        cnts = x[vals].tolist()
        if not vals:
            continue
        best = None
        for take in itertools.product(*(range(n + 1) for n in cnts)):
            g = c.copy()
            g[vals] += take
            if g.sum() >= l * g.max() and (best is None or sum(take) < best):
                best = sum(take)
        got = hilbert_cut._fill({v: int(c[v]) for v in range(m) if c[v]}, int(c.sum()),
                            int(c.max()), vals, cnts, l)
        if best is None:
            assert got is None
        else:
            assert got is not None
            assert all(0 <= t <= n for t, n in zip(got, cnts, strict=True))
            g = c.copy()
            g[vals] += got
            assert g.sum() >= l * g.max()
            assert sum(got) == best
            closed += 1
        checked += 1
    assert checked > 300 and 100 < closed < checked


# -- the release ----------------------------------------------------------------------------
CUTS = ["buckets", "greedy"]


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("seed", range(30))
def test_release_is_l_diverse_valid_and_not_below_the_optimum(seed: int, cut: str) -> None:
    l = 2 + seed % 2
    rt = l_eligible_table(500 + seed, 6 + seed % 5, l, m=3, values=2 + seed % 3, s=l + 1)
    model = LDiversity(l)
    plan = hilbert.solve(rt, model, cut=cut)
    assert plan.certificate["cut"] == cut
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    opt, _ = optimum(rt, l)
    assert plan.lower_bound is not None
    assert plan.lower_bound <= opt <= plan.stars
    assert plan.guarantee.kind == "heuristic"


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("seed", range(10))
def test_larger_tables_are_l_diverse_and_match_from_groups(seed: int, cut: str) -> None:
    l = 2 + seed % 4
    rt = l_eligible_table(900 + seed, 300, l, m=4, values=4, s=l + 3)
    model = LDiversity(l)
    plan = hilbert.solve(rt, model, cut=cut)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    entries = hilbert.hilbert_groups(rt.codes, rt.counts, rt.cardinalities, l, cut)
    gid, t, k, c = entries
    groups = [(t[gid == g], k[gid == g], c[gid == g]) for g in range(int(gid.max()) + 1)]
    ref = ReleasePlan.from_groups(rt, groups, "hilbert", plan.guarantee)
    assert ref.stars == plan.stars
    assert sorted(map(tuple, ref.outputs.tolist())) == sorted(map(tuple, plan.outputs.tolist()))
    for g in groups:                                            # every cut group l-eligible
        hist = np.bincount(g[1], weights=g[2], minlength=rt.s)
        assert hist.sum() >= l * hist.max()


def test_bucket_groups_take_one_tuple_per_value_and_keep_the_rest_l_eligible() -> None:
    rng = np.random.default_rng(4)
    for _ in range(40):
        l = int(rng.integers(2, 6))
        rt = l_eligible_table(int(rng.integers(1 << 20)), int(rng.integers(20, 200)), l,
                              m=3, values=5, s=l + 1 + int(rng.integers(0, 3)))
        gid, _, k, c = hilbert.hilbert_groups(rt.codes, rt.counts, rt.cardinalities, l)
        rest = rt.counts.sum(axis=0).copy()
        for g in range(int(gid.max()) + 1):
            vals, cnt = k[gid == g], c[gid == g]
            if g < gid.max():                                   # the last may be a merged tail
                assert len(set(vals.tolist())) == len(vals) >= l  # distinct values
                assert len(set(cnt.tolist())) == 1              # k identical groups
            np.subtract.at(rest, vals, cnt)
            assert rest.sum() >= l * rest.max()                 # the rest stays l-eligible
        assert rest.sum() == 0


def test_tight_table_is_still_cut_into_many_groups() -> None:
    # value 0 is exactly 1/3 of the table: every group must hold exactly 1/3 of it
    rows, sa = [], []
    for i in range(30):
        rows += [[i, i % 2]] * 3
        sa += [0, 1 + i % 3, 4 + i % 2]
    rt = from_rows(rows, sa)
    plan = hilbert.solve(rt, LDiversity(3))
    plan.validate(rt)
    assert satisfies(plan, rt, LDiversity(3))
    assert plan.t_out >= 10


@pytest.mark.parametrize("cut", CUTS)
def test_input_that_is_not_l_eligible_cannot_be_cut(cut: str) -> None:
    counts = np.array([[3, 1], [2, 0]])                         # value 0: 5 of 6
    with pytest.raises(StarminError, match="not l-eligible"):
        hilbert.hilbert_groups(np.array([[0], [1]]), counts, [2], 2, cut)


def test_unknown_cut_is_refused() -> None:
    rt = from_rows([[0], [1]], [0, 1])
    with pytest.raises(InvalidInput, match="unknown Hilbert cut"):
        hilbert.solve(rt, LDiversity(2), cut="zigzag")


def test_an_l_eligible_row_type_keeps_its_values() -> None:
    # row type 0 is l-eligible alone; types 1 and 2 must mix
    rows = [[0]] * 5 + [[1]] * 2 + [[2]] * 2
    sa = [0, 1, 2, 0, 1, 0, 0, 1, 2]  # type 0: two 0s, two 1s, one 2
    rt = from_rows(rows, sa)
    plan = hilbert.solve(rt, LDiversity(2), cut="greedy")
    plan.validate(rt)
    assert satisfies(plan, rt, LDiversity(2))
    unchanged = plan.class_sizes[(plan.outputs != STAR).all(axis=1)].sum()
    assert unchanged >= 4                                       # (0): cap 2 x {0, 1} at least


def test_leftover_tail_is_merged_back_until_l_eligible() -> None:
    # codes 0..3 in order; the last row type (value 0 x3) cannot stand alone
    rows = [[0], [0], [1], [1], [2], [2], [3], [3], [3]]
    sa = [1, 2, 1, 2, 1, 2, 0, 0, 0]
    rt = from_rows(rows, sa)
    plan = hilbert.solve(rt, LDiversity(2), cut="greedy")
    plan.validate(rt)
    assert satisfies(plan, rt, LDiversity(2))
    assert plan.stars >= 6                                      # (3)x3 mixes with >= 3 others


def test_refusals() -> None:
    rt = from_rows([[0], [1], [2]], [0, 0, 1])
    with pytest.raises(Infeasible, match="Lemma 1"):
        hilbert.solve(rt, LDiversity(2))
    with pytest.raises(InvalidInput):
        hilbert.solve(rt, KAnonymity(2))
    assert hilbert.supports(LDiversity(2), rt) is None
    assert hilbert.ALGORITHM.name == "hilbert"


def test_empty_plan_for_a_table_of_one_eligible_type() -> None:
    rt = RowTypes.from_arrays(np.zeros((4, 2), dtype=np.int64), np.array([0, 1, 0, 1]))
    plan = hilbert.solve(rt, LDiversity(2))
    assert plan.stars == 0
    assert plan.t_out == 1
