"""Exact release by Liang & Yuan's balanced-split recursion (Theorem 8), memoized.

Guarantee: **exact** -- the returned release has the minimum number of stars of any release
by cell suppression that satisfies the model (every model of :mod:`starmin.models`).

The recursion (Liang & Yuan, Sec. 4, proof of Theorem 8). For a sub-table ``M`` of the table
``T`` let ``OPT(M)`` be the least cost of a partition of ``M`` into groups that each satisfy the
model *with respect to T* (t-closeness compares with ``T``'s distribution). Take an optimal
partition of ``M`` (``s = |M|`` rows). Either one group has more than ``s / 2`` rows, or the
groups can be split into two sides of ``s / 4`` to ``3 s / 4`` rows each (the paper's claim,
proved there for any sizes). Hence

    OPT(M) = min( min over feasible groups g <= M with |g| > s / 2 of cost(g) + OPT(M - g),
                  min over A <= M with s / 4 <= |A| <= 3 s / 4 of OPT(A) + OPT(M - A) ),

with ``OPT(empty) = 0`` and ``cost(g) = |g| x`` the number of columns where ``g``'s rows differ
(Sec. 2). Note (2) of the proof cuts every sub-table that is not itself feasible: it has
``OPT = infinity``, because every model here is closed under union of classes (the union of a
partition's groups satisfies the model whenever each group does; see
:mod:`starmin.algorithms.exact.brute_force` for the argument per model). The recursion is
memoized: each sub-table is solved once.

Which sub-tables occur. Every sub-table the recursion reaches from ``T`` has a feasible
complement ``T - M`` (or is ``T``): the parts cut off on the way are feasible, and so is their
union. So the states are the *good* sub-tables: ``M`` feasible and ``T - M`` feasible or empty.
Sub-tables are sub-multisets: rows of one (row type, sensitive key) cell are interchangeable
(one cell per row type for models that ignore the sensitive attribute), so a sub-table is a
count vector ``a <= c`` over the ``d`` cells, coded in mixed radix. With all rows distinct
these are exactly the paper's row subsets.

k-anonymity goes through Lemma 1 (Sec. 3): give every row its own sensitive value; then a
group is k-anonymous iff it has t-closeness with ``t = 1 - k / n`` under the equal distance.
The solver asks :class:`~starmin.models.t_closeness.TCloseness` that question for each group
size (the EMD of ``r`` distinct values of ``n`` to the uniform distribution is ``1 - r / n``)
and runs the same recursion.

Work. A precomputation over all ``S = prod_j (c_j + 1)`` sub-multisets gives each one's size,
sensitive histogram, feasibility (the model is asked once per distinct histogram) and cost.
Each good state ``M`` then looks at its candidate parts: all sub-multisets of ``M`` or all good
sub-tables contained in ``M`` (a 64-bit containment test), whichever list is shorter. The work
is ``O(S (d + m))`` plus ``sum over visited states of min(prod_j (a_j + 1), G)`` with ``G`` the
number of good sub-tables -- at most ``3^n`` with ``n`` distinct rows, as the brute force's
``W``, but only feasible sub-tables with feasible complements are states, so a model that few
sub-tables satisfy (small ``t``, large ``k`` or ``l``) leaves far fewer. :func:`supports`
bounds this work before solving, from the histograms alone (:func:`work_bound`).

Size limits: ``n <= 63`` rows, ``S <= 2^22`` sub-multisets, at most ``2^16`` distinct sensitive
histograms, ``G <= 2 * 10^5`` good sub-tables and the bound on the per-state work
``<= 10^8``; :func:`supports` names the limit that an instance exceeds.

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (suppressor, cost, partitions), Sec. 3 Lemma 1 (k-anonymity as t-closeness with
``t = 1 - k / n``), Sec. 4 Theorem 8 (the ``2^O(n) * O(m)`` recursion and its notes (1), (2)).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.algorithms.exact._cells import cells, hand_out
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit, StarminError
from starmin.models.apply import check_feasible, holds
from starmin.models.base import PrivacyModel
from starmin.models.combine import AllOf, parts
from starmin.models.distances import EqualDistance
from starmin.models.k_anonymity import KAnonymity
from starmin.models.l_diversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    LDiversity,
    RecursiveCLDiversity,
)
from starmin.models.matrix_distance import MatrixDistance
from starmin.models.p_sensitive import PSensitiveKAnonymity
from starmin.models.t_closeness import TCloseness
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "balanced-split"
MAX_ROWS = 63
"""Largest number of rows ``n`` (a sub-table is also coded as a 64-bit set of row slots)."""
MAX_STATES = 2**22
"""Largest number ``S = prod_j (c_j + 1)`` of sub-multisets precomputed."""
MAX_HISTOGRAMS = 2**16
"""Largest number of distinct sensitive histograms ``prod_v (C_v + 1)`` judged by the model."""
MAX_GOOD = 200_000
"""Largest number ``G`` of good sub-tables (feasible, with a feasible complement): the states
the recursion may visit, each one Python step."""
MAX_WORK = 10**8
"""Largest bound on the candidate parts the states look at (:func:`work_bound`)."""

GUARANTEE = Guarantee(
    kind="exact",
    statement="minimum number of stars over all releases satisfying the model",
    reference="Liang & Yuan, Sec. 4 Thm 8 (balanced split, memoized); Sec. 3 Lemma 1",
)

IntArray = NDArray[np.int64]
_MODELS = (KAnonymity, LDiversity, DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity,
           TCloseness, PSensitiveKAnonymity)
"""Model classes the solver accepts: all closed under union of classes (module doc)."""
_BIG = 1 << 40  # larger than any cost (n <= 63 rows x m columns)


# -- the instance ------------------------------------------------------------------------


def _model_reason(model: PrivacyModel) -> str | None:
    inner = parts(model) if isinstance(model, AllOf) else [model]
    odd = [p for p in inner if not isinstance(p, _MODELS)]
    if odd:
        label = getattr(odd[0], "name", type(odd[0]).__name__)
        return (f"{NAME} solves starmin's own models (closed under union of classes), not "
                f"{label}; use brute-force for it")
    return None


def _axes(model: PrivacyModel, rt: RowTypes, cell_s: IntArray) -> tuple[IntArray, IntArray]:
    """The histogram axes: ``(d,)`` axis of each cell and ``(h,)`` rows per axis.

    Sensitive models: one axis per sensitive key; size-only models: one axis (the size)."""
    if not model.uses_sensitive:
        return np.zeros(len(cell_s), dtype=np.int64), np.array([rt.n], dtype=np.int64)
    return cell_s, rt.counts.sum(axis=0).astype(np.int64)


def lemma1_feasible_sizes(k: int, n: int) -> NDArray[np.bool_]:
    """``(n + 1,)`` bool: is a group of ``r`` rows feasible, decided through Lemma 1.

    Lemma 1 (Liang & Yuan, Sec. 3): with every row given its own sensitive value, a group of
    ``r`` rows has t-closeness with ``t = 1 - k / n`` under the equal distance iff ``r >= k``.
    The verdict is the t-closeness model's on histograms of ``r`` distinct values out of
    ``n`` (``r = 0``, the empty group, is vacuously feasible)."""
    if n == 0:
        return np.ones(1, dtype=bool)
    t = Fraction(n - max(0, min(k, n)), n)
    hist = np.tril(np.ones((n + 1, n), dtype=np.int64), -1)  # row r: r ones
    ok = TCloseness(t, EqualDistance()).evaluate(hist, np.ones(n, dtype=np.int64),
                                                 list(range(n))).ok
    return np.asarray(ok, dtype=bool)


def _relaxed(model: PrivacyModel) -> PrivacyModel:
    """A model every feasible class also satisfies, cheap to evaluate: a matrix distance's
    t-closeness becomes the equal distance's with ``t / d_min`` (the EMD moves at least the
    total variation, each unit at least ``d_min``); other models stay as they are."""
    inner = parts(model)
    out: list[PrivacyModel] = []
    for p in inner:
        if isinstance(p, TCloseness) and isinstance(p.distance, MatrixDistance):
            M = np.asarray(p.distance.matrix, dtype=np.float64)
            off = M[~np.eye(len(M), dtype=bool)]
            d_min = Fraction(float(off.min())) if off.size else Fraction(1)
            if d_min <= 0 or p.t_exact >= d_min:
                continue  # no constraint left
            out.append(TCloseness(p.t_exact / d_min, EqualDistance()))
        else:
            out.append(p)
    if not out:
        return KAnonymity(1)
    return out[0] if len(out) == 1 else AllOf(*out)


def _histograms(H: IntArray) -> IntArray:
    """Every histogram ``h <= H`` as ``(prod (H + 1), len(H))``, first axis fastest."""
    grids = np.indices(tuple(int(x) + 1 for x in H[::-1]))
    return grids.reshape(len(H), -1).T[:, ::-1].astype(np.int64)


def _feasible_histograms(model: PrivacyModel, rt: RowTypes, hists: IntArray,
                         relaxed: bool) -> NDArray[np.bool_]:
    """``(len(hists),)`` feasibility of each histogram (a class with those counts)."""
    if not model.uses_sensitive:
        size = hists[:, 0]
        if isinstance(model, KAnonymity):  # Lemma 1
            return lemma1_feasible_sizes(model.k, rt.n)[size]
        kc = np.zeros((len(size), rt.s), dtype=np.int64)
        kc[:, 0] = size
        return holds(model, rt, kc)
    if not _has_matrix(model):
        ok = holds(model, rt, hists)
    elif relaxed:
        ok = holds(_relaxed(model), rt, hists)
    else:  # one LP per histogram: only for those the relaxation lets through
        ok = holds(_relaxed(model), rt, hists)
        idx = np.flatnonzero(ok)
        if len(idx):
            ok[idx] = holds(model, rt, hists[idx])
    return ok & (hists.sum(axis=1) > 0)


def _has_matrix(model: PrivacyModel) -> bool:
    return any(isinstance(p, TCloseness) and isinstance(p.distance, MatrixDistance)
               for p in parts(model))


def _good_histograms(model: PrivacyModel, rt: RowTypes, H: IntArray, relaxed: bool
                     ) -> tuple[IntArray, NDArray[np.bool_], NDArray[np.bool_]]:
    """All histograms, their feasibility, and which are *good* (feasible and the complement
    ``H - h`` feasible or empty)."""
    hists = _histograms(H)
    feas = _feasible_histograms(model, rt, hists, relaxed)
    radix = np.cumprod(np.concatenate([[1], H[:-1] + 1]))
    comp = ((H[None, :] - hists) * radix[None, :]).sum(axis=1)  # code of H - h
    whole = comp == 0
    return hists, feas, feas & (feas[comp] | whole)


@dataclass(frozen=True)
class Size:
    """What :func:`supports` measures: rows, sub-multisets ``S``, histograms, good sub-tables
    ``G`` and the bound on the candidate parts the states look at (``work``)."""

    n: int
    states: int
    histograms: int
    good: float
    work: float


def work_bound(model: PrivacyModel, rt: RowTypes) -> Size:
    """Bounds of the recursion's size, from histograms (no sub-multiset is enumerated).

    The sub-multisets with histogram ``h`` number ``prod_v Q_v[h_v]`` and have
    ``sum prod_j (a_j + 1) = prod_v P_v[h_v]`` sub-multisets in all, where ``Q_v`` (``P_v``) is
    the product over the cells of axis ``v`` of ``1 + z + ... + z^c`` (of ``1 + 2z + ... +
    (c + 1) z^c``). Summed over good histograms (feasibility judged by a relaxation of a matrix
    distance, so the bound stays a bound) they give ``G`` and the work bound
    ``min(G^2, sum P)``."""
    _, cell_s, c = cells(model, rt)
    S = 1
    for x in c.tolist():
        S *= x + 1
    axis, H = _axes(model, rt, cell_s)
    nh = 1
    for x in H.tolist():
        nh *= x + 1
    if rt.n > MAX_ROWS or S > MAX_STATES or nh > MAX_HISTOGRAMS:
        return Size(rt.n, S, nh, float("inf"), float("inf"))
    P: list[NDArray[np.float64]] = []
    Q: list[NDArray[np.float64]] = []
    for v in range(len(H)):
        p = np.ones(1)
        q = np.ones(1)
        for x in c[axis == v].tolist():
            p = np.convolve(p, np.arange(1, x + 2, dtype=np.float64))
            q = np.convolve(q, np.ones(x + 1))
        P.append(p)
        Q.append(q)
    hists, _, good = _good_histograms(model, rt, H, relaxed=True)
    w = np.ones(len(hists))
    g = np.ones(len(hists))
    for v in range(len(H)):
        w *= P[v][hists[:, v]]
        g *= Q[v][hists[:, v]]
    G = float(g[good].sum())
    return Size(rt.n, S, nh, G, min(G * G, float(w[good].sum())))


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` when the instance is within the size limits, else the reason."""
    reason = _model_reason(model)
    if reason is not None:
        return reason
    z = work_bound(model, rt)
    if z.n > MAX_ROWS:
        why = f"n = {z.n} rows exceed its limit of n <= {MAX_ROWS}"
    elif z.states > MAX_STATES:
        why = (f"the table has {z.states:.1e} sub-tables (n = {z.n} rows), more than its limit "
               f"{MAX_STATES} (about n <= 22 distinct rows)")
    elif z.histograms > MAX_HISTOGRAMS:
        why = (f"{z.histograms} distinct sensitive histograms exceed its limit "
               f"{MAX_HISTOGRAMS}")
    elif z.good > MAX_GOOD:
        why = (f"{z.good:.2e} sub-tables with feasible complements (n = {z.n} rows) exceed "
               f"its limit {MAX_GOOD:.0e}")
    elif z.work > MAX_WORK:
        why = (f"the bound on its work, {z.work:.2e} candidate parts (n = {z.n} rows), exceeds "
               f"its limit {MAX_WORK:.0e}")
    else:
        return None
    return f"{NAME}: {why}; use --method auto (or brute-force for n <= 16 rows)"


