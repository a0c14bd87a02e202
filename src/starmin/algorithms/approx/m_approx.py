"""The m-approximation for k-anonymity of Liang & Yuan (Theorem 10).

Guarantee: **ratio m** -- the release is k-anonymous and has at most ``m x OPT`` stars, where
``m`` is the number of QI columns and OPT the minimum over all k-anonymous releases. The plan
also carries the lower bound on OPT that the proof establishes (``plan.lower_bound``), so
``stars / lower_bound`` bounds the actual gap of every run.

Algorithm (Sec. 5). Let ``C_1, ..., C_R`` be the classes of identical QI vectors (the row
types), ``|C_1| <= ... <= |C_R|``, and ``L`` the number with fewer than ``k`` rows ("small").
Every row of a small class gets at least one star in any k-anonymous release, so
``OPT >= sum_{i<=L} |C_i|``.

- Case 0, ``L = 0``: the classes themselves are k-anonymous; no star (optimal).
- Case 1, ``sum_{i<=L} |C_i| >= k``: release the small classes as one group and every other
  class alone. Cost ``<= m * sum_{i<=L} |C_i| <= m * OPT``.
- Case 2, ``sum_{i<=L} |C_i| < k <= sum_{i<=L} |C_i| + sum_{i>L} (|C_i| - k)``: complete the
  small rows to a group of exactly ``k`` rows with rows taken from big classes, leaving
  ``>= k`` rows in each donor. Cost ``<= m * k``, and ``OPT >= k`` (the group of any small row
  has ``>= k`` rows, all with a star).
- Case 3, otherwise: some big class has a star on every row in every k-anonymous release
  (proof of Thm 10), so ``OPT >= sum_{i<=L+1} |C_i|``; merge the small classes with
  ``C_{L+1}``, a smallest big class. Cost ``<= m * sum_{i<=L+1} |C_i|``.

Free choices the proof leaves open are made to save stars without touching the bound: in
case 1 the small classes may form several groups of ``>= k`` rows instead of one (only
small-class rows get stars either way, at most ``m`` each), cut from a lexicographic order
(option ``refine``, on by default; never costlier than one group); in case 2 donors are picked
greedily by the fewest columns they add to the merged group's suppressor; in case 3 the tie
among smallest big classes goes the same way.

Complexity: ``O(t_in * m + R log R + D * R * m)`` for ``R`` classes and ``D`` donors used
(``D <= min(R, k)``); no size limit.

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 5, Theorem 10 and its proof (cases 1-3); cost and suppressor as in Sec. 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx._classes import Classes as _Classes
from starmin.algorithms.approx._classes import Group
from starmin.algorithms.base import (
    Algorithm,
    Progress,
    fixed_work,
    flag_option,
    known_options,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.models.k_anonymity import KAnonymity
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "m-approx"
OPTIONS = ("refine",)
"""The options :func:`solve` takes."""
REFERENCE = "Liang & Yuan, Thm 10"
STATEMENT = "at most m x OPT stars"


def star_ratio(model: PrivacyModel, rt: RowTypes) -> float:
    """``m``, the number of QI columns: the ratio in stars Liang & Yuan's Thm 10 proves."""
    return float(rt.m)




def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for k-anonymity, else why not."""
    if isinstance(model, KAnonymity):
        return None
    return (f"the m-approximation handles k-anonymity only, not {model.name}: "
            f"use brute-force or another method for this model")


def _added_columns(vec: NDArray[np.int32], ref: NDArray[np.int32],
                   fixed: NDArray[np.bool_]) -> NDArray[np.int64]:
    """``(R,)`` columns that would newly become stars if each class joined a group whose
    suppressor agrees with ``ref`` on the ``fixed`` columns."""
    return ((vec != ref) & fixed).sum(axis=1).astype(np.int64)


def _case2_donors(C: _Classes, small: NDArray[np.int64], big: NDArray[np.int64], k: int,
                  need: int) -> list[tuple[int, int]]:
    """Case 2: ``(class, rows)`` to take from big classes, ``need`` rows in all, keeping
    ``>= k`` in each donor; greedy by fewest columns added to the merged suppressor."""
    ref = C.vec[small[0]]
    fixed = (C.vec[small] == ref).all(axis=0)  # (m,) columns still without a star
    surplus = C.size[big] - k  # (|big|,)
    avail = surplus > 0
    out = []
    while need > 0:
        added = _added_columns(C.vec[big], ref, fixed)
        # fewest new stars first, then the largest surplus, then class order
        key = np.lexsort((np.arange(len(big)), -surplus, added, ~avail))
        j = int(key[0])
        take = int(min(need, surplus[j]))
        out.append((int(big[j]), take))
        need -= take
        avail[j] = False
        fixed &= C.vec[big[j]] == ref
    return out


def _split_small(C: _Classes, small: NDArray[np.int64], k: int) -> list[list[int]]:
    """Case 1 refinement: cut the small classes into runs of ``>= k`` rows.

    Classes are sorted lexicographically by QI vector, columns with fewer distinct values
    among the small classes first, so that each run tends to agree on many columns; each run
    closes once it holds ``k`` rows and the last, short run joins the one before. Each run's
    suppressor stars a subset of the merged group's columns, so the cost never exceeds the
    paper's single merged group (and every starred row is still a small-class row)."""
    vec = C.vec[small]
    distinct = np.array([len(np.unique(vec[:, c])) for c in range(vec.shape[1])])
    cols = np.argsort(distinct, kind="stable")
    order = small[np.lexsort(vec[:, cols[::-1]].T)] if vec.shape[1] else small
    runs: list[list[int]] = [[]]
    rows = 0
    for r in order:
        if rows >= k:
            runs.append([])
            rows = 0
        runs[-1].append(int(r))
        rows += int(C.size[r])
    if rows < k and len(runs) > 1:
        runs[-2].extend(runs.pop())
    return runs


