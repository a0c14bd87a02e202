"""``recode``: local recoding to hierarchy nodes by top-down specialization, for every model.

Guarantee: **heuristic** (no ratio), every release verified; with hierarchies the plan
carries the certified lower bound on the loss of :mod:`starmin.algorithms.loss_bound`, so the
gap of every run is proven.

What it releases. A partition of the rows into classes; each class is released as its
*generalizer*, the lowest common ancestor of its values in every column (the cheapest output
vector covering it, :mod:`.node_costs`; Bredereck et al. Sec. 4.4, the output step before
Theorem 5). Cells are the value, an ancestor, or the root ``*``. The objective (option
``objective``) is the sum over the released cells of their cost: Iyengar's loss
(``"loss"``; LM, Iyengar 2002 Sec. 3.1) or stars (``"stars"``).

How (top-down specialization, after LeFevre et al.'s Mondrian, ICDE 2006, Sec. 4, and the
top-down local recoding of Xu et al., KDD 2006, Sec. 4, with the split rule of Mondrian's
categorical attributes). Start with the whole table as one class (it satisfies the model,
else the model is infeasible). Repeatedly, for each open class ``E`` released as ``x`` and
each column ``j`` where ``x_j`` is not a value, *specialize* ``x_j``: group ``E``'s rows by
the child of ``x_j`` on their value's path. Groups that fail the model are pooled into one
*rest* group; if the rest fails, the smallest passing group joins it; if it still fails, the
column cannot be specialized. The split is legal when it leaves two or more groups, each
satisfying the model. Among the legal splits the one that lowers the class's cost most
(ties: the lowest column) is made; each group is then an open class released as its own
generalizer. A class with no legal split is final. Every split lowers or keeps the cost (a
group's generalizer lies below ``x`` in every column), and every class satisfies the model
at every step, so the release is valid whatever the work limit stops. All open classes are
split at once, round by round, with array operations over the (row type, sensitive key)
pairs (no Python loop over classes).

Every supported model is judged by :func:`starmin.models.apply.holds` on the classes'
sensitive histograms, so k-anonymity, l-diversity (distinct, frequency, entropy, recursive),
p-sensitivity, t-closeness (any distance) and their conjunctions all work, on one or more
sensitive columns. With flat hierarchies (suppression only) it is a star-minimizing heuristic
like any other; the exact and LP methods do better there.

Complexity per round: ``O(m^2 P + m P log P)`` for ``P`` pairs of the open classes (``m``
columns specialized, ``m`` generalizers each); at most ``max_rounds`` rounds (a work limit;
the classes at least halve in size about every round, so ``log2(n / k)`` rounds are typical).

References: Iyengar, "Transforming data to satisfy privacy constraints", KDD 2002, Sec. 3.1
(LM); LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE 2006,
Sec. 4; Xu, Wang, Pei, Wang, Shi & Fu, "Utility-based anonymization using local recoding",
KDD 2006, Sec. 4; Bredereck et al., Sec. 4.4 (releasing the most specific common node).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import (
    Algorithm,
    Progress,
    admit,
    flag_option,
    silent,
    whole_option,
)
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.recode.node_costs import (
    OBJECTIVES,
    ColumnTree,
    FloatArray,
    IntArray,
    column_trees,
    vector_cost,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "recode"
MAX_ROUNDS = 200
GUARANTEE = Guarantee(
    "heuristic",
    "no ratio; releases each class as its lowest common ancestor and minimizes the chosen "
    "objective (Iyengar loss or stars) by top-down specialization; with hierarchies the plan "
    "carries a certified lower bound on the loss",
    "LeFevre et al. 2006 Sec. 4 (Mondrian); Xu et al. 2006 Sec. 4; Iyengar 2002 Sec. 3.1; "
    "Bredereck et al. Sec. 4.4",
)
_OPTIONS = {"objective", "max_rounds", "bound", "start"}


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """Every model and table: the model is judged class by class on its histograms."""
    return None


def check_objective(objective: object) -> str:
    if objective not in OBJECTIVES:
        raise InvalidInput(f"objective={objective!r} is not an objective of {NAME}: use "
                           f"'stars' or 'loss'")
    return str(objective)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    admit(NAME, supports, model, rt, options, _OPTIONS)
    say = progress or silent
    objective = check_objective(options.get("objective", "stars"))
    max_rounds = whole_option(NAME, options, "max_rounds", MAX_ROUNDS)
    trees = column_trees(rt.dgh, objective)
    pairs, start = _start(rt, model, options.get("start"), seed, say)
    part, X, rounds = specialize(rt, model, trees, pairs, max_rounds=max_rounds, start=start,
                                 progress=say)
    vectors, groups = [], []
    order = np.argsort(part, kind="stable")
    cuts = np.flatnonzero(np.diff(part[order])) + 1
    for idx in np.split(order, cuts):
        if len(idx) == 0:
            continue
        vectors.append(X[int(part[idx[0]])])
        groups.append((pairs.type_of[idx], pairs.key_of[idx], pairs.count[idx]))
    cost = float((vector_cost(trees, X[part]) * pairs.count).sum())
    cert: dict[str, Any] = {"objective": objective, "rounds": rounds,
                            "start": options.get("start") or "whole table",
                            "objective_value": round(cost, 9), "seed": seed}
    if objective == "loss" and flag_option(NAME, options, "bound", True):
        from starmin.algorithms.loss_bound import certified_loss_bound

        lb = certified_loss_bound(rt, model, progress=say)
        cert["loss_lower_bound"] = lb.as_dict()
    plan = ReleasePlan.from_vectors(rt, vectors, groups, NAME, GUARANTEE, certificate=cert)
    say(f"{NAME}: {len(groups):,} classes after {rounds} rounds, {objective} "
        f"{cost:.6g} (sum over cells)")
    return plan


def _start(rt: RowTypes, model: PrivacyModel, method: object, seed: int, say: Progress
           ) -> tuple[Pairs, IntArray | None]:
    """The pairs to work on and the partition to refine: the whole table (``method`` None),
    or the classes of another registered method's release (its plan's entries become the
    pairs, since a plan may split a pair's rows between classes)."""
    if method is None:
        return Pairs.of(rt), None
    from starmin.algorithms import registry

    if not isinstance(method, str) or method == NAME:
        raise InvalidInput(f"start={method!r} must name another registered method, e.g. "
                           "start='merge-repair'")
    algo = registry.get(method)
    reason = algo.supports(model, rt)
    if reason is not None:
        raise InvalidInput(f"start={method!r} cannot solve this instance: {reason}")
    plan = algo.solve(rt, model, seed=seed, progress=say)
    live = plan.count > 0
    _, cls = np.unique(plan.outputs, axis=0, return_inverse=True)
    cls = np.asarray(cls, dtype=np.int64).reshape(-1)
    return (Pairs(plan.type_idx[live], plan.key_idx[live], plan.count[live]),
            cls[plan.out_idx[live]])


