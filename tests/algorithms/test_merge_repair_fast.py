"""The fast routines of merge-repair pinned to their slow definitions on random small inputs.

* :func:`starmin.algorithms.heuristic._judge.compile_judge` (``merge_repair.make_judge``) must
  give exactly the verdicts of ``merge_repair.generic_judge`` (``model.evaluate`` per
  sensitive column) -- at the boundary ``EMD = t`` too, for absent sensitive values, two
  sensitive columns, conjunctions, and counts large enough to need Python integers.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from starmin.algorithms.heuristic import merge_repair
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
