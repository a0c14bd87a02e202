"""The exact pricing problem of the class master: a CP-SAT model of one class.

A *class* takes ``x_p`` rows of each (row type, sensitive key) pair ``p`` (Bredereck et al.
Sec. 4: row types), ``0 <= x_p <= c_p``. Its cost is ``N * z`` with ``N = sum_p x_p`` rows and
``z`` the number of QI columns on which the row types it uses differ (its suppressor's stars,
Liang & Yuan Sec. 2). The model states, in integers and exactly:

* ``y_i`` (row type ``i`` used) ``<=> sum_{p of i} x_p >= 1``; ``u_{c,v}`` (value ``v`` seen
  on column ``c``) ``<=> OR`` of the ``y_i`` with that value; ``z_c <=> sum_v u_{c,v} >= 2``;
  ``Z = sum_c z_c``; cost ``= N Z``, one product constraint (CP-SAT's own propagation and
  linear relaxation of products: on the planted Liang & Yuan Thm 6 table of 30 rows x 20
  QIs a pricing call took 0.2-0.3 CPU s and proved its optimum, where the earlier form
  ``w_c = N`` if ``z_c`` (one big-M pair per column) took 6-38 s and mostly did not);
* k-anonymity: ``N >= k`` (for the size the model implies, :func:`implied_k`); when every
  part is k-anonymity also ``N <= 2k - 1`` (:data:`SPLIT` below);
* frequency l-diversity: ``l h_v <= N`` for each sensitive value's count ``h_v`` (Xiao et
  al. Def. 2);
* distinct l-diversity and p-sensitivity: ``b_v <=> h_v >= 1``, ``sum_v b_v >= l`` (or ``p``);
* t-closeness, equal distance: ``sum_v max(n h_v - N T_v, 0) <= t n N`` with ``T_v`` the
  table's count of ``v`` and ``t = a / b`` exact (EMD = total variation, Liang & Yuan Fact 1);
  ordered distance: ``sum_{i < r} |sum_{j <= i} (n h_j - N T_j)| <= t (r - 1) n N`` (Li et al.
  Sec. 4).

With several sensitive columns the rows of l-diversity, p-sensitivity and t-closeness are
stated once per column, on its own values (a model holds for each column).

Every auxiliary variable is a function of ``x``, so the solutions of the model are the
satisfying classes, each once: the enumeration of :meth:`ClassModel.enumerate` lists every
class under a reduced-cost threshold exactly once.

Reduced costs ``cost - sum_p pi_p x_p`` are scaled by :data:`SCALE` with ``pi`` rounded
*down*, so the scaled objective ``o(x)`` satisfies ``S rc(x) <= o(x) <= S rc(x) + N``: a
proven bound ``o*`` on the scaled optimum gives ``rc >= (o* - N_max) / S`` for every class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts

SCALE = 1_000_000
"""Duals are scaled by this and rounded down for CP-SAT's integer objective."""
SPLIT = ("For k-anonymity alone a class of N >= 2k rows splits into two classes of >= k rows; "
         "each part's non-constant columns are among the class's, so its rows keep at most "
         "their stars: some optimal partition has classes of k..2k-1 rows")


def supported_part(part: PrivacyModel) -> str | None:
    """``None`` if a model part is stated exactly here, else why not."""
    from starmin.models.distances import EqualDistance, OrderedDistance
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.l_diversity import DistinctLDiversity, LDiversity
    from starmin.models.p_sensitive import PSensitiveKAnonymity
    from starmin.models.t_closeness import TCloseness

    if isinstance(part, KAnonymity | LDiversity | DistinctLDiversity | PSensitiveKAnonymity):
        return None
    if isinstance(part, TCloseness):
        if isinstance(part.distance, EqualDistance) or (
                isinstance(part.distance, OrderedDistance) and part.distance.order is None):
            return None
        return f"{part.name}: only the equal and the (natural) ordered distance are stated"
    return f"{getattr(part, 'name', part)} is not stated exactly by the class pricing"


@dataclass(frozen=True)
class Pairs:
    """The (row type, key) pairs with rows: ``type_of``, ``key_of``, ``count`` ``(P,)``;
    ``values`` per sensitive column the value of each pair's key in it, ``rs`` the column's
    number of values (one column of zeros, one value, without a sensitive column)."""

    type_of: NDArray[np.int64]
    key_of: NDArray[np.int64]
    count: NDArray[np.int64]
    values: tuple[NDArray[np.int64], ...]
    rs: tuple[int, ...]

    @staticmethod
    def of(rt: RowTypes) -> Pairs:
        ti, ki = np.nonzero(rt.counts)
        if rt.sensitive:
            values = tuple(rt.keys[ki, a].astype(np.int64) for a in range(len(rt.sensitive)))
            rs = tuple(len(d) for d in rt.sensitive_domains)
        else:
            values, rs = (np.zeros(len(ki), dtype=np.int64),), (1,)
        return Pairs(ti.astype(np.int64), ki.astype(np.int64),
                     rt.counts[ti, ki].astype(np.int64), values, rs)

    @property
    def P(self) -> int:
        return len(self.count)