def specialize(rt: RowTypes, model: PrivacyModel, trees: tuple[ColumnTree, ...],
               pairs: Pairs, *, max_rounds: int = MAX_ROUNDS, start: IntArray | None = None,
               progress: Progress = silent) -> tuple[IntArray, NDArray[np.int32], int]:
    """The top-down specialization of the module docstring: each pair's class ``(P,)``, each
    class's output vector ``(classes, m)``, and the rounds made. ``start``: each pair's
    class in a partition to refine (every class satisfying the model; default: one class)."""
    m = rt.m
    P = pairs.P
    leaf = rt.codes[pairs.type_of].astype(np.int64)                  # (P, m)
    rank = np.stack([trees[j].rank[leaf[:, j]] for j in range(m)], axis=1) if m else \
        np.zeros((P, 0), np.int64)
    if start is None:
        part = np.zeros(P, dtype=np.int64)
    else:
        _, inv = np.unique(np.asarray(start, dtype=np.int64), return_inverse=True)
        part = np.asarray(inv, dtype=np.int64).reshape(-1)
    nstart = int(part.max()) + 1 if P else 1
    X = _generalizers(trees, rank, part, nstart)
    active = np.ones(nstart, dtype=bool)
    rounds = 0
    while active.any() and rounds < max_rounds:
        rounds += 1
        idx = np.flatnonzero(active[part])
        nparts = len(X)
        base = (vector_cost(trees, X) * np.bincount(part, weights=pairs.count,
                                                    minlength=nparts))
        best_score = np.full(nparts, -np.inf)
        best_col = np.full(nparts, -1, dtype=np.int64)
        labels: list[IntArray] = []
        for j in range(m):
            lab, score = _split(rt, model, trees, pairs, leaf, rank, part, X, idx, j, base)
            labels.append(lab)
            better = score > best_score + 1e-12
            best_score = np.where(better, score, best_score)
            best_col = np.where(better, j, best_col)
        chosen = best_col[part[idx]]
        moving = chosen >= 0
        split_parts = np.flatnonzero(best_col >= 0)
        active[:] = False
        if not moving.any():
            break
        mv = idx[moving]
        lab = np.stack(labels, axis=1)[np.flatnonzero(moving), chosen[moving]] if m else mv
        _, new = np.unique(part[mv] * (P + 3) + lab, return_inverse=True)
        new = np.asarray(new).reshape(-1)
        part[mv] = nparts + new
        grown = int(new.max()) + 1
        # split classes keep no pairs; renumber to drop them
        live = np.ones(nparts + grown, dtype=bool)
        live[split_parts] = False
        remap = np.cumsum(live) - 1
        part = remap[part]
        X = _generalizers(trees, rank, part, int(live.sum()))
        active = np.zeros(len(X), dtype=bool)
        active[remap[nparts:]] = True
        progress(f"{NAME}: round {rounds}, {len(X):,} classes, {int(active.sum()):,} open")
    return part, X, rounds