# -- precomputation over all sub-multisets -------------------------------------------------


def _expand(values: list[IntArray]) -> IntArray:
    """Sum over cells of ``values[j][x_j]`` for every sub-multiset, in code order (cell 0 the
    lowest digit); ``values[j]`` is ``(c_j + 1,)``."""
    arr = np.zeros(1, dtype=np.int64)
    for vals in values:
        arr = np.concatenate([arr + v for v in vals.tolist()])
    return arr


@dataclass
class _Tables:
    """Per sub-multiset code: size, feasibility, good, cost; plus the mixed radix."""

    c: IntArray
    radix: IntArray
    size: NDArray[np.int32]
    feas: NDArray[np.bool_]
    good: NDArray[np.bool_]
    cost: NDArray[np.int64]
    offset: NDArray[np.uint64]


def _tables(model: PrivacyModel, rt: RowTypes, cell_t: IntArray, cell_s: IntArray,
            c: IntArray) -> _Tables:
    radix = np.cumprod(np.concatenate([[1], c[:-1] + 1])).astype(np.int64)
    axis, H = _axes(model, rt, cell_s)
    hradix = np.cumprod(np.concatenate([[1], H[:-1] + 1])).astype(np.int64)
    xs = [np.arange(int(x) + 1, dtype=np.int64) for x in c]
    size = _expand(xs).astype(np.int32)
    hcode = _expand([x * hradix[axis[j]] for j, x in enumerate(xs)])
    _, hfeas, _ = _good_histograms(model, rt, H, relaxed=False)
    feas = hfeas[hcode]
    comp = int((H * hradix).sum()) - hcode  # histogram code of T - M: H - h(M)
    good = feas & (hfeas[comp] | (comp == 0))
    del hcode, comp
    nonconst = np.zeros(len(size), dtype=np.int64)
    for col in range(rt.m):
        _, val = np.unique(rt.codes[cell_t, col], return_inverse=True)
        bit = np.left_shift(np.uint64(1), val.reshape(-1).astype(np.uint64))
        mask = np.zeros(1, dtype=np.uint64)
        for j, x in enumerate(c.tolist()):
            mask = np.concatenate([mask] + [mask | bit[j]] * x)
        nonconst += (mask & (mask - np.uint64(1))) != 0  # two or more distinct values
    cost = size.astype(np.int64) * nonconst
    offset = np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint64)
    return _Tables(c, radix, size, feas, good, cost, offset)


