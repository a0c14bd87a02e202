"""The restricted LP kept alive in Glop (lp/incremental.py) against SciPy's HiGHS from scratch,
the classes pricing hands to it (rays), and column generation's LP optimum against the LP over
every useful vector."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.sparse import csr_matrix, hstack

from starmin.algorithms.lp.colgen import column_generation
from starmin.algorithms.lp.incremental import RestrictedLP
from starmin.algorithms.lp.master import Blocks, build, solve_lp
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.pricing import Pricer
from starmin.algorithms.lp.relaxation import relaxations
from starmin.algorithms.lp.vectors import useful_blocks
from tests.algorithms.test_lp_core import MODELS, tables

LINEAR = ["k3", "l2", "l3", "rec", "t0", "t0.25", "t1", "t0.2-ordered", "t0.3-hier", "k3-l2",
          "k2-t0.3"]


def _subset(blocks: Blocks, keep: np.ndarray) -> Blocks:
    """The blocks ``keep`` (indices, in that order) of ``blocks``, renumbered."""
    new = np.full(blocks.B, -1)
    new[keep] = np.arange(len(keep))
    sel = np.isin(blocks.block_of, keep)
    order = np.argsort(new[blocks.block_of[sel]], kind="stable")
    return Blocks(blocks.vectors[keep], blocks.stars[keep], new[blocks.block_of[sel]][order],
                  blocks.pair_of[sel][order])


def _all_star(rt, pairs: Pairs) -> Blocks:  # type: ignore[no-untyped-def]
    return Blocks(np.full((1, rt.m), -1, np.int32), np.array([rt.m]),
                  np.zeros(pairs.P, np.int64), np.arange(pairs.P, dtype=np.int64))


def _concat(a: Blocks, b: Blocks) -> Blocks:
    return Blocks(np.concatenate([a.vectors, b.vectors]), np.concatenate([a.stars, b.stars]),
                  np.concatenate([a.block_of, b.block_of + a.B]),
                  np.concatenate([a.pair_of, b.pair_of]))


@pytest.mark.parametrize("name", LINEAR)
def test_blocks_added_in_batches_give_scipys_lp_value(name: str) -> None:
    """Every useful vector, added to Glop in three batches (re-solved after each), reaches
    the value HiGHS finds for the whole program from scratch; so does each prefix."""
    rng = np.random.default_rng(5)
    checked = 0
    for rt in tables(6, 21):
        pairs = Pairs.of(rt)
        allv = useful_blocks(rt, pairs)
        for rel in relaxations(MODELS[name], rt):
            whole = _all_star(rt, pairs)  # keeps every prefix feasible when the model is
            try:
                solve_lp(build(pairs, rel, whole))
            except RuntimeError:  # the whole table fails the relaxation: infeasible
                continue
            rest = rng.permutation(allv.B)
            cuts = np.sort(rng.choice(len(rest) + 1, size=2))
            lp = RestrictedLP(pairs, rel)
            lp.add(whole)
            done = np.zeros(0, dtype=np.int64)
            for part in np.split(rest, cuts):
                lp.add(_subset(allv, part))
                done = np.concatenate([done, part])
                got = lp.solve()
                want = solve_lp(build(pairs, rel, _concat(whole, _subset(allv, done))))
                assert got.value == pytest.approx(want.value, rel=1e-7, abs=1e-6), rel.name
                checked += 1
    assert checked >= 6


def test_rays_give_scipys_lp_value() -> None:
    """Classes of fixed composition (rays) next to the all-star block: the same value as the
    program with their columns appended, solved by HiGHS from scratch."""
    rng = np.random.default_rng(9)
    for rt in tables(6, 4):
        pairs = Pairs.of(rt)
        rel = relaxations(MODELS["l2"], rt)[0]
        star = _all_star(rt, pairs)
        R = 12
        bo = np.repeat(np.arange(R), 2)
        po = np.concatenate([rng.choice(pairs.P, size=2, replace=False) for _ in range(R)])
        share = np.tile([0.5, 0.5], R)
        stars = rng.integers(0, rt.m + 1, size=R)
        rays = Blocks(np.zeros((R, rt.m), np.int32), stars.astype(np.int64),
                      bo.astype(np.int64), po.astype(np.int64))
        lp = RestrictedLP(pairs, rel)
        lp.add(star)
        lp.solve()
        lp.add_rays(rays, share)
        got = lp.solve()
        prog = build(pairs, rel, star)
        cols = csr_matrix((share, (po, bo)), shape=(prog.A_eq.shape[0], R))  # type: ignore[attr-defined]
        A_eq = hstack([prog.A_eq, cols]).tocsr()
        A_ub = hstack([prog.A_ub, csr_matrix((prog.A_ub.shape[0], R))]).tocsr()  # type: ignore[attr-defined]
        res = linprog(np.r_[prog.c, stars], A_ub=A_ub if A_ub.shape[0] else None,
                      b_ub=prog.b_ub if len(prog.b_ub) else None, A_eq=A_eq, b_eq=prog.b_eq,
                      bounds=(0, None), method="highs")
        assert res.status == 0
        assert got.value == pytest.approx(res.fun, rel=1e-7, abs=1e-6)
        # duals: feasible for every column of the program (reduced costs >= 0 up to round-off)
        assert (stars - np.bincount(bo, weights=share * got.pi[po], minlength=R)).min() > -1e-6


@pytest.mark.parametrize("name", ["k3", "l2", "l3", "rec", "t0", "t0.25", "t1", "k3-l2",
                                  "k2-t0.3"])
def test_rays_are_valid_classes_at_their_gain(name: str) -> None:
    """The class pricing hands to the LP for a vector: shares summing to 1, collecting the
    vector's gain, and inside the relaxation (the master's rows hold for it)."""
    rng = np.random.default_rng(3)
    for rt in tables(3, 17):
        pairs = Pairs.of(rt)
        for rel in relaxations(MODELS[name], rt):
            pricer = Pricer(rt, pairs, rel)
            pi = rng.normal(1.0, 1.0, size=pairs.P)
            for mask in range(1 << rt.m):
                mp = pricer.price(mask, pi)
                for g in np.nonzero(np.isfinite(mp.gain))[0]:
                    ps, share = mp.ray(int(g))
                    assert share is not None
                    assert np.all(mp.group[ps] == g) and np.all(np.diff(ps) > 0)
                    assert share.sum() == pytest.approx(1.0)
                    assert float(pi[ps] @ share) == pytest.approx(float(mp.gain[g]), abs=1e-9)
                    block = Blocks(np.zeros((1, rt.m), np.int32), np.array([0]),
                                   np.zeros(len(ps), np.int64), ps)
                    prog = build(pairs, rel, block)
                    v = _class_vars(prog, share)
                    A_ub = prog.A_ub.toarray()  # type: ignore[attr-defined]
                    assert (A_ub @ v <= prog.b_ub + 1e-9).all(), (rel.name, mask, g)


def _class_vars(prog, share: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Values of every variable of a one-block program for the class ``share``: y and n from
    it, EMD slacks as small as the rows allow (checked by the caller's ``<=`` rows)."""
    nvar = len(prog.c)
    v = np.zeros(nvar)
    v[: prog.X] = share
    A_eq = prog.A_eq.toarray()[prog.P:]
    A_ub = prog.A_ub.toarray()
    # the other variables: the least that satisfies the rows (a small LP, exact for slacks)
    free = np.arange(prog.X, nvar)
    if len(free) == 0:
        return v
    res = linprog(np.ones(len(free)) * 0, A_ub=A_ub[:, free] if len(A_ub) else None,
                  b_ub=(prog.b_ub - A_ub[:, : prog.X] @ share) if len(A_ub) else None,
                  A_eq=A_eq[:, free] if len(A_eq) else None,
                  b_eq=(-A_eq[:, : prog.X] @ share) if len(A_eq) else None,
                  bounds=(0, None), method="highs")
    assert res.status == 0, "no class variables make the ray valid"
    v[free] = res.x
    return v