def _by_key(keys: IntArray, values: NDArray[Any], size: int, ufunc: np.ufunc,
            fill: float | int) -> NDArray[Any]:
    """``ufunc``-reduce ``values`` (rows) by ``keys`` into ``size`` slots (``fill`` where no
    key): a sort and ``reduceat``, much faster than ``ufunc.at``."""
    out = np.full((size, *values.shape[1:]), fill, dtype=values.dtype)
    if len(keys) == 0:
        return out
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    out[ks[starts]] = ufunc.reduceat(values[order], starts, axis=0)
    return out


def _generalizers(trees: tuple[ColumnTree, ...], rank: IntArray, part: IntArray,
                  nparts: int) -> NDArray[np.int32]:
    """``(nparts, m)``: each class's lowest common ancestor per column."""
    m = len(trees)
    X = np.empty((nparts, m), dtype=np.int32)
    lo = _by_key(part, rank, nparts, np.minimum, 0)
    hi = _by_key(part, rank, nparts, np.maximum, 0)
    for j, t in enumerate(trees):
        X[:, j] = t.lca_of_ranks(lo[:, j], hi[:, j])
    return X


class _Groups:
    """Groups of the open pairs (``sub``: each open pair's group number, dense from 0): the
    class of each group, rows, sensitive histograms and depth-first rank ranges per column."""

    def __init__(self, rt: RowTypes, pairs: Pairs, rank: IntArray, part: IntArray,
                 idx: IntArray, sub: IntArray) -> None:
        s = rt.s
        G = int(sub.max()) + 1 if len(sub) else 0
        cnt = pairs.count[idx]
        self.G = G
        self.part = np.zeros(G, dtype=np.int64)
        self.part[sub] = part[idx]
        self.rows = np.bincount(sub, weights=cnt, minlength=G)
        self.hist = np.bincount(sub * s + pairs.key_of[idx], weights=cnt,
                                minlength=G * s).reshape(G, s).astype(np.int64)
        order = np.argsort(sub, kind="stable")
        ks = sub[order]
        starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]]) if len(ks) else \
            np.zeros(0, np.int64)
        r = rank[idx[order]]
        self.lo = np.minimum.reduceat(r, starts, axis=0) if len(ks) else r
        self.hi = np.maximum.reduceat(r, starts, axis=0) if len(ks) else r


