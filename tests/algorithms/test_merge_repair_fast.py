"""The fast routines of merge-repair pinned to their slow definitions on random small inputs.

* :func:`starmin.algorithms.heuristic._judge.compile_judge` (``merge_repair.make_judge``) must
  give exactly the verdicts of ``merge_repair.generic_judge`` (``model.evaluate`` per
  sensitive column) -- at the boundary ``EMD = t`` too, for absent sensitive values, two
  sensitive columns, conjunctions, and counts large enough to need Python integers;
* ``_pull.first_stable`` must be the head of a stable argsort;
* move refinement with block-judged verdicts (``_moves._apply``) must leave the partition that
  judging each move in turn left.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from starmin.algorithms.heuristic import _moves, merge_repair
from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.algorithms.heuristic._moves import improve
from starmin.algorithms.heuristic._pull import first_stable, pattern_bits
from starmin.algorithms.heuristic._split_refine import Entries
from starmin.data.rowtypes import RowTypes
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EqualDistance,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PrivacyModel,
    TCloseness,
)
from tests.helpers.tables import two_sensitive_table

HIER = HierarchicalDistance((("0", "a", "x", "*"), ("1", "a", "x", "*"), ("2", "b", "x", "*"),
                             ("3", "c", "y", "*"), ("4", "c", "y", "*")))
TS = (Fraction(0), Fraction(1, 5), Fraction(1, 4), Fraction(1, 3), Fraction(2, 5),
      Fraction(1, 2), Fraction(1))


def _models() -> list[PrivacyModel]:
    out: list[PrivacyModel] = []
    for t in TS:
        out += [TCloseness(t), TCloseness(t, OrderedDistance()), TCloseness(t, HIER),
                TCloseness(t, OrderedDistance((4, 3, 2, 1, 0)))]
    out += [AllOf(KAnonymity(3), TCloseness(Fraction(1, 3))),
            AllOf(TCloseness(Fraction(1, 4), HIER), LDiversity(2), KAnonymity(2)),
            KAnonymity(4), LDiversity(3), DistinctLDiversity(2)]
    return out


def _table(seed: int, absent: bool) -> RowTypes:
    """A random table whose sensitive codes are 0..4 (``absent``: code 1 never occurs)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    sa = rng.choice([0, 2, 3, 4] if absent else [0, 1, 2, 3, 4], size=n)
    sa[0] = 4                                       # the codes run up to 4
    return RowTypes.from_arrays(rng.integers(0, 3, size=(n, 3)), sa)


def _classes(rt: RowTypes, seed: int) -> np.ndarray:
    """Random hypothetical classes: sub-multisets of the table, small ones and empty ones."""
    rng = np.random.default_rng(seed)
    tot = rt.counts.sum(axis=0)
    g = 60
    frac = rng.random((g, 1)) ** 3
    kc = rng.binomial(tot[None, :].repeat(g, axis=0), frac)
    kc[:3] = 0
    kc[3] = tot
    kc[4:10] = np.minimum(tot, rng.integers(0, 2, size=(6, rt.s)))
    return kc.astype(np.int64)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("absent", [False, True])
def test_compiled_judge_equals_generic(seed: int, absent: bool) -> None:
    rt = _table(seed, absent)
    kc = _classes(rt, seed + 100)
    for model in _models():
        fast = merge_repair.make_judge(model, rt)
        slow = merge_repair.generic_judge(model, rt)
        assert np.array_equal(fast(kc), slow(kc)), model.name
        for i in range(0, len(kc), 7):                  # single classes, 1-d and 2-d
            assert bool(fast(kc[i][None, :])[0]) == bool(slow(kc[i][None, :])[0])
        assert fast(kc[:0]).shape == (0,)


