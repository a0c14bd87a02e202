"""Pricing shortcuts of the LP core (:mod:`starmin.algorithms.lp.pricing`): a pattern's
vectors reduced from a coarser-by-one pattern priced before (under the same duals) have the
gains of a pricer that sees the pattern first; batched classes (:meth:`MaskPrice.rays`) are
the one-by-one classes; and every class is the one the definition gives (each value's first
best pair; with shares, it collects exactly the vector's gain)."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.pricing import Pricer
from starmin.algorithms.lp.relaxation import relaxations
from starmin.data.rowtypes import RowTypes
from starmin.models import HierarchicalDistance, KAnonymity, LDiversity, TCloseness

HIER = HierarchicalDistance((("0", "low", "*"), ("1", "low", "*"), ("2", "high", "*"),
                             ("3", "high", "*")))
MODELS = {"l2": LDiversity(2), "l3": LDiversity(3), "t0.25": TCloseness("0.25"),
          "t0.3-hier": TCloseness("0.3", HIER), "k3": KAnonymity(3)}


@pytest.mark.parametrize("name", list(MODELS))
def test_shortcuts_equal_the_direct_pricing(name: str) -> None:
    rng = np.random.default_rng(17)
    batched = 0
    for _ in range(4):
        n, m = int(rng.integers(20, 60)), int(rng.integers(3, 6))
        X = rng.integers(0, 3, size=(n, m))
        S = rng.integers(0, 4, size=n)
        S[:4] = np.arange(4)
        rt = RowTypes.from_arrays(X, S)
        for rel in relaxations(MODELS[name], rt):
            pairs = Pairs.of(rt)
            pricer = Pricer(rt, pairs, rel)
            for rnd in range(2):  # new duals: nothing reduced under the old ones is reused
                pi = rng.normal(1.0, 1.0, size=pairs.P)
                order = sorted(range(1 << m), key=lambda x: (x.bit_count(), x))
                for mask in order if rnd == 0 else order[::-1]:  # finest first, then last
                    mp = pricer.price(mask, pi)
                    direct = Pricer(rt, pairs, rel).price(mask, pi)
                    assert np.array_equal(mp.gain, direct.gain), (rel.name, mask)
                    gs = np.arange(len(mp.keys), dtype=np.int64)
                    for g, (chosen, share) in zip(gs, mp.rays(gs), strict=True):
                        one, one_share = direct.ray(int(g))
                        assert np.array_equal(chosen, one), (rel.name, mask, g)
                        assert (share is None) == (one_share is None)
                        if share is not None:
                            assert np.array_equal(share, one_share)
                        if mp.picks is not None:
                            check_class(pricer, mp.group, int(g), pi, chosen, share,
                                        float(mp.gain[g]))
                    batched += mp.picks is not None
    if name != "k3":  # k prices by a greedy over pairs: no batch, nothing reduced
        assert batched > 0


def check_class(pricer: Pricer, group: np.ndarray, g: int, pi: np.ndarray,
                chosen: np.ndarray, share: np.ndarray | None, gain: float) -> None:
    """A vector's class by the definition: one pair per value, each the group's first pair
    (by index) of that value with the group's best ``pi`` for it; with shares, they sum to
    one and the class collects exactly the gain. (A vector without a class, gain ``-inf``,
    never prices out: nothing to check.)"""
    if not np.isfinite(gain):
        return
    mine = np.flatnonzero(group == g)
    values = pricer.u[chosen]
    assert len(set(values.tolist())) == len(chosen)
    for p, u in zip(chosen.tolist(), values.tolist(), strict=True):
        cand = mine[pricer.u[mine] == u]
        assert p == int(cand[pi[cand] == pi[cand].max()].min())
    if share is not None:
        assert float(share.sum()) == pytest.approx(1.0)
        assert float(pi[chosen] @ share) == pytest.approx(gain, rel=1e-9, abs=1e-9)