def _cost(trees: tuple[ColumnTree, ...], lo: IntArray, hi: IntArray,
          rows: NDArray[np.floating] | NDArray[np.integer]) -> FloatArray:
    """Cost of releasing each group (rank ranges ``lo``/``hi``, ``rows``) as its generalizer."""
    if len(rows) == 0:
        return np.zeros(0)
    vec = np.stack([t.lca_of_ranks(lo[:, c], hi[:, c]) for c, t in enumerate(trees)], axis=1)
    return vector_cost(trees, vec) * rows


def _split(rt: RowTypes, model: PrivacyModel, trees: tuple[ColumnTree, ...], pairs: Pairs,
           leaf: IntArray, rank: IntArray, part: IntArray, X: NDArray[np.int32],
           idx: IntArray, j: int, base: FloatArray) -> tuple[IntArray, FloatArray]:
    """Specialize column ``j`` of every open class at once. Returns each open pair's label
    in its class after the split (``(len(idx),)``) and each class's score (cost saved;
    ``-inf``: no legal split)."""
    nparts = len(X)
    p_of = part[idx]
    child = trees[j].child_toward(X[p_of, j], leaf[idx, j]).astype(np.int64)
    width = trees[j].col.nodes + 2
    _, ginv = np.unique(p_of * width + (child + 1), return_inverse=True)
    ginv = np.asarray(ginv).reshape(-1)
    gr = _Groups(rt, pairs, rank, part, idx, ginv)
    G, gpart, rows, hist, lo, hi = gr.G, gr.part, gr.rows, gr.hist, gr.lo, gr.hi
    ok = holds(model, rt, hist)
    # the rest: failing groups pooled per class
    fail = ~ok
    r_rows = np.bincount(gpart[fail], weights=rows[fail], minlength=nparts).astype(np.float64)
    r_hist = _by_key(gpart[fail], hist[fail], nparts, np.add, 0)
    r_lo = _by_key(gpart[fail], lo[fail], nparts, np.minimum, np.iinfo(np.int64).max)
    r_hi = _by_key(gpart[fail], hi[fail], nparts, np.maximum, -1)
    has_rest = r_rows > 0
    r_ok = np.ones(nparts, dtype=bool)
    if has_rest.any():
        r_ok[has_rest] = holds(model, rt, r_hist[has_rest])
    # a failing rest takes the smallest passing group of its class
    smallest = np.full(nparts, -1, dtype=np.int64)
    good = np.flatnonzero(ok)
    if len(good):
        order = good[np.lexsort((good, rows[good], gpart[good]))]
        first = np.r_[True, gpart[order][1:] != gpart[order][:-1]]
        smallest[gpart[order[first]]] = order[first]
    need = has_rest & ~r_ok & (smallest >= 0)
    merged = np.zeros(G, dtype=bool)
    if need.any():
        ps = np.flatnonzero(need)
        sg = smallest[ps]
        m_ok = holds(model, rt, r_hist[ps] + hist[sg])
        take = ps[m_ok]
        tg = smallest[take]
        merged[tg] = True
        r_rows[take] += rows[tg]
        r_lo[take] = np.minimum(r_lo[take], lo[tg])
        r_hi[take] = np.maximum(r_hi[take], hi[tg])
        r_ok[take] = True
    own = ok & ~merged
    n_groups = np.bincount(gpart[own], minlength=nparts) + (r_rows > 0)
    legal = r_ok & (n_groups >= 2)
    g_cost = np.zeros(G)
    og = np.flatnonzero(own)
    g_cost[og] = _cost(trees, lo[og], hi[og], rows[og])
    after = np.bincount(gpart, weights=g_cost, minlength=nparts).astype(np.float64)
    rp = np.flatnonzero(r_rows > 0)
    after[rp] += _cost(trees, r_lo[rp], r_hi[rp], r_rows[rp])
    score = np.where(legal, base - after, -np.inf)
    # labels within a class: own groups keep their number (< G), the rest is G
    lab = np.where(own[ginv], ginv, G)
    # the median cut on column j's depth-first order (Mondrian's numeric split)
    for how in ("median", "alternate", "stratified"):
        cut_lab, cut_score = _median_cut(rt, model, trees, pairs, rank, part, idx, j, base,
                                         how)
        better = cut_score > score + 1e-12
        lab = np.where(better[p_of], G + 1 + cut_lab, lab)
        score = np.where(better, cut_score, score)
    return lab, score


