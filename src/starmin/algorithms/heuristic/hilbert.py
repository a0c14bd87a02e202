"""Hilbert: Ghinita et al.'s space-filling-curve heuristic for frequency l-diversity.

Guarantee: **heuristic** -- no bound on the number of stars (Xiao et al. use it as the
baseline of Sec. 6.1); the output is l-diverse and is verified like any other.
``plan.lower_bound`` is Xiao et al.'s bound ``max(|R1|, l * h(R1))`` (Cor. 1's proof,
Cor. 2), which holds for every instance.

Method. Row types are sorted by their Hilbert index in the QI code space (codes follow the
values' natural order, so nearby codes are nearby values). A running group then takes the
tuples of each row type in that order and is cut as soon as it is l-eligible (Ghinita et
al.'s greedy cut of the 1-d order); the leftover tail is merged into the groups before it
until it is l-eligible. Working on row types rather than rows, two refinements follow the
same rule: (i) a group takes from a row type only the fewest tuples that make it
l-eligible -- first values below the group's largest count, which lower the deficit
``l * h(G) - |G|`` one each, then whole layers across the row type's values; the rest of the
row type carries on; (ii) when the running group is empty, the largest l-eligible part of a
row type (its phase-one cap, Xiao et al. Lemma 4) is a group of its own with no star. Each
group is released as its suppressor; groups with equal suppressors form one class, which
stays l-eligible by Lemma 1.

Complexity: ``O(t_in * m * b)`` for the Hilbert index (``b`` bits per column,
``m`` QI columns), ``O(t_in log t_in)`` for the sort, and one pass over the non-zero
(row type, value) counts, ``O(nnz log s)`` Python steps, for the cut.

References
----------
G. Ghinita, P. Karras, P. Kalnis and N. Mamoulis, "Fast data anonymization with low
information loss", VLDB 2007 (Hilbert order, greedy 1-d partitioning).
J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc. 707, 2004 (the index).
X. Xiao, K. Yi and Y. Tao, EDBT 2010, Sec. 6.1 (Hilbert as baseline), Lemma 1, Lemma 4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx.tp import require_l, support_reason
from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.data.rowtypes import RowTypes
from starmin.errors import StarminError
from starmin.models.base import PrivacyModel
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

NAME = "hilbert"
GUARANTEE = Guarantee(
    kind="heuristic",
    statement="no bound on stars; l-eligible groups cut from the Hilbert order",
    reference="Ghinita et al., VLDB 2007; baseline of Xiao, Yi & Tao, EDBT 2010, Sec. 6.1",
)

Entries = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
"""``(group, type_idx, key_idx, count)`` arrays: which group each (type, key) count goes to."""


# -- the Hilbert index (Skilling 2004), vectorized over points ---------------------------------
def hilbert_keys(codes: NDArray[np.integer], bits: int) -> NDArray[np.uint64]:
    """``(N, W)`` Hilbert indices of ``(N, d)`` points with coordinates ``< 2**bits``, as
    ``W = ceil(d * bits / 64)`` 64-bit words, most significant first."""
    X = np.asarray(codes).astype(np.uint64, copy=True)
    N, d = X.shape
    one = np.uint64(1)
    # AxestoTranspose: inverse undo, then Gray encode (Skilling, Sec. 3).
    q = 1 << (bits - 1)
    while q > 1:
        Q, P = np.uint64(q), np.uint64(q - 1)
        for i in range(d):
            hit = (X[:, i] & Q) != 0
            X[:, 0] ^= np.where(hit, P, np.uint64(0))          # invert low bits of X0
            t = np.where(hit, np.uint64(0), (X[:, 0] ^ X[:, i]) & P)
            X[:, 0] ^= t                                       # exchange low bits
            X[:, i] ^= t
        q >>= 1
    for i in range(1, d):
        X[:, i] ^= X[:, i - 1]
    t = np.zeros(N, dtype=np.uint64)
    q = 1 << (bits - 1)
    while q > 1:
        t ^= np.where((X[:, d - 1] & np.uint64(q)) != 0, np.uint64(q - 1), np.uint64(0))
        q >>= 1
    X ^= t[:, None]
    # Interleave the transposed bits: index bit order is (bit b-1 of X0..X_{d-1}), ...
    total = d * bits
    W = max(1, -(-total // 64))
    out = np.zeros((N, W), dtype=np.uint64)
    pos = 0
    for j in range(bits - 1, -1, -1):
        for i in range(d):
            w, r = divmod(pos, 64)
            shift = np.uint64(63 - r) if w < W - 1 else np.uint64(total - 1 - pos)
            out[:, w] |= ((X[:, i] >> np.uint64(j)) & one) << shift
            pos += 1
    return out


def hilbert_order(codes: NDArray[np.integer], cardinalities: tuple[int, ...] | list[int]
                  ) -> NDArray[np.int64]:
    """``(N,)`` permutation sorting points by Hilbert index; ``bits = ceil(log2(max card))``."""
    codes = np.asarray(codes)
    if codes.shape[0] == 0 or codes.shape[1] == 0:
        return np.arange(codes.shape[0], dtype=np.int64)
    bits = max(1, int(np.ceil(np.log2(max(2, max(cardinalities))))))
    keys = hilbert_keys(codes, bits)
    return np.lexsort(keys.T[::-1]).astype(np.int64)


# -- the greedy cut ------------------------------------------------------------------------------
def _fill(c: Mapping[int, int], S: int, M: int, vals: list[int], cnts: list[int], l: int
          ) -> list[int] | None:
    """Fewest tuples of one row type (``cnts`` of SA values ``vals``) that make an open group
    (counts ``c``, size ``S``, largest count ``M``, not l-eligible) l-eligible: how many of
    each value, or None when the whole row type is not enough."""
    D = l * M - S                                              # deficit, > 0
    take = [0] * len(vals)
    for k, v in enumerate(vals):                               # below M: -1 per tuple
        room = M - c.get(v, 0)
        if room > 0:
            take[k] = min(cnts[k], room, D)
            D -= take[k]
            if D == 0:
                return take
    left = sorted(((cnts[k] - take[k], k) for k in range(len(vals)) if cnts[k] > take[k]),
                  key=lambda x: (-x[0], x[1]))                 # values at level M, most first
    level = 0
    K = len(left)
    while l < K:                                               # a layer of K: deficit -(K-l)
        run = left[K - 1][0] - level
        u = -(-D // (K - l)) - 1                               # full layers before closing
        if u < run:
            j = D - u * (K - l) + l                            # tuples of the closing layer
            for r, (n, k) in enumerate(left):
                take[k] += level + u + (r < j) if r < K else n  # run-out values: all
            return take
        D -= run * (K - l)
        level += run
        while K > 0 and left[K - 1][0] <= level:
            K -= 1
    return None


def _cap(cnts: list[int], l: int) -> int:
    """The phase-one height of one row type (as :func:`phase_one_heights`)."""
    top = sorted((n for n in cnts if n), reverse=True)
    if len(top) < l:
        return 0
    tail = sum(top)
    h = top[0]
    for j in range(l):
        h = min(h, tail // (l - j))
        tail -= top[j]
    return h


class _Cutter:
    """Greedy cut of row types, visited in Hilbert order, into l-eligible groups."""

    def __init__(self, l: int) -> None:
        self.l = l
        self.groups: list[tuple[dict[int, int], list[tuple[int, int, int]]]] = []
        self.c: dict[int, int] = {}
        self.entries: list[tuple[int, int, int]] = []
        self.S = 0
        self.M = 0

    def _add(self, t: int, v: int, n: int) -> None:
        if n:
            self.entries.append((t, v, n))
            cv = self.c.get(v, 0) + n
            self.c[v] = cv
            self.S += n
            self.M = max(self.M, cv)

    def _close(self) -> None:
        self.groups.append((self.c, self.entries))
        self.c, self.entries, self.S, self.M = {}, [], 0, 0

    def visit(self, t: int, vals: list[int], cnts: list[int], cap: int) -> None:
        """Hand the tuples of row type ``t`` (``cnts`` per SA value ``vals``) to groups."""
        while True:
            if self.S == 0:                                    # (ii) pure part, no star
                if cap > 0:
                    for v, n in zip(vals, cnts, strict=True):
                        self._add(t, v, min(n, cap))
                    self._close()
                    cnts = [n - min(n, cap) for n in cnts]
                    cap = 0
                for v, n in zip(vals, cnts, strict=True):
                    self._add(t, v, n)
                return
            take = _fill(self.c, self.S, self.M, vals, cnts, self.l)
            if take is None:
                for v, n in zip(vals, cnts, strict=True):
                    self._add(t, v, n)
                return
            for v, n in zip(vals, take, strict=True):
                self._add(t, v, n)
            self._close()
            cnts = [n - k for n, k in zip(cnts, take, strict=True)]
            if not any(cnts):
                return
            cap = _cap(cnts, self.l)                           # the rest's eligible part

    def finish(self) -> list[list[tuple[int, int, int]]]:
        """Merge the leftover tail backwards until it is l-eligible; return the groups."""
        if self.S:
            c, entries = self.c, self.entries
            while sum(c.values()) < self.l * max(c.values()):
                if not self.groups:
                    raise StarminError("the rows given to the Hilbert cut are not l-eligible")
                c2, e2 = self.groups.pop()
                for v, n in c2.items():
                    c[v] = c.get(v, 0) + n
                entries = e2 + entries
            self.groups.append((c, entries))
            self.c, self.entries, self.S, self.M = {}, [], 0, 0
        return [e for _, e in self.groups]


def hilbert_groups(codes: NDArray[np.integer], counts: NDArray[np.integer],
                   cardinalities: tuple[int, ...] | list[int], l: int) -> Entries:
    """Cut row types ``(T, d)`` codes with ``(T, s)`` counts into l-eligible groups.

    Returns ``(group, type_idx, key_idx, count)`` entries, ``type_idx`` indexing ``codes``.
    The counts must be l-eligible as a whole."""
    counts = np.asarray(counts, dtype=np.int64)
    order = hilbert_order(codes, cardinalities)
    caps = phase_one_heights(counts, l).tolist()               # Lemma 4 cap per row type
    cut = _Cutter(l)
    sub = counts[order]
    tt, vv = np.nonzero(sub)                                   # row-major: types in order
    nn = sub[tt, vv]
    bounds = np.searchsorted(tt, np.arange(len(order) + 1)).tolist()
    vv_l, nn_l, order_l = vv.tolist(), nn.tolist(), order.tolist()
    for p in range(len(order_l)):
        a, b = bounds[p], bounds[p + 1]
        if a < b:
            t = order_l[p]
            cut.visit(t, vv_l[a:b], nn_l[a:b], caps[t])
    groups = cut.finish()
    sizes = [len(e) for e in groups]
    flat = [x for e in groups for x in e]
    arr = np.asarray(flat, dtype=np.int64).reshape(-1, 3)
    gid = np.repeat(np.arange(len(groups), dtype=np.int64), sizes)
    return gid, arr[:, 0], arr[:, 1], arr[:, 2]


def plan_from_entries(rt: RowTypes, entries: Entries, method: str, guarantee: Guarantee,
                      lower_bound: int | None = None,
                      certificate: Mapping[str, Any] | None = None) -> ReleasePlan:
    """:meth:`ReleasePlan.from_groups`, vectorized: each group released as its suppressor,
    groups with equal suppressors merged into one class."""
    gid, t, k, cnt = (np.asarray(a, dtype=np.int64) for a in entries)
    keep = cnt > 0
    gid, t, k, cnt = gid[keep], t[keep], k[keep], cnt[keep]
    if len(gid) == 0:
        return ReleasePlan(np.zeros((0, rt.m), np.int32), gid, t, k, cnt, method, guarantee,
                           lower_bound, dict(certificate or {}))
    o = np.argsort(gid, kind="stable")
    gid, t, k, cnt = gid[o], t[o], k[o], cnt[o]
    starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    codes = rt.codes[t]                                        # (E, m)
    lo = np.minimum.reduceat(codes, starts, axis=0)
    hi = np.maximum.reduceat(codes, starts, axis=0)
    vec = np.where(lo == hi, lo, STAR).astype(np.int32)        # (groups, m) suppressors
    uniq, inv = np.unique(vec, axis=0, return_inverse=True)
    group_of_entry = np.cumsum(np.r_[True, gid[1:] != gid[:-1]]) - 1
    out_idx = inv.reshape(-1)[group_of_entry]
    return ReleasePlan(uniq, out_idx, t, k, cnt, method, guarantee, lower_bound,
                       dict(certificate or {})).compact()


def lower_bound(counts: NDArray[np.integer], l: int) -> int:
    """Xiao et al.'s ``max(|R1|, l * h(R1))`` on the optimal suppressed tuples (hence stars)."""
    counts = np.asarray(counts, dtype=np.int64)
    hstar = phase_one_heights(counts, l)
    r1 = (counts - np.minimum(counts, hstar[:, None])).sum(axis=0)
    return max(int(r1.sum()), l * int(r1.max(initial=0)))


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """Hilbert release of ``rt`` under frequency l-diversity (heuristic; see module doc).

    ``seed`` is unused: the order and the cut are deterministic."""
    progress = progress or silent
    l = require_l(model, rt, NAME)
    progress(f"hilbert: ordering {rt.t_in} row types")
    entries = hilbert_groups(rt.codes, rt.counts, rt.cardinalities, l)
    groups = int(entries[0].max()) + 1 if len(entries[0]) else 0
    return plan_from_entries(rt, entries, NAME, GUARANTEE, lower_bound(rt.counts, l),
                             {"l": l, "groups": groups})


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """None for frequency l-diversity with a whole ``l`` and one sensitive column."""
    return support_reason(model, rt, NAME)


ALGORITHM = Algorithm(
    name=NAME,
    summary="Hilbert-curve order cut greedily into l-eligible groups (Ghinita et al.)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
)