def test_compiled_judge_boundary_hits() -> None:
    """The random classes do hit EMD = t exactly (the tests above can fail at the boundary)."""
    hits = 0
    for seed in range(12):
        rt = _table(seed, False)
        kc = _classes(rt, seed + 100)
        o = rt.counts.sum(axis=0)
        for t in TS[1:-1]:
            m = TCloseness(t)
            emd = m.emd(kc[kc.sum(axis=1) > 0], o, list(range(rt.s)))
            hits += int(np.isclose(emd, float(t)).sum())
    assert hits > 0


@pytest.mark.parametrize("seed", range(6))
def test_compiled_judge_two_sensitive_columns(seed: int) -> None:
    rt = two_sensitive_table(seed, 30, s=(3, 4))
    kc = _classes(rt, seed)
    for model in (TCloseness(Fraction(1, 3)), TCloseness(Fraction(1, 4), OrderedDistance()),
                  AllOf(KAnonymity(2), TCloseness(Fraction(1, 2))), LDiversity(2)):
        assert np.array_equal(merge_repair.make_judge(model, rt)(kc),
                              merge_repair.generic_judge(model, rt)(kc)), model.name


@pytest.mark.parametrize("dist", [EqualDistance(), OrderedDistance(), HIER])
def test_compiled_judge_huge_counts(dist: object) -> None:
    """Counts whose products overflow int64: the compiled judge hands over to the model."""
    rng = np.random.default_rng(5)
    sa = rng.integers(0, 5, size=50)
    sa[:5] = np.arange(5)
    w = rng.integers(10**8, 10**9, size=50)
    rt = RowTypes.from_arrays(rng.integers(0, 3, size=(50, 2)), sa, weights=w)
    kc = _classes(rt, 9)
    model = TCloseness(Fraction(3, 10), dist)  # type: ignore[arg-type]
    assert np.array_equal(merge_repair.make_judge(model, rt)(kc),
                          merge_repair.generic_judge(model, rt)(kc))


@pytest.mark.parametrize("seed", range(20))
def test_first_stable_equals_argsort(seed: int) -> None:
    """``first_stable(x, r)`` is ``np.argsort(x, kind="stable")[:r]``, ties and infinities
    included."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    x = rng.integers(0, 6, size=n) / rng.integers(1, 4, size=n)
    x[rng.random(n) < 0.1] = np.inf
    for r in (0, 1, 2, 5, n // 2, n - 1, n, n + 3):
        assert np.array_equal(first_stable(x, r), np.argsort(x, kind="stable")[:max(r, 0)])


def _slow_apply(rt: RowTypes, judge: Judge, ent: tuple[IntArray, IntArray, IntArray, IntArray],
                C: IntArray, P: IntArray, cand: tuple[IntArray, IntArray, IntArray]) -> int:
    """The move round as first written: one judgment per touched move, in turn."""
    _, ek, ec, ecls = ent
    e, d, gain = cand
    x0, y0 = ecls[e], d
    delta = np.zeros((len(e), rt.s), dtype=np.int64)
    delta[np.arange(len(e)), ek[e]] = ec[e]
    first = judge(np.concatenate([C[x0] - delta, C[y0] + delta]))
    first = first[len(e):] & (first[: len(e)] | ((C[x0] - delta).sum(axis=1) == 0))
    touched = np.zeros(len(C), dtype=bool)
    done = np.zeros(len(ecls), dtype=bool)
    moved = 0
    for i in np.lexsort((-ec[e], -gain)).tolist():
        n, y, x = int(e[i]), int(d[i]), int(ecls[e[i]])
        if not first[i] or done[n] or x == y or P[y] >= P[x]:
            continue
        after = C[[x, y]] + np.stack([-delta[i], delta[i]])
        if touched[x] or touched[y]:
            verdict = judge(after)
            if not (verdict[1] and (verdict[0] or after[0].sum() == 0)):
                continue
        C[x], C[y] = after
        ecls[n] = y
        done[n] = touched[x] = touched[y] = True
        moved += 1
    return moved


def _random_classes(rt: RowTypes, seed: int, g: int) -> list[Entries]:
    """A random partition of the table's (row type, key) entries, rows of an entry split."""
    rng = np.random.default_rng(seed)
    t, k = np.nonzero(rt.counts)
    c = rt.counts[t, k]
    split = rng.integers(0, c + 1)                          # part of each entry elsewhere
    t2, k2, c2 = t[split > 0], k[split > 0], split[split > 0]
    t, k, c = np.concatenate([t, t2]), np.concatenate([k, k2]), np.concatenate([c - split, c2])
    keep = c > 0
    t, k, c = t[keep], k[keep], c[keep]
    home = rng.integers(0, g, size=len(t))
    home[:g] = np.arange(min(g, len(t)))
    return [(t[home == h], k[home == h], c[home == h]) for h in range(g) if (home == h).any()]