@pytest.mark.parametrize("name", ["k3", "l2", "l3", "t0.25", "t0.3-hier", "k3-l2"])
def test_column_generation_reaches_the_lp_over_every_vector(name: str) -> None:
    """Complete column generation (partial pricing, rays, Glop) ends at the optimum of the LP
    over every useful vector, solved by HiGHS from scratch; and runs the same twice."""
    for rt in tables(5, 8):
        pairs = Pairs.of(rt)
        for rel in relaxations(MODELS[name], rt):
            try:
                want = solve_lp(build(pairs, rel, useful_blocks(rt, pairs))).value
            except RuntimeError:  # infeasible: no class of the whole table either
                with pytest.raises(RuntimeError):
                    column_generation(rt, rel, keep=3)
                continue
            cg = column_generation(rt, rel, keep=3)
            assert cg.bound <= np.ceil(want - 1e-6)
            assert cg.lp_value >= want - 1e-6  # a restricted LP: never below the full one
            lagrangian = rel.cuts is not None and not rel.cuts.one_sided
            if lagrangian and not cg.complete:  # gains are upper bounds: it may stall
                continue
            assert cg.complete
            assert cg.lp_value == pytest.approx(want, rel=1e-7, abs=1e-6)
            assert cg.bound <= np.ceil(want - 1e-6)  # stars are whole: rounded up
            again = column_generation(rt, rel, keep=3)
            assert np.array_equal(again.blocks.pair_of, cg.blocks.pair_of)
            assert np.array_equal(again.lp.x, cg.lp.x)


