"""Unit tests of the m-approximation (src/starmin/algorithms/approx/m_approx.py).

Each case of Liang & Yuan's proof of Theorem 10 (Sec. 5) is hit by a constructed instance."""

from __future__ import annotations

import pytest

from starmin.algorithms.approx import m_approx
from starmin.algorithms.exact import brute_force
from starmin.errors import Infeasible, InvalidInput
from starmin.models import KAnonymity
from starmin.transform.plan import STAR, ReleasePlan
from tests.helpers.tables import expanded, from_rows, satisfies


def _solve(rows: list[list[int]], k: int) -> tuple[ReleasePlan, int]:
    rt = from_rows(rows)
    plan = m_approx.solve(rt, KAnonymity(k))
    plan.validate(rt)
    assert satisfies(plan, rt, KAnonymity(k))
    opt = brute_force.solve(rt, KAnonymity(k)).stars
    assert plan.lower_bound is not None
    assert plan.lower_bound <= opt <= plan.stars <= rt.m * opt
    return plan, opt


def test_registered_entry() -> None:
    a = m_approx.ALGORITHM
    assert a.name == "m-approx"
    assert a.guarantee.kind == "ratio"
    assert "Thm 10" in a.guarantee.reference


def test_case0_all_classes_large_is_free() -> None:
    plan, _ = _solve([[0, 0]] * 3 + [[1, 1]] * 3, 3)
    assert plan.certificate["case"] == 0
    assert plan.stars == 0 == plan.lower_bound


def test_case1_small_classes_merged() -> None:
    # (0,1) x1 and (1,1) x2 are small (< 3) and hold 3 >= k rows: merged as (*,1)
    plan, opt = _solve([[0, 0]] * 4 + [[0, 1]] + [[1, 1]] * 2, 3)
    assert plan.certificate["case"] == 1
    assert plan.lower_bound == 3
    assert plan.stars == 3 == opt
    assert sorted(plan.outputs.tolist()) == [[STAR, 1], [0, 0]]
    assert plan.guarantee.ratio == 2.0


def test_case2_rows_borrowed_from_a_big_class() -> None:
    # (1,1) x1 is small; (0,0) x6 has surplus 3 >= 2: it lends 2 rows and keeps 4
    plan, opt = _solve([[0, 0]] * 6 + [[1, 1]], 3)
    assert plan.certificate["case"] == 2
    assert plan.lower_bound == 3  # OPT >= k
    assert plan.stars == 3 * 2 == opt
    assert sorted(plan.class_sizes.tolist()) == [3, 4]


def test_case2_donor_adding_fewest_stars_is_chosen() -> None:
    # small (1,1) x1; donors (0,0) x6 (adds 2 star columns) and (1,0) x6 (adds 1)
    plan, _ = _solve([[0, 0]] * 6 + [[1, 0]] * 6 + [[1, 1]], 3)
    assert plan.certificate["case"] == 2
    assert plan.stars == 3
    assert [1, STAR] in plan.outputs.tolist()


def test_case3_smallest_big_class_merged() -> None:
    # (1,1) x1 small; (0,0) x3 has no surplus: the whole table is one group
    plan, opt = _solve([[0, 0]] * 3 + [[1, 1]], 3)
    assert plan.certificate["case"] == 3
    assert plan.lower_bound == 1 + 3
    assert plan.stars == 4 * 2 == opt


def test_case3_tie_broken_by_fewest_added_columns() -> None:
    plan, _ = _solve([[0, 0]] * 3 + [[1, 0]] * 3 + [[1, 1]], 3)
    assert plan.certificate["case"] == 3
    assert plan.stars == 4  # (1,1) joins (1,0) as (1,*)


def test_only_k_anonymity_is_supported() -> None:
    class Other:
        name = "other"
        uses_sensitive = True

    rt = from_rows([[0], [1]])
    reason = m_approx.supports(Other(), rt)  # type: ignore[arg-type]
    assert reason is not None and "k-anonymity only" in reason
    assert m_approx.supports(KAnonymity(2), rt) is None
    with pytest.raises(InvalidInput):
        m_approx.solve(rt, Other())  # type: ignore[arg-type]


def test_infeasible_when_k_exceeds_n() -> None:
    with pytest.raises(Infeasible):
        m_approx.solve(from_rows([[0], [1]]), KAnonymity(3))


def test_duplicate_row_types_are_one_class() -> None:
    rt = from_rows([[0, 0]] * 6 + [[1, 0]] * 6 + [[1, 1]])
    a = m_approx.solve(rt, KAnonymity(3))
    b = m_approx.solve(expanded(rt), KAnonymity(3))
    assert a.certificate["case"] == b.certificate["case"] == 2
    assert a.stars == b.stars