class ClassModel:
    """The CP-SAT model of one satisfying class of ``rt`` under ``model`` (module docstring).

    ``price(pi)`` minimizes the reduced cost; ``enumerate(pi, limit)`` lists every class
    with reduced cost at most ``limit``. ``work`` is CP-SAT's deterministic time per call
    (a work limit, not a clock); ``seed`` fixes its single worker's search."""

    def __init__(self, rt: RowTypes, model: PrivacyModel, pairs: Pairs, *, seed: int = 0,
                 work: float = 10.0) -> None:
        from ortools.sat.python import cp_model

        self.cp = cp_model
        self.rt, self.pairs, self.seed, self.work = rt, pairs, seed, work
        m = cp_model.CpModel()
        self.x = [m.new_int_var(0, int(c), f"x{p}") for p, c in enumerate(pairs.count)]
        k = max(implied_k(model), 1)
        only_k = all(type(p).__name__ == "KAnonymity" for p in parts(model))
        self.n_max = min(2 * k - 1, rt.n) if only_k else rt.n
        N = m.new_int_var(k, self.n_max, "N")
        m.add(sum(self.x) == N)
        self.N = N
        ys = []
        for i in range(rt.t_in):
            mine = [self.x[p] for p in np.flatnonzero(pairs.type_of == i)]
            y = m.new_bool_var(f"y{i}")
            m.add(sum(mine) >= 1).only_enforce_if(y)
            m.add(sum(mine) == 0).only_enforce_if(y.negated())
            ys.append(y)
        self.y = ys
        zs = []
        for c in range(rt.m):
            col = rt.codes[:, c]
            vals = np.unique(col)
            if len(vals) < 2:
                continue  # constant over the whole table: never starred
            us = []
            for v in vals:
                members = [ys[i] for i in np.flatnonzero(col == v)]
                if len(members) == 1:
                    us.append(members[0])
                    continue
                u = m.new_bool_var(f"u{c}_{v}")
                m.add_bool_or(members).only_enforce_if(u)
                for y in members:
                    m.add_implication(y, u)
                us.append(u)
            z = m.new_bool_var(f"z{c}")
            m.add(sum(us) >= 2).only_enforce_if(z)
            m.add(sum(us) <= 1).only_enforce_if(z.negated())
            zs.append(z)
        Z = m.new_int_var(0, len(zs), "Z")                      # the starred columns
        m.add(sum(zs) == Z)
        self.Z = Z
        self.cost = m.new_int_var(0, self.n_max * len(zs), "cost")
        m.add_multiplication_equality(self.cost, [N, Z])        # stars = N Z
        self._model_rows(m, model)
        self.m = m

    def _model_rows(self, m: Any, model: PrivacyModel) -> None:
        """The model's rows on every sensitive column (a model holds for each)."""
        for value_of, r in zip(self.pairs.values, self.pairs.rs, strict=True):
            self._column_rows(m, model, value_of, r)

    def _column_rows(self, m: Any, model: PrivacyModel, value_of: NDArray[np.int64],
                     r: int) -> None:
        from starmin.models.l_diversity import DistinctLDiversity, LDiversity
        from starmin.models.p_sensitive import PSensitiveKAnonymity
        from starmin.models.t_closeness import TCloseness

        pairs, N = self.pairs, self.N
        h = [sum(self.x[p] for p in np.flatnonzero(value_of == v)) for v in range(r)]
        tot = np.bincount(value_of, weights=pairs.count, minlength=r)
        n = self.rt.n
        distinct = 0
        for part in parts(model):
            if isinstance(part, LDiversity):
                for hv in h:
                    m.add(int(part.l) * hv <= N)
            elif isinstance(part, DistinctLDiversity):
                distinct = max(distinct, math.ceil(float(part.l)))
            elif isinstance(part, PSensitiveKAnonymity):
                distinct = max(distinct, int(part.p))
            elif isinstance(part, TCloseness):
                t = Fraction(part.t_exact)
                D = [n * h[v] - int(tot[v]) * N for v in range(r)]
                terms = []
                ordered = type(part.distance).__name__ == "OrderedDistance"
                present = [v for v in range(r) if tot[v] > 0]
                if ordered:  # cumulative differences over the values present, in order
                    run: Any = 0
                    for v in present[:-1]:
                        run = run + D[v]
                        a = m.new_int_var(0, n * n, "")
                        m.add_abs_equality(a, run)
                        terms.append(a)
                    scale = max(len(present) - 1, 1)
                else:
                    # implied (sum D = 0, so each |D_v| <= t n N): linear rows that prune
                    for v in present:
                        m.add(t.denominator * D[v] <= t.numerator * n * N)
                        m.add(-t.denominator * D[v] <= t.numerator * n * N)
                    for v in range(r):
                        a = m.new_int_var(0, n * n, "")
                        m.add_max_equality(a, [D[v], 0])
                        terms.append(a)
                    scale = 1
                m.add(t.denominator * sum(terms) <= t.numerator * scale * n * N)
        if distinct > 1:
            bs = []
            for hv in h:
                b = m.new_bool_var("")
                m.add(hv >= 1).only_enforce_if(b)
                m.add(hv == 0).only_enforce_if(b.negated())
                bs.append(b)
            m.add(sum(bs) >= distinct)

    def _objective(self, pi: NDArray[np.float64]) -> Any:
        scaled = np.floor(np.asarray(pi, dtype=np.float64) * SCALE).astype(np.int64)
        return SCALE * self.cost - sum(int(s) * x for s, x in zip(scaled, self.x, strict=True)
                                       if s)

    def _solver(self, enumerate_all: bool = False, work: float | None = None) -> Any:
        s = self.cp.CpSolver()
        s.parameters.num_workers = 1
        s.parameters.random_seed = int(self.seed)
        s.parameters.max_deterministic_time = float(self.work if work is None else work)
        if enumerate_all:
            s.parameters.enumerate_all_solutions = True
        return s

    def price(self, pi: NDArray[np.float64], most: int = 8
              ) -> tuple[list[NDArray[np.int64]], float, bool]:
        """Classes of the lowest scaled reduced cost found (the best last, at most ``most``
        improving ones), the proven lower bound on every class's reduced cost (``-inf`` when
        CP-SAT stopped before finding any class: its reported bound is then no bound), and
        whether CP-SAT proved its optimum (within its work limit)."""
        self.m.minimize(self._objective(pi))
        found: list[NDArray[np.int64]] = []
        xs = self.x

        class Keep(self.cp.CpSolverSolutionCallback):  # type: ignore[name-defined]
            def on_solution_callback(self) -> None:
                found.append(np.array([self.value(v) for v in xs], dtype=np.int64))

        solver = self._solver()
        status = solver.solve(self.m, Keep())
        if status == self.cp.INFEASIBLE:
            return [], math.inf, True
        if status not in (self.cp.OPTIMAL, self.cp.FEASIBLE):
            # stopped before any class: CP-SAT then reports an objective bound of 0, which
            # is no bound at all (a wide planted table priced at its whole-table ratio)
            return found[-most:], -math.inf, False
        bound = (solver.best_objective_bound - self.n_max) / SCALE
        return found[-most:], bound, status == self.cp.OPTIMAL

    def fewest_columns(self, must: int, work: float) -> float:
        """A proven lower bound on the QI columns not constant on any satisfying class that
        holds a row of row type ``must`` (CP-SAT minimizing ``Z`` within ``work``
        deterministic seconds: its objective bound, exact when it proves the optimum; 0 when
        it stopped before finding any class, since ``Z >= 0``); ``inf`` when no satisfying
        class holds such a row."""
        m = self.m.clone()
        m.clear_objective()
        m.add(m.get_bool_var_from_proto_index(self.y[must].index) == 1)
        m.minimize(m.get_int_var_from_proto_index(self.Z.index))
        solver = self._solver(work=work)
        status = solver.solve(m)
        if status == self.cp.INFEASIBLE:
            return math.inf
        if status not in (self.cp.OPTIMAL, self.cp.FEASIBLE):
            return 0.0
        return float(max(0, math.ceil(solver.best_objective_bound - 1e-9)))

    def enumerate(self, pi: NDArray[np.float64], limit: float, most: int
                  ) -> tuple[list[NDArray[np.int64]], bool]:
        """Every class with reduced cost at most ``limit`` (a superset: the scaled test
        allows ``N / S`` more), and whether the list is complete (not over ``most``
        classes, not stopped by the work limit)."""
        m = self.m.clone()
        m.clear_objective()
        xs = [m.get_int_var_from_proto_index(v.index) for v in self.x]
        scaled = np.floor(np.asarray(pi, dtype=np.float64) * SCALE).astype(np.int64)
        cost = m.get_int_var_from_proto_index(self.cost.index)
        expr = SCALE * cost - sum(
            int(s) * x for s, x in zip(scaled, xs, strict=True) if s)
        m.add(expr <= math.floor(limit * SCALE) + self.n_max)
        found: list[NDArray[np.int64]] = []

        class Collect(self.cp.CpSolverSolutionCallback):  # type: ignore[name-defined]
            def on_solution_callback(self) -> None:
                found.append(np.array([self.value(v) for v in xs], dtype=np.int64))
                if len(found) > most:
                    self.stop_search()

        solver = self._solver(enumerate_all=True)
        status = solver.solve(m, Collect())
        complete = len(found) <= most and status in (self.cp.OPTIMAL, self.cp.INFEASIBLE)
        return found[:most], complete

