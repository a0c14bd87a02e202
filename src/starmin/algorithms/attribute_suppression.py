"""Attribute suppression: the fewest whole QI columns to suppress (Meyerson & Williams Sec. 3.1).

k-ATTRIBUTE-ANONYMITY (Sec. 3.1): suppress whole attributes (every cell of the column becomes
``*``) so that the table is k-anonymous, suppressing as few attributes as possible. It is
NP-hard for ``k > 2`` even with two values per column (Theorem 3.2). This module solves it
**exactly** -- the fewest columns, proven by exhaustive search with pruning -- for k-anonymity
and, the same way, for every other model of :mod:`starmin.models` (l-diversity, t-closeness,
p-sensitivity and their conjunctions).

Not a registered row-type algorithm. Its objective is the number of columns, not the number of
stars: a release that suppresses ``c`` of ``m`` columns has ``n x c`` stars, usually far more
than cell suppression needs, so it is not star-optimal and the registry contract (``exact`` =
brute force's star optimum) does not apply. It is offered as its own entry point:
:func:`solve` on row types, ``starmin.anonymize(..., attributes=True)`` and
``starmin anonymize --attributes``, whose report names the columns and says the number is
optimal. The plan's guarantee has kind ``exact`` with the objective in its statement.

The search. Keeping a set ``K`` of columns (suppressing the rest) releases the classes of rows
equal on ``K``. If keeping ``K`` satisfies the model, so does keeping any subset of ``K``: its
classes are unions of ``K``'s classes, and every model here is closed under union of classes
(k-anonymity: sizes add up; see :mod:`starmin.algorithms.exact.brute_force` for the others).
The feasible kept sets are therefore closed under subsets, and the task is a largest feasible
``K``, found by depth-first branch and bound as for a maximum clique: a node is a feasible
``K`` with the candidate columns ``P`` that each extend it feasibly (later in a fixed order);
a child ``K + c`` keeps only the candidates ``d`` with ``K + c + d`` feasible (a feasible
superset contains each of its two-column extensions), and a node is cut when ``|K| + |P|``
cannot beat the best set found. Every feasible ``K`` is either visited or cut by that bound,
so the result is optimal. Columns are ordered by their number of distinct values (fewest
first: most likely kept), then by position; among optimal sets the first found in this order
is released (all have ``n x c`` stars).

Each check groups the row types by their codes on ``K + c`` (``O(t_in log t_in)``) and judges
the classes (``>= k`` rows; other models by :func:`starmin.models.apply.holds`).

Limit: the search visits at most ``m x 2^m`` candidate checks, far fewer in practice; it stops
with :class:`~starmin.errors.SolverLimit` after :data:`MAX_WORK` row-type visits (checks x
``t_in``), a work count, not a clock: always within the limit when ``m x 2^m x t_in <= 2e8``,
e.g. ``m = 12`` with 4,000 row types or ``m = 16`` with 190.

References
----------
A. Meyerson and R. Williams, "On the Complexity of Optimal K-Anonymity", PODS 2004: Sec. 3.1
(k-ATTRIBUTE-ANONYMITY) and Theorem 3.2 (NP-hard for k > 2, binary alphabet).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Progress, silent
from starmin.data.rowtypes import RowTypes
from starmin.errors import SolverLimit
from starmin.models.apply import check_feasible, holds
from starmin.models.base import PrivacyModel
from starmin.models.k_anonymity import KAnonymity
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

NAME = "attributes"
REFERENCE = "Meyerson & Williams, Sec. 3.1 (NP-hard: Thm 3.2)"
MAX_WORK = 2 * 10**8
"""Largest number of row-type visits (feasibility checks x ``t_in``) of one search."""


@dataclass(frozen=True)
class ColumnChoice:
    """The result of the search: the QI columns suppressed (indices into ``rt.qi``) and kept,
    and the work it took."""

    suppressed: tuple[int, ...]
    kept: tuple[int, ...]
    checks: int
    nodes: int


class _Search:
    """Depth-first branch and bound for a largest feasible set of kept columns."""

    def __init__(self, rt: RowTypes, model: PrivacyModel, progress: Progress,
                 max_work: int) -> None:
        self.rt, self.model, self.max_work = rt, model, max_work
        self.card = [int(rt.codes[:, c].max()) + 1 if rt.t_in else 1 for c in range(rt.m)]
        self.checks = self.nodes = 0
        self.best: tuple[int, ...] = ()
        self.meter = Meter(progress, "attribute suppression", "column sets checked",
                           note=lambda: f"best keeps {len(self.best)} of {rt.m} columns")
        self.ok = self._k_check(int(model.k)) if isinstance(model, KAnonymity) else self._check

    def _k_check(self, k: int) -> Callable[[NDArray[np.int64]], bool]:
        sizes = self.rt.sizes

        def ok(key: NDArray[np.int64]) -> bool:
            return bool(np.bincount(key, weights=sizes).min() >= k)

        return ok

    def _check(self, key: NDArray[np.int64]) -> bool:
        counts = np.zeros((int(key.max()) + 1, self.rt.s), dtype=np.int64)
        np.add.at(counts, key, self.rt.counts)
        return bool(holds(self.model, self.rt, counts).all())

    def extend(self, key: NDArray[np.int64], c: int) -> NDArray[np.int64]:
        """Class of each row type when column ``c`` is kept too (dense ids)."""
        pair = key * self.card[c] + self.rt.codes[:, c]
        return np.unique(pair, return_inverse=True)[1].reshape(-1).astype(np.int64)

    def feasible(self, key: NDArray[np.int64]) -> bool:
        self.checks += 1
        if self.checks * max(self.rt.t_in, 1) > self.max_work:
            raise SolverLimit(
                f"attribute suppression stopped after {self.checks - 1:,} column-set checks "
                f"(limit {self.max_work:.0e} row-type visits) on m = {self.rt.m} QI columns and "
                f"t_in = {self.rt.t_in:,} row types: name fewer QI columns, or use cell "
                "suppression (--method auto) instead of --attributes")
        self.meter.tick(self.checks)
        return self.ok(key)

    def run(self, order: list[int]) -> None:
        root = np.zeros(self.rt.t_in, dtype=np.int64)
        cand = [(c, self.extend(root, c)) for c in order]
        cand = [(c, key) for c, key in cand if self.feasible(key)]
        self._grow((), cand)

    def _grow(self, kept: tuple[int, ...],
              cand: list[tuple[int, NDArray[np.int64]]]) -> None:
        self.nodes += 1
        if len(kept) > len(self.best):
            self.best = kept
        for j, (c, key) in enumerate(cand):
            if len(kept) + len(cand) - j <= len(self.best):
                return  # even keeping every remaining candidate cannot beat the best
            rest = [(d, self.extend(key, d)) for d, _ in cand[j + 1:]]
            self._grow((*kept, c), [(d, k2) for d, k2 in rest if self.feasible(k2)])


def fewest_columns(rt: RowTypes, model: PrivacyModel, *, progress: Progress | None = None,
                   max_work: int = MAX_WORK) -> ColumnChoice:
    """The fewest QI columns whose suppression makes ``rt`` satisfy ``model`` (exact).

    Raises ``Infeasible`` when even suppressing every QI column fails (e.g. ``k > n``) and
    ``SolverLimit`` when the search exceeds ``max_work`` row-type visits."""
    check_feasible(model, rt)
    search = _Search(rt, model, progress or silent, max_work)
    whole = np.unique(rt.codes, axis=0, return_inverse=True)[1].reshape(-1) if rt.t_in else None
    if whole is not None and search.feasible(whole.astype(np.int64)):
        kept = tuple(range(rt.m))  # nothing to suppress
    else:
        order = sorted(range(rt.m), key=lambda c: (len(np.unique(rt.codes[:, c])), c))
        search.run(order)
        kept = tuple(sorted(search.best))
    suppressed = tuple(c for c in range(rt.m) if c not in kept)
    return ColumnChoice(suppressed, kept, search.checks, search.nodes)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """The release suppressing the fewest whole QI columns (:func:`fewest_columns`): every
    cell of those columns is ``*``, every other cell is released. ``options`` may set
    ``max_work``. Deterministic (``seed`` is unused)."""
    choice = fewest_columns(rt, model, progress=progress, **options)
    names = [rt.qi[c] for c in choice.suppressed]
    c, m = len(names), rt.m
    guarantee = Guarantee(
        kind="exact",
        statement=(f"fewest whole QI columns suppressed: {c} of {m}"
                   + (f" ({', '.join(names)})" if names else "")
                   + "; optimal in the number of columns, not in stars"),
        reference=REFERENCE)
    vectors = rt.codes.copy()
    vectors[:, list(choice.suppressed)] = STAR
    t, s = np.nonzero(rt.counts)
    parts = [(np.array([ti]), np.array([si]), np.array([rt.counts[ti, si]]))
             for ti, si in zip(t.tolist(), s.tolist(), strict=True)]
    certificate = {"objective": "whole QI columns suppressed", "optimal": True,
                   "suppressed_columns": names,
                   "kept_columns": [rt.qi[j] for j in choice.kept],
                   "columns_suppressed": c, "checks": choice.checks, "nodes": choice.nodes}
    return ReleasePlan.from_vectors(rt, [vectors[ti] for ti in t.tolist()], parts, NAME,
                                    guarantee, certificate=certificate)
