"""Tests of merge-repair (src/starmin/algorithms/heuristic/merge_repair.py).

A heuristic for every model: each output must validate and satisfy its model; on tiny random
tables it can never beat the brute-force optimum, and never loses to the single class of the
whole table; it is deterministic per seed. On ARX adult its releases go through the engine and
the independent verifier."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from numpy.typing import NDArray

from starmin.algorithms.exact import brute_force
from starmin.algorithms.heuristic import merge_repair
from starmin.algorithms.heuristic._moves import improve
from starmin.algorithms.heuristic._split_refine import refine
from starmin.algorithms.heuristic._start import spread_keys
from starmin.algorithms.heuristic.pattern_packing import pack
from starmin.api import implied_k
from starmin.data.rowtypes import RowTypes
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible, InvalidInput
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    MatrixDistance,
    OrderedDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.models.apply import check_feasible, holds
from starmin.transform.plan import ReleasePlan
from starmin.verifier import verify
from tests.helpers.adult import adult_encoded
from tests.helpers.tables import expanded, from_rows, random_table, two_sensitive_table

HIERARCHY = HierarchicalDistance((("0", "a", "*"), ("1", "a", "*"), ("2", "b", "*")))
MATRIX = MatrixDistance([[0, 0.5, 1], [0.5, 0, 0.7], [1, 0.7, 0]])

# every model kind of starmin.models, for tables with sensitive codes 0, 1, 2
MODELS: list[PrivacyModel] = [
    KAnonymity(2), KAnonymity(3), LDiversity(2), LDiversity(3), DistinctLDiversity(2),
    DistinctLDiversity(3), EntropyLDiversity(2), RecursiveCLDiversity(2, 2),
    RecursiveCLDiversity(3, 3), TCloseness(0.2), TCloseness("1/3"),
    TCloseness(0.25, OrderedDistance()), TCloseness(0.3, HIERARCHY), TCloseness(0.35, MATRIX),
    PSensitiveKAnonymity(p=2, k=3), AllOf(KAnonymity(3), LDiversity(2)),
    AllOf(KAnonymity(2), TCloseness(0.3)), AllOf(EntropyLDiversity(2), TCloseness(0.4)),
]


def _whole_table_stars(rt: RowTypes) -> int:
    return rt.n * int((~(rt.codes == rt.codes[0]).all(axis=0)).sum())


def _check(rt: RowTypes, model: PrivacyModel, **options: object) -> ReleasePlan:
    plan = merge_repair.solve(rt, model, **options)
    plan.validate(rt)
    assert holds(model, rt, plan.class_key_counts(rt.s)).all()
    assert len(np.unique(plan.outputs, axis=0)) == plan.t_out  # equal vectors: one class
    assert plan.stars <= _whole_table_stars(rt)
    assert plan.method == "merge-repair" and plan.guarantee.kind == "heuristic"
    return plan


def _feasible(model: PrivacyModel, rt: RowTypes) -> bool:
    try:
        check_feasible(model, rt)
    except Infeasible:
        with pytest.raises(Infeasible):
            merge_repair.solve(rt, model)
        return False
    return True


def test_registered_entry() -> None:
    a = merge_repair.ALGORITHM
    assert a.name == "merge-repair"
    assert a.guarantee.kind == "heuristic"
    rt = from_rows([[0, 1], [1, 0]], sa=[0, 1])
    assert all(a.supports(m, rt) is None for m in MODELS)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
@pytest.mark.parametrize("seed", range(4))
def test_never_below_the_optimum(model: PrivacyModel, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(6, 10)), int(rng.integers(2, 4))
    rt = random_table(31 * seed + 7, n, m, values=int(rng.integers(2, 4)), s=3)
    if not _feasible(model, rt):
        return
    plan = _check(rt, model)
    opt = brute_force.solve(rt, model).stars
    assert opt <= plan.stars


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_larger_tables_and_every_variant(model: PrivacyModel) -> None:
    for seed in range(2):
        rt = random_table(500 + seed, 120, 4, values=[2, 3, 4, 5], s=3)
        if not _feasible(model, rt):
            continue
        if model is MODELS[13]:  # matrix distance: one LP per class judged, keep it short
            _check(rt, model, width=4, rules="cost", donors=4)
            continue
        plan = _check(rt, model, seed=seed)
        k = merge_repair.start_size(model, rt, merge_repair.make_judge(model, rt))
        assert k >= implied_k(model)
        start = f"pattern-packing k={k}" if k > 1 else "rows"
        if k > 1 and merge_repair.diverse_suits(model):
            start = "diverse"
        if merge_repair.level_suits(model, rt):  # the three run, the best one released
            runs = plan.certificate["starts"]
            assert set(runs) == {"levels", "diverse", "tree"}
            assert plan.stars == min(runs.values()) == runs[plan.certificate["start"]]
        elif merge_repair.implied_suits(model, rt) or merge_repair.close_suits(model, rt):
            # distinct, entropy, recursive (c > 1); t-closeness with close parts
            runs = plan.certificate["starts"]
            assert set(runs) == {"levels", start}
            assert plan.stars == min(runs.values()) == runs[plan.certificate["start"]]
        else:
            assert plan.certificate["start"] == start
            _check(rt, model, start="levels", rules="spread")  # any model, on request
        variants: list[dict[str, object]] = [
            {"start": "rows"}, {"start": "pattern-packing", "start_k": 2}, {"start": "diverse"},
            {"full_scan": 1, "h": 2},  # partners among sort-order neighbours only
            {"width": 1, "donors": 0, "refine": False, "moves": False, "rules": "cost"},
            {"width": 3, "donors": 1, "refine": False, "moves": False, "rules": "spread"},
        ]
        for options in variants[seed::2]:
            _check(rt, model, **options)
        _check(expanded(rt), model, rules="cost")  # equal QI vectors as separate row types


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_the_diverse_start_leaves_at_most_its_last_class_violating(model: PrivacyModel) -> None:
    """Every class the diverse start grows satisfies the model, except the one that ran out of
    rows (the last); the release built on it satisfies the model and is never below the
    optimum."""
    from starmin.algorithms.heuristic._diverse_start import diverse_plan

    for seed in range(3):
        rt = random_table(900 + seed, 60, 4, values=[2, 3, 4, 5], s=3)
        if not _feasible(model, rt):
            continue
        judge = merge_repair.make_judge(model, rt)
        k = merge_repair.start_size(model, rt, judge)
        start = diverse_plan(rt, judge, k, "merge-repair", merge_repair.GUARANTEE)
        start.validate(rt)
        assert (~holds(model, rt, start.class_key_counts(rt.s))).sum() <= 1
        again = diverse_plan(rt, judge, k, "merge-repair", merge_repair.GUARANTEE)
        assert np.array_equal(start.outputs, again.outputs)
        assert np.array_equal(start.count, again.count)
    small = random_table(77, 8, 3, values=3, s=3)
    if _feasible(model, small):
        plan = _check(small, model, start="diverse")
        assert brute_force.solve(small, model).stars <= plan.stars


def test_the_diverse_start_takes_a_finished_class_again_so_work_follows_the_row_types() -> None:
    """With every count multiplied by 50 the diverse start judges about as many classes as
    before (each finished class is copied while its row types have rows), not 50 times more;
    the release still satisfies the model."""
    import dataclasses

    from starmin.algorithms.heuristic._diverse_start import diverse_plan

    rt = random_table(4242, 80, 4, values=[2, 3, 3, 4], s=3)
    model = LDiversity(2)
    calls = []
    for mult in (1, 50):
        big = dataclasses.replace(rt, counts=rt.counts * mult)
        judge = merge_repair.make_judge(model, big)
        seen = [0]

        def counted(h: NDArray[np.int64], judge: object = judge, seen: list[int] = seen
                    ) -> NDArray[np.bool_]:
            seen[0] += 1
            return judge(h)  # type: ignore[operator]

        plan = diverse_plan(big, counted, 2, "merge-repair", merge_repair.GUARANTEE)
        plan.validate(big)
        assert (~holds(model, big, plan.class_key_counts(big.s))).sum() <= 1
        calls.append(seen[0])
    assert calls[1] <= 2 * calls[0] + 10


def test_the_auto_start_is_diverse_for_frequency_l_diversity_only() -> None:
    assert merge_repair.diverse_suits(LDiversity(3))
    assert merge_repair.diverse_suits(AllOf(KAnonymity(2), LDiversity(3)))
    for model in (KAnonymity(3), AllOf(KAnonymity(3), LDiversity(2)), DistinctLDiversity(3),
                  EntropyLDiversity(2), RecursiveCLDiversity(2, 2), TCloseness(0.2),
                  PSensitiveKAnonymity(p=2, k=3), AllOf(LDiversity(2), TCloseness(0.3))):
        assert not merge_repair.diverse_suits(model)


def test_a_frequency_l_diverse_class_of_distinct_values_costs_no_stars() -> None:
    """Three row types that differ only in the last column, each holding every sensitive
    value once: the diverse start keeps each type a class of its own (no stars), whereas
    one class of all three would star the last column."""
    rt = from_rows([[0, 0, 0]] * 3 + [[0, 0, 1]] * 3 + [[0, 0, 2]] * 3, sa=[0, 1, 2] * 3)
    plan = _check(rt, LDiversity(3), start="diverse")
    assert plan.stars == 0 and plan.certificate["start"] == "diverse"


def test_start_size_is_the_smallest_class_shaped_like_the_table() -> None:
    # values 0, 1, 2 equally often: a class of 1 row is at EMD 2/3, of 2 rows (1, 1, 0) at 1/3
    rt = from_rows([[i] for i in range(6)], sa=[0, 1, 2, 0, 1, 2])
    for model, k in ((TCloseness(0.3), 3), (TCloseness("1/3"), 2), (TCloseness(1), 1),
                     (LDiversity(2), 2), (AllOf(KAnonymity(4), TCloseness(0.3)), 4)):
        assert merge_repair.start_size(model, rt, merge_repair.make_judge(model, rt)) == k


@pytest.mark.parametrize("seed", range(6))
def test_two_sensitive_columns(seed: int) -> None:
    rt = two_sensitive_table(seed, 60, m=3, values=3)
    for model in (LDiversity(2), DistinctLDiversity(2), TCloseness(0.3),
                  AllOf(KAnonymity(3), EntropyLDiversity(2))):
        if _feasible(model, rt):
            _check(rt, model)


def test_no_sensitive_column_k_anonymity() -> None:
    rt = random_table(3, 40, 3, values=3)
    plan = _check(rt, KAnonymity(4))
    assert plan.class_sizes.min() >= 4


def test_edge_tables() -> None:
    one = from_rows([[0, 1]], sa=[0])
    same = from_rows([[0, 1]] * 5, sa=[0, 1, 0, 1, 2])
    no_qi = RowTypes.from_arrays(np.zeros((6, 0), dtype=np.int64), np.array([0, 1, 2] * 2))
    for rt, models in ((one, [KAnonymity(1), TCloseness(0), LDiversity(1)]),
                       (same, [KAnonymity(5), LDiversity(2), TCloseness(0)]),
                       (no_qi, [KAnonymity(3), LDiversity(3), TCloseness(0.1)])):
        for model in models:
            assert _check(rt, model).stars == 0
    rt = random_table(3, 12, 3, values=2, s=3)  # t = 0: every class has the table's mix
    assert _check(rt, TCloseness(0)).stars >= brute_force.solve(rt, TCloseness(0)).stars


def test_deterministic_per_seed() -> None:
    rt = random_table(11, 200, 4, values=[2, 3, 4, 6], s=4)
    for model in (TCloseness(0.2), AllOf(KAnonymity(3), LDiversity(2))):
        a = merge_repair.solve(rt, model, seed=5)
        b = merge_repair.solve(rt, model, seed=5)
        for name in ("outputs", "out_idx", "type_idx", "key_idx", "count"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        _check(rt, model, seed=6)


def test_one_row_type_per_value_must_all_merge() -> None:
    # three row types, each holding one sensitive value: only the whole table is 3-diverse
    rt = from_rows([[0, 0]] * 2 + [[0, 1]] * 2 + [[1, 1]] * 2, sa=[0, 0, 1, 1, 2, 2])
    plan = _check(rt, LDiversity(3))
    assert plan.t_out == 1
    assert plan.stars == 12 == brute_force.solve(rt, LDiversity(3)).stars


def test_merging_two_violators_repairs_both() -> None:
    # (0,0) holds only value 0 and (0,1) only value 1: together they are 2-diverse at 1 star
    # per row; merging with the far type (1,1) would cost 2 stars per row
    rt = from_rows([[0, 0]] * 2 + [[0, 1]] * 2 + [[1, 1], [1, 1]], sa=[0, 0, 1, 1, 0, 1])
    plan = _check(rt, LDiversity(2))
    assert plan.stars == 4 == brute_force.solve(rt, LDiversity(2)).stars


def test_a_dominated_row_type_gives_one_row_away() -> None:
    # (0,0) holds values 0,0,0,1,1 (not 2-diverse); (1,1) holds one value-2 row. One value-0
    # row joins (1,1) as (*,*): 4 stars; merging the two types would cost 12
    rt = from_rows([[0, 0]] * 5 + [[1, 1]], sa=[0, 0, 0, 1, 1, 2])
    for options in ({}, {"donors": 0}):
        plan = _check(rt, LDiversity(2), **options)
        assert plan.stars == 4 == brute_force.solve(rt, LDiversity(2)).stars


def test_ejected_rows_spread_over_two_homes() -> None:
    # (0,0) holds six 0s and two 1s; (0,1) and (1,0) hold a 1 and a 2 each. Four 0s must leave
    # (0,0); each neighbour can take two and stay 2-diverse: (0,*) and (*,0), 8 stars in all,
    # where merging everything would cost 24
    rt = from_rows([[0, 0]] * 8 + [[0, 1]] * 2 + [[1, 0]] * 2,
                   sa=[0] * 6 + [1, 1] + [1, 2, 1, 2])
    plan = _check(rt, LDiversity(2), donors=0)
    assert plan.stars == 8 == brute_force.solve(rt, LDiversity(2)).stars


def test_a_class_pulls_one_row_from_a_neighbour() -> None:
    # (0,0) is one value-0 row; (0,1) holds 0,1,1,2. Pulling one value-1 row makes the class
    # (0,*) of two rows: 2 stars, where merging the types would cost 5
    rt = from_rows([[0, 0]] + [[0, 1]] * 4, sa=[0, 0, 1, 1, 2])
    plan = _check(rt, LDiversity(2), start="rows")
    assert plan.stars == 2 == brute_force.solve(rt, LDiversity(2)).stars


@pytest.mark.parametrize("seed", range(5))
def test_split_row_types_spread_their_keys(seed: int) -> None:
    rt = random_table(900 + seed, 80, 3, values=[2, 3, 2], s=4)
    plan = pack(rt, 7, seed=seed).to_plan(rt, "x", merge_repair.GUARANTEE, None, {})
    spread = spread_keys(rt, plan)
    spread.validate(rt)
    assert np.array_equal(spread.outputs, plan.outputs) and spread.stars == plan.stars

    def pieces(p: ReleasePlan) -> NDArray[np.int64]:  # (t_out, t_in, s) rows per piece, key
        out = np.zeros((p.t_out, rt.t_in, rt.s), dtype=np.int64)
        np.add.at(out, (p.out_idx, p.type_idx, p.key_idx), p.count)
        return out

    before, after = pieces(plan), pieces(spread)
    size = after.sum(axis=2)
    assert np.array_equal(size, before.sum(axis=2))  # every class keeps its rows per type
    share = size[:, :, None] * rt.counts[None, :, :] / rt.sizes[None, :, None]
    assert (np.abs(after - share) < 1 + 1e-9).all()  # within one row of the type's mix


def test_refinement_splits_a_satisfying_class() -> None:
    # the whole table is 2-diverse; splitting on the first column gives two 2-diverse classes
    rt = from_rows([[0, 0], [0, 1], [1, 0], [1, 1]], sa=[0, 1, 0, 1])
    t, k = np.nonzero(rt.counts)
    judge = merge_repair.make_judge(LDiversity(2), rt)
    parts = refine(rt, [(t, k, rt.counts[t, k])], judge)
    plan = ReleasePlan.from_groups(rt, parts, "x", merge_repair.GUARANTEE)
    assert plan.stars == 4 < 8
    assert holds(LDiversity(2), rt, plan.class_key_counts(rt.s)).all()


def test_a_row_moves_to_a_class_with_fewer_stars() -> None:
    # X = {(0,0), (0,1), (1,0)} is released as (*,*): 6 stars; Y = {(0,0) x2} as (0,0).
    # Moving X's (0,0) row to Y leaves X 2-anonymous at (*,*) with 4 stars.
    rt = from_rows([[0, 0]] * 3 + [[0, 1], [1, 0]])
    x = (np.array([0, 1, 2]), np.zeros(3, np.int64), np.array([1, 1, 1]))
    y = (np.array([0]), np.zeros(1, np.int64), np.array([2]))
    judge = merge_repair.make_judge(KAnonymity(2), rt)
    plan = ReleasePlan.from_groups(rt, improve(rt, [x, y], judge), "x", merge_repair.GUARANTEE)
    assert plan.stars == 4 == brute_force.solve(rt, KAnonymity(2)).stars
    # with k = 3 the move would leave X too small: nothing moves
    judge = merge_repair.make_judge(KAnonymity(3), rt)
    plan = ReleasePlan.from_groups(rt, improve(rt, [x, y], judge), "x", merge_repair.GUARANTEE)
    assert plan.stars == 6


def test_bad_input() -> None:
    rt = random_table(1, 10, 2, s=2)
    with pytest.raises(InvalidInput, match="unknown option"):
        merge_repair.solve(rt, KAnonymity(2), k=3)
    with pytest.raises(InvalidInput, match="unknown start"):
        merge_repair.solve(rt, KAnonymity(2), start="mondrian")
    with pytest.raises(InvalidInput, match="width"):
        merge_repair.solve(rt, KAnonymity(2), width=0)
    with pytest.raises(InvalidInput, match="rules"):
        merge_repair.solve(rt, KAnonymity(2), rules=("cheapest",))
    with pytest.raises(Infeasible):
        merge_repair.solve(rt, LDiversity(3))
    with pytest.raises(Infeasible):
        merge_repair.solve(rt, KAnonymity(11))


# -- ARX adult: 8 QIs, occupation sensitive, through the engine and the verifier ------------
SA = "occupation"


@pytest.fixture(scope="module")
def adult() -> tuple[pl.DataFrame, LocalEngine, object]:
    return adult_encoded(SA)


@pytest.mark.parametrize(("model", "rules"), [(TCloseness(0.2), "cost"),
                                               (AllOf(KAnonymity(5), LDiversity(3)), "spread")],
                         ids=["t-closeness", "k-anonymity and l-diversity"])
def test_adult_releases_pass_the_verifier(adult: tuple, model: PrivacyModel,
                                          rules: object) -> None:
    df, engine, enc = adult
    rt = enc.row_types
    plan = _check(rt, model, rules=rules)
    released = engine.apply_plan(enc, plan)
    report = verify(released, [c for c in df.columns if c != SA], SA, model)
    assert report.passed
    assert report.stars == plan.stars
    assert plan.stars < rt.n * rt.m  # below the all-suppressed release



def test_a_thousand_columns_do_not_overflow_the_projection_keys() -> None:
    """With 1,100 binary columns the product of the cardinalities overflows a float (Liang &
    Yuan's Thm 4 table at 16 vertices has 1,088 columns: merge-repair raised OverflowError);
    the keys fall back to ranks and stay equal exactly for equal projections."""
    from starmin.algorithms.heuristic._moves import _keys

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(40, 1100)).astype(np.int64)
    codes[5] = codes[9]
    kept = np.arange(1100, dtype=np.int64)
    key = _keys(codes, kept, np.full(1100, 2, dtype=np.int64))
    same = (codes[:, None, :] == codes[None, :, :]).all(axis=2)
    assert ((key[:, None] == key[None, :]) == same).all()
    assert key[5] == key[9]
