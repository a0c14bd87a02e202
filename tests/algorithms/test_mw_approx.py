"""Meyerson & Williams' approximations (src/starmin/algorithms/approx/mw_subsets.py, Thm 4.1;
mw_balls.py, Thm 4.2) and their shared Reduce (_mw_cover.py, Sec. 4.2.2).

Each is held to its ratio against brute force on seeded random tables -- to the ratio its
registry entry states (the paper's) and to the sharper ratio its proof gives -- and its
releases pass the independent verifier."""

from __future__ import annotations

import functools
import math

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.algorithms import registry
from starmin.algorithms.approx import _mw_cover, mw_balls, mw_subsets
from starmin.algorithms.exact import brute_force
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput
from starmin.models import KAnonymity, LDiversity
from starmin.transform.plan import STAR
from tests.helpers.tables import expanded, from_rows, permuted, random_table, satisfies

METHODS = {"mw-subsets": (mw_subsets, {}), "mw-balls": (mw_balls, {}),
           "mw-balls/diameter": (mw_balls, {"weight": "diameter"})}


def test_registered_as_ratio_methods_with_the_papers_ratios() -> None:
    table = registry.algorithms()
    rt = random_table(0, 6, m=3)
    for name, ref, ratio in (("mw-subsets", "Thm 4.1", 3 * 2 * (1 + math.log(4))),
                             ("mw-balls", "Thm 4.2", 6 * 2 * (1 + math.log(3)))):
        a = table[name]
        assert a.guarantee.kind == "ratio" and ref in a.guarantee.reference
        assert a.guarantee.ratio_of is not None
        assert a.guarantee.ratio_of(KAnonymity(2), rt) == pytest.approx(ratio)
        assert a.auto is None  # runs only when named
    # Thm 4.2 with m < 2k - 1: m is raised to 2k - 1 (the proof's H(2k - 1))
    assert mw_balls.star_ratio(KAnonymity(5), rt) == pytest.approx(30 * (1 + math.log(9)))
    assert mw_balls.star_ratio(KAnonymity(2), random_table(0, 6, m=20)) == pytest.approx(
        12 * (1 + math.log(20)))


def test_proven_ratios_are_within_the_papers() -> None:
    for k in range(1, 30):
        assert mw_subsets.proven_ratio(k) <= 3 * k * (1 + math.log(2 * k))
        assert mw_balls.proven_ratio(k) <= 6 * k * (1 + math.log(2 * k - 1))
    assert mw_subsets.proven_ratio(2) == pytest.approx(9 / 4 * (1 + 1 / 2 + 1 / 3))
    assert mw_balls.proven_ratio(2) == pytest.approx(9 / 2 * (1 + 1 / 2 + 1 / 3))


VALUES = ([2, 2], [2, 3], [3, 3], [2, 2, 2], [3, 2, 2], [2, 2, 2, 2], [3, 3, 3, 3])


@functools.cache
def random_case(seed: int) -> tuple[RowTypes, KAnonymity, int]:
    """A seeded random table (4-13 rows, 2-4 QIs, some with a sensitive column), k in 2..4,
    and brute force's optimum."""
    n, k = 4 + seed % 10, 2 + seed % 3
    vals = VALUES[seed % len(VALUES)]
    rt = random_table(1000 + seed, n, m=len(vals), values=vals, s=2 if seed % 2 else None)
    return rt, KAnonymity(k), brute_force.solve(rt, KAnonymity(k)).stars


@pytest.mark.parametrize("name", list(METHODS))
def test_within_ratio_of_brute_force_on_random_tables(name: str) -> None:
    mod, opts = METHODS[name]
    worst = 1.0
    for seed in range(160):
        rt, model, opt = random_case(seed)
        plan = mod.solve(rt, model, **opts)
        plan.validate(rt)
        assert satisfies(plan, rt, model), seed
        assert plan.lower_bound is not None and plan.lower_bound <= opt, (seed, plan.lower_bound)
        proven = plan.certificate["proven_ratio"]
        assert opt <= plan.stars <= proven * opt, (seed, plan.stars, opt, proven)
        assert plan.stars <= mod.star_ratio(model, rt) * opt
        assert plan.guarantee.ratio == mod.star_ratio(model, rt)
        if opt:
            worst = max(worst, plan.stars / opt)
    assert worst > 1  # the tables are not all solved optimally: the check has teeth