@pytest.mark.parametrize("name", ["k3", "l2", "t0.25"])
def test_an_iteration_budget_stops_early_with_a_certified_bound(name: str) -> None:
    """A run stopped by ``max_iterations`` takes no more rounds than a full one, and its bound
    is still at most the full LP's (so at most the optimum)."""
    stopped = 0
    for rt in tables(5, 8):
        for rel in relaxations(MODELS[name], rt):
            try:
                full = column_generation(rt, rel, keep=3)
            except RuntimeError:
                continue
            cut = column_generation(rt, rel, keep=3, max_iterations=1)
            assert cut.rounds <= full.rounds
            assert cut.bound <= full.bound
            stopped += cut.rounds < full.rounds
    assert stopped > 0


def test_when_glop_fails_twice_scipys_highs_solves_the_same_program(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A round on which Glop fails (numerical trouble on some mid-size tables) and fails again
    from scratch is solved by SciPy's HiGHS: the same value, duals that price every block of
    the program out (reduced costs >= 0), and column generation still certifies its bound."""
    import starmin.algorithms.lp.incremental as inc

    checked = 0
    for rt in tables(6, 6):
        pairs = Pairs.of(rt)
        allv = useful_blocks(rt, pairs)
        rel = relaxations(MODELS["l2"], rt)[0]
        star = _all_star(rt, pairs)
        try:
            solve_lp(build(pairs, rel, star))
        except RuntimeError:
            continue
        good = RestrictedLP(pairs, rel)
        good.add(_concat(star, allv))
        want = good.solve()
        lp = RestrictedLP(pairs, rel)
        lp.add(_concat(star, allv))
        lp._solver = _broken()
        monkeypatch.setattr(lp, "_fresh", _broken)
        got = lp.solve()
        assert got.value == pytest.approx(want.value, rel=1e-7, abs=1e-6)
        assert len(got.x) == len(want.x)
        assert float(got.x @ np.ones(len(got.x))) > 0
        # the duals bound the program: pi . count is the LP value (strong duality)
        assert float(pairs.count @ got.pi) == pytest.approx(got.value, rel=1e-6, abs=1e-6)
        checked += 1
    assert checked >= 3
    # column generation on a table whose every Glop solve fails: the same certified bound
    rt = next(iter(tables(6, 1)))
    rel = relaxations(MODELS["l2"], rt)[0]
    want_cg = column_generation(rt, rel)
    monkeypatch.setattr(inc.RestrictedLP, "_fresh", lambda self: _broken())
    real_init = inc.RestrictedLP.__init__

    def init(self: inc.RestrictedLP, *a: object, **k: object) -> None:
        real_init(self, *a, **k)  # type: ignore[arg-type]
        self._solver = _broken()

    monkeypatch.setattr(inc.RestrictedLP, "__init__", init)
    got_cg = column_generation(rt, rel)
    assert got_cg.bound == want_cg.bound
    assert got_cg.lp_value == pytest.approx(want_cg.lp_value, rel=1e-7, abs=1e-6)


def _broken() -> object:
    """A Glop that fails every solve and, as the real one does, refuses every call after."""

    class Broken:
        failed = False

        def solve(self, *args: object) -> object:
            self.failed = True
            raise RuntimeError("ABNORMAL")

        def update(self, *args: object) -> bool:
            if self.failed:
                raise RuntimeError("StatusNotOk: the Solver can't be used anymore")
            return True

    return Broken()


@pytest.mark.parametrize("name", ["l2", "l3", "t0.25"])
def test_the_interior_point_reaches_the_same_lp_optimum(name: str) -> None:
    """``lp_solver="highs-ipm"`` (SciPy's HiGHS on the whole program each round) ends at the
    same LP optimum as Glop, and an unknown solver is refused by name."""
    checked = 0
    for rt in tables(5, 8):
        for rel in relaxations(MODELS[name], rt):
            try:
                glop = column_generation(rt, rel, keep=3)
            except RuntimeError:
                continue
            ipm = column_generation(rt, rel, keep=3, lp_solver="highs-ipm")
            if glop.complete and ipm.complete:
                assert ipm.lp_value == pytest.approx(glop.lp_value, rel=1e-6, abs=1e-6)
                assert ipm.bound == glop.bound
                checked += 1
    assert checked >= 3
    with pytest.raises(ValueError, match="unknown LP solver 'simplex'"):
        RestrictedLP(Pairs.of(rt), rel, solver="simplex")
