"""The dual repair of column generation (:func:`starmin.algorithms.lp.colgen.price_all`):
from *any* duals, a complete pricing pass certifies a bound that never exceeds the LP
optimum over every output vector (hence brute force's optimum), and is at least Farley's
scaled bound; from the LP's own optimal duals it is the LP optimum."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp.colgen import column_generation, price_all
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.pricing import Pricer
from starmin.algorithms.lp.relaxation import relaxations
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible
from starmin.models import LDiversity
from tests.algorithms.test_lp_core import MODELS as CORE_MODELS
from tests.algorithms.test_lp_core import tables

MODELS = {name: CORE_MODELS[name]
          for name in ("k3", "l2", "l3", "t0.25", "t0.2-ordered", "t0.3-hier", "k3-l2")}


@pytest.mark.parametrize("name", list(MODELS))
def test_repaired_bound_from_any_duals_is_below_the_lp(name: str) -> None:
    rng = np.random.default_rng(3)
    model = MODELS[name]
    checked = stronger = 0
    for rt in tables(8, 21):
        try:
            opt = brute_force.ALGORITHM.solve(rt, model).stars
        except Infeasible:
            continue
        for rel in relaxations(model, rt):
            cg = column_generation(rt, rel)
            # complete: the LP optimum over every vector (an upper bound on any dual bound);
            # not complete only where gains are upper bounds (t under a tree metric)
            lp = cg.lp_value if cg.complete else float(opt)
            pairs = Pairs.of(rt)
            pricer = Pricer(rt, pairs, rel)
            if cg.complete:  # from the optimal duals: the LP optimum (nothing to repair)
                at_opt = price_all(pricer, cg.lp.pi, rt.n, max_patterns=10_000, keep=10,
                                   repair=True)
                assert at_opt.bound == pytest.approx(cg.lp_value, rel=1e-4, abs=1e-4)
            for scale in (0.5, 1.0, 2.0, 4.0):
                pi = cg.lp.pi + rng.normal(0.0, scale, size=pairs.P)
                got = price_all(pricer, pi, rt.n, max_patterns=10_000, keep=10, repair=True)
                assert got.bound <= lp + 1e-6, (rel.name, got.bound, lp)
                assert got.bound <= opt + 1e-6
                # patterns left unpriced (the budget): no repair, the scaling alone
                cut = price_all(pricer, pi, rt.n, max_patterns=1 + rt.m, keep=10,
                                repair=True)
                assert cut.bound <= lp + 1e-6, (rel.name, cut.bound, lp)
                base = price_all(pricer, pi, rt.n, max_patterns=10_000, keep=10).bound
                assert got.bound >= base - 1e-9
                stronger += got.bound > base + 1e-6
                checked += 1
    assert checked >= 8
    assert stronger >= 1  # the repair does more than the scaling on some duals


def test_stopped_run_still_certifies_a_bound() -> None:
    """A run stopped after one round (partial pricing never certifies) ends with a complete
    pass whose repaired bound is positive and below the LP optimum."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(60, 4))
    S = rng.integers(0, 5, size=60)
    rt = RowTypes.from_arrays(X, S)
    rel = relaxations(LDiversity(2), rt)[0]
    full = column_generation(rt, rel)
    short = column_generation(rt, rel, max_rounds=2, keep=5)
    assert not short.complete
    assert 0 < short.bound <= full.lp_value + 1e-6