def _partition(C: _Classes, k: int, refine: bool
               ) -> tuple[int, int, list[Group] | None, dict[str, Any]]:
    """``(case, lower bound, groups, facts)`` of Thm 10's proof; groups ``None`` in case 0:
    every class alone."""
    R = len(C.size)
    order = np.lexsort((np.arange(R), C.size))  # |C_1| <= ... <= |C_R|, ties by class order
    small, big = order[C.size[order] < k], order[C.size[order] >= k]
    L, small_rows = len(small), int(C.size[small].sum())
    facts: dict[str, Any] = {"classes": R, "L": L, "small_rows": small_rows}
    if L == 0:
        return 0, 0, None, facts
    if small_rows >= k:  # case 1
        runs = _split_small(C, small, k) if refine else [[int(r) for r in small]]
        facts["small_groups"] = len(runs)
        merged = [_union([C.whole(r) for r in run]) for run in runs]
        return 1, small_rows, merged + [C.whole(int(r)) for r in big], facts
    surplus = int((C.size[big] - k).sum())
    facts["big_surplus"] = surplus
    if small_rows + surplus >= k:  # case 2
        donors = _case2_donors(C, small, big, k, k - small_rows)
        facts["donors"] = [{"class_size": int(C.size[r]), "rows": n} for r, n in donors]
        merged = [C.whole(int(r)) for r in small]
        groups: list[Group] = []
        donated = dict(donors)
        for r in big:
            if int(r) in donated:
                give, keep = C.take(int(r), donated[int(r)])
                merged.append(give)
                groups.append(keep)
            else:
                groups.append(C.whole(int(r)))
        return 2, k, [_union(merged), *groups], facts
    # case 3: merge a smallest big class too (ties: fewest added columns)
    smallest = big[C.size[big] == C.size[big[0]]]
    ref = C.vec[small[0]]
    fixed = (C.vec[small] == ref).all(axis=0)
    j = int(smallest[int(np.argmin(_added_columns(C.vec[smallest], ref, fixed)))])
    merged = [C.whole(int(r)) for r in small] + [C.whole(j)]
    rest = [C.whole(int(r)) for r in big if int(r) != j]
    return 3, small_rows + int(C.size[j]), [_union(merged), *rest], facts


def _union(groups: list[Group]) -> Group:
    return (np.concatenate([g[0] for g in groups]), np.concatenate([g[1] for g in groups]),
            np.concatenate([g[2] for g in groups]))


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """A k-anonymous release with at most ``m x OPT`` stars (Liang & Yuan, Thm 10).

    Options: ``refine`` (default True) splits case 1's merged group into runs of ``>= k``
    similar rows (never costlier, same bound); ``refine=False`` gives the paper's partition.
    Deterministic (``seed`` is unused). Raises ``Infeasible`` when ``k > n`` and
    ``InvalidInput`` for a model other than :class:`KAnonymity`.
    """
    known_options(NAME, options, set(OPTIONS))
    reason = supports(model, rt)
    if reason is not None:
        raise InvalidInput(reason)
    assert isinstance(model, KAnonymity)
    check_feasible(model, rt)
    refine = flag_option(NAME, options, "refine", True)
    C = _Classes(rt)
    case, lower, groups, facts = _partition(C, int(model.k), refine)
    guarantee = Guarantee(kind="ratio", statement=STATEMENT, reference=REFERENCE,
                          ratio=float(rt.m), ratio_of=star_ratio)
    certificate = {"case": case, "lower_bound": lower, "ratio": rt.m, "refine": refine, **facts}
    if groups is None:  # case 0: the classes as they are, straight from their flat cells
        return ReleasePlan.from_entries(rt, *C.entries, C.of_entry, NAME, guarantee,
                                        lower_bound=lower, certificate=certificate)
    return ReleasePlan.from_groups(rt, groups, NAME, guarantee, lower_bound=lower,
                                   certificate=certificate)


def auto_work(model: PrivacyModel, rt: RowTypes) -> float:
    """Estimated work units for ``--method auto``: ``2e-6 x t_in x m`` (adult, 9 QIs: 0.35,
    measured 0.2-0.45 CPU s)."""
    return 2e-6 * rt.t_in * rt.m

ALGORITHM = Algorithm(
    name=NAME,
    summary="k-anonymity within m x OPT stars by merging the small row types (LY Thm 10)",
    guarantee=Guarantee(kind="ratio", statement=STATEMENT + " (m = number of QI columns)",
                        reference=REFERENCE, ratio_of=star_ratio),
    solve=solve,
    supports=supports,
    auto=fixed_work(auto_work),
    options=OPTIONS,
)
