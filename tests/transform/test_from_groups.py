"""``ReleasePlan.from_groups`` (vectorized for issue 11) builds the same plan as building each
group's suppressor in turn (the former loop, kept here as the reference)."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.base import Guarantee
from starmin.transform.plan import ReleasePlan, suppressor
from tests.helpers.tables import two_sensitive_table

G = Guarantee("heuristic", "test")


def former(rt, groups) -> ReleasePlan:  # type: ignore[no-untyped-def]
    vecs, parts = [], []
    for ti, ki, cnt in groups:
        ti, ki, cnt = (np.asarray(a, dtype=np.int64) for a in (ti, ki, cnt))
        keep = cnt > 0
        ti, ki, cnt = ti[keep], ki[keep], cnt[keep]
        if len(ti) == 0:
            continue
        vecs.append(suppressor(rt.codes[np.unique(ti)]))
        parts.append((ti, ki, cnt))
    return ReleasePlan.from_vectors(rt, vecs, parts, "x", G, 3, {"a": 1})


def same(a: ReleasePlan, b: ReleasePlan) -> None:
    for name in ("outputs", "out_idx", "type_idx", "key_idx", "count"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert (a.method, a.lower_bound, dict(a.certificate)) == \
        (b.method, b.lower_bound, dict(b.certificate))


@pytest.mark.parametrize("seed", range(30))
def test_same_plan_as_the_former_loop(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rt = two_sensitive_table(seed, int(rng.integers(5, 80)), m=int(rng.integers(1, 5)),
                             values=int(rng.integers(1, 4)))
    t, s = rt.counts.shape
    cells = [(i, j) for i in range(t) for j in range(s) if rt.counts[i, j] > 0]
    order = rng.permutation(len(cells))
    cuts = np.sort(rng.choice(np.arange(1, max(len(cells), 2)), size=min(
        int(rng.integers(0, 6)), max(len(cells) - 1, 0)), replace=False))
    groups = []
    for part in np.split(order, cuts):
        ti = np.array([cells[c][0] for c in part], dtype=np.int64)
        ki = np.array([cells[c][1] for c in part], dtype=np.int64)
        cnt = rt.counts[ti, ki].copy()
        if len(cnt) and rng.random() < 0.3:
            cnt[0] = 0  # zero counts are dropped
        groups.append((ti, ki, cnt))
        if rng.random() < 0.2:
            groups.append((ti[:0], ki[:0], cnt[:0]))  # an empty group
    if rng.random() < 0.3:
        groups.append((np.array([0]), np.array([0]), np.array([0])))  # all zero
    same(ReleasePlan.from_groups(rt, groups, "x", G, 3, {"a": 1}), former(rt, groups))


def test_no_groups() -> None:
    rt = two_sensitive_table(0, 10)
    same(ReleasePlan.from_groups(rt, [], "x", G, 3, {"a": 1}), former(rt, []))
    z = [(np.array([0]), np.array([0]), np.array([0]))]
    same(ReleasePlan.from_groups(rt, z, "x", G, 3, {"a": 1}), former(rt, z))


@pytest.mark.parametrize("seed", range(40))
def test_unique_rows_is_numpys_unique_over_rows(seed: int) -> None:
    from starmin.transform.plan import unique_rows

    rng = np.random.default_rng(seed)
    g, m = int(rng.integers(0, 200)), int(rng.integers(0, 6))
    dtype = np.int32 if seed % 2 else np.int64
    a = rng.integers(-1, int(rng.integers(1, 5)), size=(g, m)).astype(dtype)  # -1: STAR
    u, inv = np.unique(a, axis=0, return_inverse=True)
    u2, inv2 = unique_rows(a)
    assert u2.dtype == u.dtype and np.array_equal(u2, u)
    assert inv2.dtype == np.int64 and np.array_equal(inv2, np.asarray(inv).reshape(-1))


@pytest.mark.parametrize("seed", range(20))
def test_from_entries_does_not_depend_on_the_order_of_groups_or_entries(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rt = two_sensitive_table(seed, int(rng.integers(5, 80)), m=int(rng.integers(1, 5)),
                             values=int(rng.integers(1, 4)))
    ti, ki = np.nonzero(rt.counts)
    cnt = rt.counts[ti, ki]
    gid = rng.integers(0, max(1, len(ti) // 3), size=len(ti))
    by_group = np.argsort(gid, kind="stable")
    plan = ReleasePlan.from_entries(rt, ti[by_group], ki[by_group], cnt[by_group],
                                    gid[by_group], "x", G, 3, {"a": 1})
    groups = [(ti[gid == g], ki[gid == g], cnt[gid == g]) for g in np.unique(gid)]
    same(plan, ReleasePlan.from_groups(rt, groups, "x", G, 3, {"a": 1}))
    same(plan, former(rt, groups))
    # the groups shuffled, and the entries within each group
    perm = rng.permutation(len(groups))
    shuffled = [tuple(a[p] for a in groups[i])
                for i in perm for p in [rng.permutation(len(groups[i][0]))]]
    same(plan, ReleasePlan.from_groups(rt, shuffled, "x", G, 3, {"a": 1}))