@pytest.mark.parametrize("seed", range(16))
def test_block_judged_moves_equal_one_by_one(seed: int, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    """Move refinement with verdicts judged a block ahead gives the partition of judging
    each touched move in turn (the first definition), on random partitions and models."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 120))
    rt = RowTypes.from_arrays(rng.integers(0, 3, size=(n, 4)), rng.integers(0, 4, size=n))
    classes = _random_classes(rt, seed, int(rng.integers(3, 25)))
    models: list[PrivacyModel] = [TCloseness(Fraction(2, 5)), TCloseness(Fraction(1, 2)),
                                  LDiversity(2), KAnonymity(3),
                                  AllOf(KAnonymity(2), TCloseness(Fraction(1, 3)))]
    for model in models:
        judge = merge_repair.make_judge(model, rt)
        fast = improve(rt, classes, judge)
        monkeypatch.setattr(_moves, "_apply", _slow_apply)
        slow = improve(rt, classes, judge)
        monkeypatch.undo()
        assert len(fast) == len(slow)
        for a, b in zip(fast, slow, strict=True):
            assert all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))


@pytest.mark.parametrize("m", [1, 3, 8, 9, 17, 30])
def test_pattern_bits_equal_weighted_sum(m: int) -> None:
    rng = np.random.default_rng(m)
    wide = rng.random((50, m)) < 0.4
    want = (wide * (1 << np.arange(m, dtype=np.int64))).sum(axis=1)
    assert np.array_equal(pattern_bits(wide), want)
    assert pattern_bits(wide[:0]).shape == (0,)


def test_first_stable_on_integers() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 40, size=500)
    for r in (0, 7, 100, 499, 500):
        assert np.array_equal(first_stable(x, r), np.argsort(x, kind="stable")[:r])


def test_t_closeness_start_scales_with_copies() -> None:
    """A table whose rows all occur ``c`` times starts t-closeness from classes of
    ``k c`` rows (``k`` the start size of the table with one copy); other models do not
    scale; the release satisfies the model."""
    from starmin.algorithms.heuristic._start import copies, start_size
    from starmin.models.apply import holds

    rng = np.random.default_rng(1)
    X, sa = rng.integers(0, 5, size=(60, 4)), rng.integers(0, 3, size=60)
    one = RowTypes.from_arrays(X, sa)
    five = RowTypes.from_arrays(X, sa, weights=np.full(60, 5))
    assert copies(one) == 1 and copies(five) == 5
    model = TCloseness(Fraction(1, 5))
    k = start_size(model, one, merge_repair.make_judge(model, one))
    assert k >= 2
    plan = merge_repair.solve(five, model, seed=0, start="pattern-packing")
    assert plan.certificate["start"] == f"pattern-packing k={k * 5}"
    assert holds(model, five, plan.class_key_counts(five.s)).all()
    plan1 = merge_repair.solve(one, model, seed=0, start="pattern-packing")
    assert plan1.certificate["start"] == f"pattern-packing k={k}"
    plan_k = merge_repair.solve(five, KAnonymity(3), seed=0)
    assert plan_k.certificate["start"] == "pattern-packing k=3"