def _median_cut(rt: RowTypes, model: PrivacyModel, trees: tuple[ColumnTree, ...],
                pairs: Pairs, rank: IntArray, part: IntArray, idx: IntArray, j: int,
                base: FloatArray, how: str = "median") -> tuple[IntArray, FloatArray]:
    """Cut every open class in two along column ``j``'s depth-first order (ties by row type,
    i.e. by the other columns' codes): ``median``, halves of about equal rows;
    ``alternate``, its pairs dealt to the two halves in turn; ``stratified``, each sensitive
    key's rows cut at their own median, so both halves keep the class's distribution of
    sensitive values up to a row per key (diversity, closeness). Labels 0/1 and scores as
    :func:`_split` (``-inf`` unless both halves satisfy the model)."""
    nparts = int(part.max()) + 1 if len(part) else 0
    p_of = part[idx]
    seg_of = p_of * rt.s + pairs.key_of[idx] if how == "stratified" else p_of
    order = np.lexsort((pairs.type_of[idx], rank[idx, j], seg_of))
    cnt = pairs.count[idx][order]
    po = seg_of[order]
    total = np.bincount(po, weights=cnt, minlength=int(po.max()) + 1 if len(po) else 0)
    cum = np.cumsum(cnt)
    start = np.r_[0.0, cum[:-1]]
    first = np.r_[True, po[1:] != po[:-1]]
    before = start - np.maximum.accumulate(np.where(first, start, 0.0))  # rows before, in class
    if how == "alternate":
        pos = np.arange(len(po))
        side = (pos - np.maximum.accumulate(np.where(first, pos, 0))) % 2
    else:  # a pair across the middle goes by the parity of its segment in its class
        mid = before + cnt / 2.0 - total[po] / 2.0
        pc = p_of[order]
        seg = np.cumsum(first)
        head = np.maximum.accumulate(np.where(np.r_[True, pc[1:] != pc[:-1]],
                                              np.arange(len(pc)), 0))
        parity = (seg - seg[head]) % 2
        side = np.where(mid > 1e-9, 1, np.where(mid < -1e-9, 0, parity)).astype(np.int64)
    sub = np.empty(len(idx), dtype=np.int64)
    sub[order] = p_of[order] * 2 + side
    _, dense = np.unique(sub, return_inverse=True)
    dense = np.asarray(dense).reshape(-1)
    gr = _Groups(rt, pairs, rank, part, idx, dense)
    ok = holds(model, rt, gr.hist)
    n_ok = np.bincount(gr.part[ok], minlength=nparts)
    n_all = np.bincount(gr.part, minlength=nparts)
    legal = (n_all == 2) & (n_ok == 2)
    after = np.bincount(gr.part, weights=_cost(trees, gr.lo, gr.hi, gr.rows),
                        minlength=nparts)
    return sub % 2, np.where(legal, base - after, -np.inf)


ALGORITHM = Algorithm(
    name=NAME,
    summary="local recoding to hierarchy nodes: top-down specialization (Mondrian over the "
            "hierarchies) minimizing Iyengar's loss or stars, every model; certified loss "
            "bound",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    objectives=OBJECTIVES,
    options=tuple(sorted(_OPTIONS - {"objective"})),  # objective: the --objective flag
)