def test_case1_refinement_splits_small_classes_into_runs_of_k() -> None:
    # eight small classes of one row, k = 2: the paper merges all eight (every column differs:
    # 8 rows x 3 stars = 24); the refinement pairs lexicographic neighbours that differ in
    # one column only: 4 pairs x 2 rows x 1 star = 8
    rows = [[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    rt = from_rows(rows)
    paper = m_approx.solve(rt, KAnonymity(2), refine=False)
    refined = m_approx.solve(rt, KAnonymity(2))
    assert paper.certificate["case"] == refined.certificate["case"] == 1
    assert paper.certificate["small_groups"] == 1
    assert paper.stars == 24
    assert refined.certificate["small_groups"] == 4
    assert refined.stars == 8
    assert refined.lower_bound == paper.lower_bound == 8  # here the refinement is optimal
    refined.validate(rt)
    assert satisfies(refined, rt, KAnonymity(2))


def test_case1_short_last_run_joins_the_previous_one() -> None:
    rt = from_rows([[0, 0], [0, 1], [1, 0], [1, 1], [2, 2]])  # five singletons, k = 2
    plan = m_approx.solve(rt, KAnonymity(2))
    assert sorted(plan.class_sizes.tolist()) == [2, 3]


def _former_classes(rt):  # type: ignore[no-untyped-def]
    """The classes as :class:`_classes.Classes` built them before (``np.unique`` over rows,
    one sliced copy per class): the reference for the flat cells."""
    from itertools import pairwise

    import numpy as np

    vec, inv = np.unique(rt.codes, axis=0, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    size = np.bincount(inv, weights=rt.sizes, minlength=len(vec)).astype(np.int64)
    t, s = np.nonzero(rt.counts)
    cls = inv[t]
    order = np.argsort(cls, kind="stable")
    t, s, cls = t[order], s[order], cls[order]
    bounds = np.searchsorted(cls, np.arange(len(vec) + 1))
    cnt = rt.counts[t, s]
    cells = [(t[a:b].astype(np.int64), s[a:b].astype(np.int64), cnt[a:b])
             for a, b in pairwise(bounds)]
    return vec, size, cells


def _repeated(seed: int):  # type: ignore[no-untyped-def]
    """Random row types, some QI vectors given as two row types (Classes merges them)."""
    import numpy as np

    from starmin.data.rowtypes import RowTypes
    from tests.helpers.tables import two_sensitive_table

    rng = np.random.default_rng(seed)
    rt = two_sensitive_table(seed, int(rng.integers(5, 120)), m=int(rng.integers(1, 5)),
                             values=int(rng.integers(1, 4)))
    if seed % 2:
        return rt
    again = rng.random(rt.t_in) < 0.4
    counts = rt.counts.copy()
    extra = counts[again].copy()
    counts[again] = counts[again] // 2
    extra -= counts[again]
    keep = extra.sum(axis=1) > 0
    return RowTypes(rt.qi, np.vstack([rt.codes, rt.codes[again][keep]]),
                    np.vstack([counts, extra[keep]]), rt.domains, rt.sensitive, rt.keys,
                    rt.sensitive_domains)


@pytest.mark.parametrize("seed", range(24))
def test_flat_classes_and_case_0_plan_as_before(seed: int) -> None:
    """The classes' flat cells are the former per-class cells, and case 0 (every class has
    >= k rows) builds from them the same plan as the former groups, one per class."""
    import numpy as np

    from starmin.algorithms.approx._classes import Classes

    rt = _repeated(seed)
    C = Classes(rt)
    vec, size, cells = _former_classes(rt)
    assert np.array_equal(C.vec, vec) and np.array_equal(C.size, size)
    assert len(C.cells) == len(cells)
    for new, old in zip(C.cells, cells, strict=True):
        for a, b in zip(new, old, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
    for j, (t, s, cnt) in enumerate(cells):  # flat: class after class
        sel = C.of_entry == j
        assert np.array_equal(C.entries[0][sel], t) and np.array_equal(C.entries[1][sel], s)
        assert np.array_equal(C.entries[2][sel], cnt)
    k = int(size.min())
    plan = m_approx.solve(rt, KAnonymity(k))
    assert plan.certificate["case"] == 0
    order = np.lexsort((np.arange(len(size)), size))
    former = ReleasePlan.from_groups(rt, [cells[int(r)] for r in order], plan.method,
                                     plan.guarantee, plan.lower_bound, plan.certificate)
    for name in ("outputs", "out_idx", "type_idx", "key_idx", "count"):
        a, b = getattr(plan, name), getattr(former, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert plan.stars == 0