@pytest.mark.parametrize("name", list(METHODS))
def test_repeated_row_types_and_order_do_not_matter(name: str) -> None:
    """A row type with many copies is many rows: splitting it into one row type per row
    (a non-canonical RowTypes) or permuting row types gives the same stars."""
    mod, opts = METHODS[name]
    for seed in range(20):
        rt = random_table(seed, 9 + seed % 5, m=3, values=[2, 3, 2])
        model = KAnonymity(2 + seed % 3)
        stars = mod.solve(rt, model, **opts).stars
        for other in (expanded(rt), permuted(rt, seed, columns=False, values=False)):
            plan = mod.solve(other, model, **opts)
            plan.validate(other)
            assert satisfies(plan, other, model)
            assert plan.stars == stars, seed


def test_definition_4_1_example_is_one_group_of_diameter_2() -> None:
    """Sec. 4, the example after Def. 4.1: V = {1010, 1110, 0110}, k = 3: one 3-group
    ``**10``, diameter 2 (1010 and 0110 differ in two coordinates), 6 stars."""
    rt = from_rows([[1, 0, 1, 0], [1, 1, 1, 0], [0, 1, 1, 0]])
    for mod, opts in METHODS.values():
        plan = mod.solve(rt, KAnonymity(3), **opts)
        assert plan.outputs.tolist() == [[STAR, STAR, 1, 0]]
        assert plan.stars == 6 == brute_force.solve(rt, KAnonymity(3)).stars
        assert plan.certificate["partition_diameter_sum"] == 2


def test_large_row_types_cost_nothing_and_small_ones_join_them() -> None:
    # (0,0) x4 and (1,1) x3 are 2-anonymous alone; (0,1) x1 must join a class: 2 stars
    rt = from_rows([[0, 0]] * 4 + [[1, 1]] * 3 + [[0, 1]])
    for mod, opts in METHODS.values():
        plan = mod.solve(rt, KAnonymity(2), **opts)
        assert plan.stars == 2 == brute_force.solve(rt, KAnonymity(2)).stars
    assert mw_subsets.solve(from_rows([[0, 0]] * 3 + [[1, 1]] * 2), KAnonymity(2)).stars == 0


def test_unit_vectors_around_zero_stay_within_the_ratio() -> None:
    """The instance that makes whole balls fail (mw_balls docstring): the zero vector and
    the m unit vectors, k = 2. Each unit-vector row's class has >= 2 rows, so each of its
    ``u`` unit vectors makes a column non-constant, and a class of ``u`` unit vectors
    (plus maybe the zero row) costs >= 2 per unit vector: OPT = 2m for odd m ({0, e_1} and
    pairs). The ball of radius 1 around 0 holds every row at ratio 2 / (m + 1), the greedy's
    first choice; released whole it costs (m + 1) m, beyond 6k(1 + ln m) x OPT for m = 301."""
    for m in (3, 5, 7):  # the formula for OPT, by brute force
        rt = from_rows(np.vstack([np.zeros((1, m), int), np.eye(m, dtype=int)]))
        assert brute_force.solve(rt, KAnonymity(2)).stars == 2 * m
    m = 301
    rt = from_rows(np.vstack([np.zeros((1, m), int), np.eye(m, dtype=int)]))
    model = KAnonymity(2)
    opt = 2 * m
    assert (m + 1) * m > mw_balls.star_ratio(model, rt) * opt  # whole balls would break it
    plan = mw_balls.solve(rt, model)
    assert satisfies(plan, rt, model)
    assert plan.lower_bound is not None and plan.lower_bound <= opt
    assert plan.stars <= mw_balls.proven_ratio(2) * opt
    assert plan.class_sizes.max() <= 3  # groups of k .. 2k - 1 rows


def test_infeasible_and_unsupported() -> None:
    rt = random_table(3, 4, m=2)
    for mod, _ in METHODS.values():
        with pytest.raises(Infeasible):
            mod.solve(rt, KAnonymity(5))
        reason = mod.supports(LDiversity(2), random_table(3, 6, m=2, s=2))
        assert reason and "k-anonymity only" in reason and "--method auto" in reason
        with pytest.raises(InvalidInput):
            mod.solve(random_table(3, 6, m=2, s=2), LDiversity(2))
    with pytest.raises(InvalidInput, match="weight"):
        mw_balls.solve(random_table(3, 6, m=2), KAnonymity(2), weight="size")


