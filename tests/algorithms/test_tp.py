"""Tests of TP (src/starmin/algorithms/approx/tp.py, tp_phases.py): Xiao, Yi & Tao Sec. 5.

The paper's worked examples are in tests/reference/test_xiao_examples.py."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from starmin.algorithms.approx import tp, tp_phases
from starmin.algorithms.exact import brute_force
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput
from starmin.models import KAnonymity, LDiversity
from starmin.models.apply import holds
from starmin.transform.plan import STAR
from tests.algorithms.tp_support import (
    l_eligible_table,
    optimum,
    reference_phase_one,
)
from tests.helpers.tables import from_rows, satisfies


def _groups_table(counts: list[list[int]]) -> RowTypes:
    """One row type (QI code = its index, one column) per QI-group of pillar counts."""
    C = np.asarray(counts, dtype=np.int64)
    g, m = C.shape
    qi = np.repeat(np.arange(g), C.sum(axis=1))[:, None]
    sa = np.concatenate([np.repeat(np.arange(m), row) for row in C])
    return RowTypes.from_arrays(qi, sa)


def _hard_counts(rng: np.random.Generator, l: int, g: int, m: int, base: int = 1,
                 spike: int = 4) -> NDArray[np.int64]:
    """Groups of l distinct values plus a spike: often all thin and conflicting (phase 3)."""
    C = np.zeros((g, m), dtype=np.int64)
    for i in range(g):
        C[i, rng.choice(m, size=l, replace=False)] = rng.integers(1, base + 1)
        C[i, rng.integers(m)] += rng.integers(1, spike)
    return C


def _check(rt: RowTypes, l: int) -> tuple[int, int, int]:
    """Solve, validate, and return (phase, suppressed tuples, stars)."""
    model = LDiversity(l)
    plan = tp.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert holds(model, rt, plan.class_key_counts(rt.s)).all()
    tuples = plan.certificate["suppressed_tuples"]
    assert plan.suppressed_records == tuples == plan.fully_suppressed_records
    assert plan.stars == rt.m * tuples
    return plan.certificate["phase"], tuples, plan.stars


# -- phase one --------------------------------------------------------------------------------
@pytest.mark.parametrize("l", [1, 2, 3, 4, 5])
def test_phase_one_heights_equal_tuple_by_tuple_removal(l: int) -> None:
    rng = np.random.default_rng(l)
    C = rng.integers(0, 6, size=(400, 7)) * (rng.random((400, 7)) < 0.6)
    kept = np.minimum(C, tp_phases.phase_one_heights(C, l)[:, None])
    np.testing.assert_array_equal(kept, reference_phase_one(C, l))
    sizes, tops = kept.sum(axis=1), kept.max(axis=1)
    assert (sizes >= l * tops).all()                           # every group l-eligible


def test_phase_one_many_values_uses_partition_path() -> None:
    rng = np.random.default_rng(7)
    C = rng.integers(0, 4, size=(200, 40))
    for l in (2, 3, 6):
        kept = np.minimum(C, tp_phases.phase_one_heights(C, l)[:, None])
        np.testing.assert_array_equal(kept, reference_phase_one(C, l))


def test_phase_one_fewer_values_than_l_removes_everything() -> None:
    C = np.array([[3, 2], [1, 1]])
    assert tp_phases.phase_one_heights(C, 3).tolist() == [0, 0]


# -- phases two and three against a literal re-implementation ---------------------------------
def _literal(counts: NDArray[np.int64], l: int) -> tuple[list[tuple[int, int, int]], int]:
    """Phases two and three recomputed from scratch at every step, same tie-breaking."""
    Q = reference_phase_one(counts, l)
    R = (counts - Q).sum(axis=0)
    moves: list[tuple[int, int, int]] = []

    def pillars(i: int) -> list[int]:
        return [] if Q[i].sum() == 0 else np.flatnonzero(Q[i] == Q[i].max()).tolist()

    def thin(i: int) -> bool:
        return bool(Q[i].sum() == l * Q[i].max())

    def conflicting(i: int) -> bool:
        return any(R[u] == R.max() for u in pillars(i))

    def move(ph: int, i: int, v: int) -> None:
        Q[i, v] -= 1
        R[v] += 1
        moves.append((ph, i, v))

    def eligible() -> bool:
        return bool(R.sum() >= l * R.max())

    if eligible():
        return moves, 1
    while not eligible():                                      # phase two
        alive = [i for i in range(len(Q)) if Q[i].sum() and not (thin(i) and conflicting(i))]
        vals = sorted({v for i in alive for v in np.flatnonzero(Q[i]).tolist()},
                      key=lambda v: (R[v], v))
        if not vals:
            break
        v = vals[0]
        i = min(i for i in alive if Q[i, v] > 0)
        for u in ([v] if Q[i].sum() > l * Q[i].max() else pillars(i)):
            move(2, i, u)
    if eligible():
        return moves, 2
    while not eligible():                                      # phase three
        P = R.max() == R
        picked = []
        while P.any():
            live = [i for i in range(len(Q)) if Q[i].sum()]
            i = min(live, key=lambda i: (sum(P[u] for u in pillars(i)), i))
            picked.append(i)
            P &= np.isin(np.arange(len(R)), pillars(i))
        for i in picked:
            for u in pillars(i):
                move(3, i, u)
            if eligible():
                return moves, 3
        H = R.max()
        for i in range(len(Q)):
            while Q[i].sum() and not eligible():
                if Q[i].sum() > l * Q[i].max():
                    move(3, i, int(np.flatnonzero((Q[i] > 0) & (R < H))[0]))
                elif conflicting(i):
                    break
                else:
                    for u in pillars(i):
                        move(3, i, u)
            if eligible():
                return moves, 3
    return moves, 3


def test_fast_phases_make_the_literal_moves() -> None:
    rng = np.random.default_rng(0)
    phases: dict[int, int] = {1: 0, 2: 0, 3: 0}
    multi_round = 0
    for _ in range(2500):
        l = int(rng.integers(2, 5))
        m = int(rng.integers(l, l + 4))
        g = int(rng.integers(1, 20))
        if rng.random() < 0.5:
            C = _hard_counts(rng, l, g, m, base=2, spike=8)
        else:
            C = rng.integers(0, 5, size=(g, m)) * (rng.random((g, m)) < 0.7)
        tot = C.sum(axis=0)
        if tot.sum() == 0 or tot.max() * l > tot.sum():
            continue
        run = tp_phases.run(C, l, trace=True)
        moves, phase = _literal(C, l)
        assert run.moves == moves
        assert run.phase == phase
        phases[phase] += 1
        multi_round += run.rounds > 1
        np.testing.assert_array_equal(run.kept + run.removed, C)
        R = run.removed.sum(axis=0)
        assert R.sum() >= l * R.max()                          # R l-eligible
        assert (run.kept.sum(axis=1) >= l * run.kept.max(axis=1)).all()
    assert min(phases.values()) >= 20, phases
    assert multi_round >= 5


def test_theorem_2_l_equal_2_never_needs_phase_three() -> None:
    rng = np.random.default_rng(11)
    seen = set()
    for _ in range(800):
        g, m = int(rng.integers(1, 9)), int(rng.integers(2, 6))
        C = _hard_counts(rng, 2, g, m) if rng.random() < 0.5 else rng.integers(0, 5, (g, m))
        tot = C.sum(axis=0)
        if tot.sum() == 0 or tot.max() * 2 > tot.sum():
            continue
        run = tp_phases.run(C, 2)
        seen.add(run.phase)
        assert run.phase in (1, 2)
        R1 = run.residue_one
        assert run.removed.sum() <= max(R1.sum(), 2 * R1.max()) + 1   # Thm 2: <= OPT + 1
    assert seen == {1, 2}


def test_phase_three_bound_of_theorem_3_on_larger_hard_tables() -> None:
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(400):
        l = int(rng.integers(3, 7))
        C = _hard_counts(rng, l, int(rng.integers(3, 30)), int(rng.integers(l, l + 5)))
        tot = C.sum(axis=0)
        if tot.max() * l > tot.sum():
            continue
        run = tp_phases.run(C, l)
        h1 = int(run.residue_one.max())
        R = run.removed.sum(axis=0)
        assert R.sum() >= l * R.max()
        if run.phase == 3:
            hits += 1
            assert R.max() <= (l - 1) * h1                      # Lemmas 8-9
            assert R.sum() <= l * (l - 1) * h1 + l - 1          # Thm 3's proof
            assert run.rounds <= h1                             # Lemma 9
    assert hits >= 10


# -- against the optimum (tiny tables) -------------------------------------------------------
def _oracle_cases() -> list[tuple[RowTypes, int]]:
    cases = [(l_eligible_table(seed, 6 + seed % 5, 2 + seed % 2, m=3, values=2 + seed % 2,
                               s=3 + seed % 2), 2 + seed % 2) for seed in range(40)]
    rng = np.random.default_rng(3)
    while sum(1 for _ in cases) < 60:                           # phase-three cases
        l = int(rng.integers(3, 5))
        C = _hard_counts(rng, l, int(rng.integers(2, 4)), int(rng.integers(l, l + 3)))
        tot = C.sum(axis=0)
        if tot.sum() <= 10 and tot.max() * l <= tot.sum() and tp_phases.run(C, l).phase == 3:
            qi = rng.integers(0, 2, size=(len(C), 3))
            qi[:, 0] = np.arange(len(C))                        # distinct row types
            rt = RowTypes.from_arrays(np.repeat(qi, C.sum(axis=1), axis=0),
                                      np.concatenate([np.repeat(np.arange(C.shape[1]), r)
                                                      for r in C]))
            cases.append((rt, l))
    return cases


@pytest.mark.parametrize("case", range(60))
def test_within_the_paper_bounds_of_the_optimum(case: int) -> None:
    rt, l = _ORACLE[case]
    opt_stars, opt_tuples = optimum(rt, l)
    assert brute_force.solve(rt, LDiversity(l)).stars == opt_stars
    phase, tuples, stars = _check(rt, l)
    plan = tp.solve(rt, LDiversity(l))
    assert plan.lower_bound is not None
    assert plan.certificate["tuple_lower_bound"] <= opt_tuples  # Cor. 1 proof, Cor. 2
    assert plan.lower_bound <= opt_stars
    assert stars <= l * rt.m * opt_stars                        # Thm 3 + Lemma 2
    assert plan.guarantee.ratio == l * rt.m
    if phase == 1:
        assert tuples == opt_tuples                             # Cor. 1
    elif phase == 2:
        assert tuples <= opt_tuples + l - 1                     # Cor. 3
    else:
        assert tuples < l * opt_tuples                          # Thm 3


_ORACLE = _oracle_cases()


def test_oracle_cases_cover_every_phase() -> None:
    phases = {tp.solve(rt, LDiversity(l)).certificate["phase"] for rt, l in _ORACLE}
    assert phases == {1, 2, 3}


# -- the release ----------------------------------------------------------------------------
def test_residue_is_one_all_star_class_and_kept_rows_unchanged() -> None:
    rt = _groups_table([[3, 1, 1, 2, 3], [0, 2, 2, 4, 4], [4, 4, 0, 0, 0]])
    plan = tp.solve(rt, LDiversity(3))
    plan.validate(rt)
    star_rows = [o for o in plan.outputs.tolist() if STAR in o]
    assert star_rows == [[STAR]]
    kept = {tuple(o) for o in plan.outputs.tolist() if STAR not in o}
    assert kept <= {tuple(c) for c in rt.codes.tolist()}
    assert plan.class_sizes[(plan.outputs == STAR).all(axis=1)].tolist() == [12]


def test_nothing_suppressed_when_every_group_is_l_eligible() -> None:
    rt = from_rows([[0, 0]] * 2 + [[1, 1]] * 2, [0, 1, 0, 1])
    plan = tp.solve(rt, LDiversity(2))
    assert plan.stars == 0 == plan.lower_bound
    assert plan.certificate["phase"] == 1
    assert plan.certificate["instance_ratio_bound"] == 1.0


def test_l_equal_one_suppresses_nothing() -> None:
    rt = l_eligible_table(1, 9, 1)
    assert tp.solve(rt, LDiversity(1)).stars == 0


def test_not_l_eligible_table_is_refused_with_the_papers_reason() -> None:
    rt = from_rows([[0], [1], [2], [3]], [0, 0, 0, 1])
    with pytest.raises(Infeasible, match=r"no 2-diverse release exists: value 0 has "
                                         r"frequency 3/4 = 0\.75 > 1/2.*Lemma 1.*l <= 1"):
        tp.solve(rt, LDiversity(2))


def test_refuses_other_models_and_sensitive_columns() -> None:
    rt = from_rows([[0], [1]], [0, 1])
    assert tp.supports(KAnonymity(2), rt) is not None
    with pytest.raises(InvalidInput, match="frequency l-diversity"):
        tp.solve(rt, KAnonymity(2))
    no_sa = from_rows([[0], [1]])
    assert "exactly one sensitive column" in (tp.supports(LDiversity(2), no_sa) or "")
    with pytest.raises(InvalidInput, match="exactly one sensitive column"):
        tp.solve(no_sa, LDiversity(2))
    assert tp.supports(LDiversity(2), rt) is None


def test_registered_entry() -> None:
    a = tp.ALGORITHM
    assert a.name == "tp"
    assert a.guarantee.kind == "ratio"
    assert "Thm 3" in a.guarantee.reference and "Lemma 2" in a.guarantee.reference


def test_row_type_order_does_not_change_phase_one_or_the_bound() -> None:
    from tests.helpers.tables import permuted

    for seed in range(10):
        rt = l_eligible_table(100 + seed, 40, 3, m=3, values=3, s=5)
        base = tp.solve(rt, LDiversity(3))
        other = tp.solve(permuted(rt, seed), LDiversity(3))
        assert other.lower_bound == base.lower_bound
        assert other.certificate["phase"] == base.certificate["phase"]
        if base.certificate["phase"] == 1:                      # unique result (Sec. 5.2)
            assert other.stars == base.stars