def _digits(code: int | IntArray, T: _Tables) -> IntArray:
    """Cell counts of sub-multiset ``code`` (``(d,)``) or codes (``(g, d)``)."""
    x = np.asarray(code, dtype=np.int64)
    return (x[..., None] // T.radix) % (T.c + 1)


def _slots(a: IntArray, T: _Tables) -> NDArray[np.uint64]:
    """64-bit set of row slots of sub-multisets ``a`` (``(..., d)`` counts): cell ``j`` holds
    slots ``offset_j .. offset_j + c_j - 1`` and a sub-multiset takes the first ``a_j``."""
    ones = np.left_shift(np.uint64(1), a.astype(np.uint64)) - np.uint64(1)
    return np.bitwise_or.reduce(np.left_shift(ones, T.offset), axis=-1)


# -- the recursion ---------------------------------------------------------------------------


class _Recursion:
    """Memoized ``OPT`` over good sub-tables (module doc)."""

    def __init__(self, T: _Tables, progress: Progress, total: int) -> None:
        self.T = T
        S = len(T.size)
        self.opt = np.full(S, -1, dtype=np.int64)
        self.opt[0] = 0
        self.kind = np.zeros(S, dtype=np.int8)  # 1: one group + rest, 2: split
        self.part = np.zeros(S, dtype=np.int64)
        self.good_codes = np.flatnonzero(T.good).astype(np.int64)
        self.good_slots = _slots(_digits(self.good_codes, T), T)
        self.states = 0
        self.work = 0
        self.meter = Meter(progress, NAME, "sub-tables", total)

    def _candidates(self, code: int) -> IntArray:
        """Good sub-tables ``A <= M`` (``A != 0``), the shorter way (module doc)."""
        T = self.T
        a = _digits(code, T)
        subs_count = int(np.prod(a + 1))
        if subs_count <= len(self.good_codes):
            self.work += subs_count
            subs = np.zeros(1, dtype=np.int64)
            for j in np.flatnonzero(a).tolist():
                r = int(T.radix[j])
                subs = np.concatenate([subs + x * r for x in range(int(a[j]) + 1)])
            return subs[T.good[subs]]
        self.work += len(self.good_codes)
        inside = (self.good_slots & ~_slots(a, T)) == 0
        return self.good_codes[inside]

    def solve(self, code: int) -> None:
        T = self.T
        self.meter.tick(self.states)
        self.states += 1
        s = int(T.size[code])
        A = self._candidates(code)
        rest = code - A
        sa = T.size[A].astype(np.int64)
        rest_ok = (rest == 0) | T.good[rest]
        big = (2 * sa > s) & rest_ok & T.feas[A]
        split = (4 * sa >= s) & (4 * sa <= 3 * s) & (rest != 0) & rest_ok & (code > 2 * A)
        gb, rb = A[big], rest[big]
        ga, ra = A[split], rest[split]
        todo = np.concatenate([rb, ga, ra])
        for child in np.unique(todo[self.opt[todo] < 0]).tolist():
            if self.opt[child] < 0:
                self.solve(child)
        vb = T.cost[gb] + self.opt[rb]
        vs = self.opt[ga] + self.opt[ra]
        best, kind, part = _BIG, 0, 0
        if len(vb):
            i = int(np.argmin(vb))
            best, kind, part = int(vb[i]), 1, int(gb[i])
        if len(vs):
            i = int(np.argmin(vs))
            if int(vs[i]) < best:
                best, kind, part = int(vs[i]), 2, int(ga[i])
        self.opt[code], self.kind[code], self.part[code] = best, kind, part

    def groups(self, code: int) -> list[int]:
        """The optimal partition of ``code`` as group codes."""
        out: list[int] = []
        stack = [code]
        while stack:
            x = stack.pop()
            if x == 0:
                continue
            k, p = int(self.kind[x]), int(self.part[x])
            if k == 1:
                out.append(p)
                stack.append(x - p)
            else:
                stack.extend([x - p, p])
        return out


def _decode(rt: RowTypes, cell_t: IntArray, cell_s: IntArray, T: _Tables, codes: list[int]
            ) -> list[tuple[IntArray, IntArray, IntArray]]:
    """Groups as ``(type, key, count)`` arrays; cells without a key hand out rows key by key."""
    return hand_out(rt, cell_t, cell_s, (_digits(code, T) for code in codes))


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """Minimum-star release of ``rt`` under ``model`` (exact; see the module docstring).

    ``seed`` is unused (deterministic). Raises ``Infeasible`` (no release satisfies the
    model), ``SolverLimit`` (beyond the size limits, see :func:`supports`) or ``InvalidInput``
    (a model the method does not take, or unknown options).
    """
    progress = progress or silent
    if options:
        raise InvalidInput(f"{NAME} takes no options {sorted(options)}; remove them")
    reason = _model_reason(model)
    if reason is not None:
        raise InvalidInput(reason)
    check_feasible(model, rt)
    reason = supports(model, rt)
    if reason is not None:
        raise SolverLimit(reason)
    if rt.n == 0:
        return ReleasePlan.from_groups(rt, [], NAME, GUARANTEE, lower_bound=0,
                                       certificate={"optimum": 0})
    cell_t, cell_s, c = cells(model, rt)
    T = _tables(model, rt, cell_t, cell_s, c)
    whole = len(T.size) - 1  # the code of T itself: every digit at its maximum
    if not T.feas[whole]:
        raise Infeasible(f"no partition of the table satisfies {model.name}: relax the model's "
                         "parameters")
    rec = _Recursion(T, progress, int(T.good.sum()))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 1000))  # depth <= log_{4/3} n + 2 (module doc)
    try:
        rec.solve(whole)
    finally:
        sys.setrecursionlimit(limit)
    opt = int(rec.opt[whole])
    groups = _decode(rt, cell_t, cell_s, T, rec.groups(whole))
    plan = ReleasePlan.from_groups(
        rt, groups, NAME, GUARANTEE, lower_bound=opt,
        certificate={"optimum": opt, "sub_tables": len(T.size),
                     "good_sub_tables": int(T.good.sum()), "states_solved": rec.states,
                     "candidate_parts": rec.work, "groups": len(groups)})
    if plan.stars != opt or not holds(model, rt, plan.class_key_counts(rt.s)).all():
        raise StarminError(f"{NAME}: the release of the optimal partition does not match it "
                           f"({plan.stars} stars, optimum {opt}); report this as a bug")
    return plan


ALGORITHM = Algorithm(
    name=NAME,
    summary=("exact minimum-star release for any model by Liang & Yuan's Thm 8 balanced-split "
             "recursion over feasible sub-tables (k-anonymity via Lemma 1; n <= 63)"),
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
)