def test_size_limits_name_the_parameter() -> None:
    # 40 distinct rows, k = 3: sum_{j <= 5} C(40, j) = 760,098 candidate supports
    rt = from_rows([[i // 8, i % 8, i % 3] for i in range(40)])
    reason = mw_subsets.supports(KAnonymity(3), rt)
    assert reason is not None
    assert "2k - 1 = 5" in reason and "300,000" in reason and "--method auto" in reason
    assert mw_subsets.support_count(3, 40, 0) == sum(math.comb(40, j) for j in range(1, 6))
    assert mw_subsets.supports(KAnonymity(2), rt) is None  # C(40, <= 3) = 10,700
    with pytest.raises(InvalidInput, match="2k - 1"):
        starmin.solve(rt, KAnonymity(3), "mw-subsets")


def test_size_limit_of_balls(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = random_table(5, 30, m=4, values=3)
    assert mw_balls.supports(KAnonymity(2), rt) is None
    monkeypatch.setattr(mw_balls, "MAX_CLASSES", rt.t_in - 1)
    reason = mw_balls.supports(KAnonymity(2), rt)
    assert reason is not None and f"t_in = {rt.t_in}" in reason and "--method auto" in reason


# ---------------------------------------------------------------------------------------
# Reduce (Sec. 4.2.2) on class counts


def test_reduce_removes_a_shared_row_from_the_larger_set() -> None:
    size = np.array([1, 1, 1, 1, 1])
    # {0,1,2} and {2,3,4} share row 2; k = 2: the row leaves one set of 3
    part = _mw_cover.reduce_cover([{0: 1, 1: 1, 2: 1}, {2: 1, 3: 1, 4: 1}], size, 2)
    assert sorted(sum(S.values()) for S in part) == [2, 3]
    assert _mw_cover.excess(part, size).tolist() == [0] * 5


def test_reduce_joins_two_k_sets_sharing_a_row() -> None:
    size = np.array([1, 1, 1])
    # {0,1} and {1,2}, k = 2: both have k rows, so they become {0,1,2}
    part = _mw_cover.reduce_cover([{0: 1, 1: 1}, {1: 1, 2: 1}], size, 2)
    assert part == [{0: 1, 1: 1, 2: 1}]


def test_reduce_on_counts_shares_rows_a_class_forces() -> None:
    size = np.array([3, 1])
    # class 0 has 3 rows, held 5 times; the first two sets (k = 2 rows each) are joined and
    # must share a row of class 0 (2 + 2 > 3): {0: 3}, which then gives one row back
    cover = [{0: 2}, {0: 2}, {0: 1, 1: 1}]
    part = _mw_cover.reduce_cover(cover, size, 2)
    assert part == [{0: 2}, {0: 1, 1: 1}]


def test_reduce_never_raises_the_diameter_sum() -> None:
    rng = np.random.default_rng(0)
    for trial in range(200):
        R, k = 6 + trial % 5, 2 + trial % 3
        vec = rng.integers(0, 2, size=(R, 4))
        size = rng.integers(1, 4, size=R)
        D = (vec[:, None, :] != vec[None, :, :]).sum(axis=2)
        cover = []
        left = size.copy()
        while left.any():  # random sets of k .. 2k - 1 rows until every row is held
            S: dict[int, int] = {}
            want = int(rng.integers(k, 2 * k))
            for c in rng.permutation(R).tolist():
                x = min(want - sum(S.values()), int(size[c]))
                if x > 0:
                    S[c] = x
                    left[c] = max(0, left[c] - x)
            if sum(S.values()) < k:
                break
            cover.append(S)
        if left.any():
            continue
        part = _mw_cover.reduce_cover(cover, size, k)
        assert _mw_cover.excess(part, size).tolist() == [0] * R
        assert all(k <= sum(S.values()) <= 2 * k - 1 for S in part)
        assert _mw_cover.diameter_sum(D, part) <= _mw_cover.diameter_sum(D, cover)


# ---------------------------------------------------------------------------------------
# end to end: the release passes the independent verifier


@pytest.mark.parametrize("method", ["mw-subsets", "mw-balls"])
def test_release_verifies(method: str) -> None:
    rng = np.random.default_rng(11)
    df = pl.DataFrame({"a": rng.integers(0, 3, 40).tolist(), "b": rng.integers(0, 4, 40).tolist(),
                       "c": rng.integers(0, 2, 40).tolist(),
                       "s": rng.choice(["x", "y", "z"], 40).tolist()})
    release = starmin.anonymize(df, qi="a,b,c", sensitive="s", k=3, method=method)
    assert release.verification.passed
    assert release.report["method"] == method
    assert release.report["guarantee"]["kind"] == "ratio"
    assert release.report["stars"] == release.plan.stars
    sizes = release.table.group_by(["a", "b", "c"]).len()["len"]
    assert sizes.min() >= 3
