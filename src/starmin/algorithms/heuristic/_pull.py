"""Row-level repairs for :mod:`.merge_repair`: pull rows into a class, or eject rows from it.

Merging a small violating class ``A`` into a large class ``B`` widens ``B``'s vector for all
its rows. Often a few rows would do (row types may be split between classes: only counts per
row type matter, Bredereck et al. Sec. 4):

*Pull* (:func:`best_pull`). Donors ``D`` are the classes cheapest to merge with. Every (row
type, key) entry of a donor would widen ``A``'s vector by the columns where its row type
differs from it: its *pattern*. For each of the :data:`PATTERNS` smallest patterns ``S``, the
entries whose pattern lies in ``S`` are pulled row by row, each time a row of the key ``A`` is
shortest of against the table's mix ``q`` (Sainte-Lague's divisors; within a key, donors with
more stars first, since moving their rows saves stars), and the shortest run that makes ``A``
satisfy the model is found in one vectorized judgment. Donors that would then fail the model
give nothing and the run is sought again. Cost: ``|A| (|S'| - |S_A|) + sum rows (|S'| - |S_d|)``
for ``A``'s final star set ``S'``.

*Eject* (:func:`best_eject`). The fewest rows of ``A`` whose removal makes it satisfy the
model, most over-represented first (against ``q``, or largest counts first: the shorter wins;
Xiao et al.'s phase one keeps a group's largest l-eligible part the same way), go to the
partner where that adds fewest stars among those that then satisfy the model or were violating
already -- or, when no single partner can take them, are spread over up to :data:`HOMES`
partners, each taking the longest run it can while satisfying the model.

Both move at most :func:`_rows` rows. Complexity per call: ``O(E (m + s) + p R s)`` for ``E``
donor entries, ``p`` patterns and ``R`` rows, plus ``O(p)`` model evaluations of ``R``
classes (ejection: ``O(R s)`` and two evaluations of ``R`` classes, plus one per home).

References
----------
R. Bredereck et al., Sec. 4 (row types with counts). X. Xiao, K. Yi, Y. Tao, EDBT 2010,
Sec. 5.2 (phase one). A. Sainte-Lague (1910), the divisor method of apportionment.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic._merge_state import Classes, IntArray
from starmin.algorithms.ragged import ragged_arange
from starmin.transform.plan import STAR

PATTERNS = 2
"""Patterns tried per pull, fewest stars first."""
ROWS = 128
MAX_ROWS = 4096
"""A pull or an ejection moves at most the class's size in rows, within these bounds."""
HOMES = 16
"""Most homes the rows ejected from one class are spread over."""
Pull = tuple[int, list[tuple[int, int, int]]]  # (added stars, [(entry, donor, rows)])


def best_pull(cls: Classes, a: int, donors: IntArray, q: NDArray[np.float64]) -> Pull | None:
    """The cheapest pull that makes class ``a`` satisfy the model, or ``None``."""
    mem = cls.members
    lists = [mem.entries(d) for d in donors.tolist()]
    if not lists:
        return None
    ent = np.concatenate(lists)
    if len(ent) == 0:
        return None
    don = np.repeat(donors, [len(x) for x in lists])
    live = mem.c[ent] > 0
    ent, don = ent[live], don[live]
    va = cls.V[a]
    bits = pattern_bits((mem.codes[mem.t[ent]] != va) | (va == STAR))
    pats = np.unique(bits)
    pats = pats[np.argsort([int(p).bit_count() for p in pats.tolist()], kind="stable")]
    pats = pats[:PATTERNS]
    inside = np.zeros(len(bits), dtype=bool)               # entries some pattern may pull
    for pat in pats.tolist():
        inside |= (bits & ~pat) == 0
    ent, don, bits = ent[inside], don[inside], bits[inside]
    order = np.lexsort((-cls.P[don], mem.k[ent]))          # by key; more stars first
    ent, don, bits = ent[order], don[order], bits[order]
    eligs = [(bits & ~pat) == 0 for pat in pats.tolist()]
    best: Pull | None = None
    for elig, first in zip(eligs, _first_runs(cls, a, ent, eligs, q), strict=True):
        found = _prefix(cls, a, ent, don, elig, q, first)
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    return best


Run = tuple[IntArray, IntArray]
"""``(entry position of each row, positions of the rows whose prefix repairs a)``"""


def _first_runs(cls: Classes, a: int, ent: IntArray, eligs: list[NDArray[np.bool_]],
                w: NDArray[np.float64]) -> list[Run | None]:
    """Each pattern's first try of :func:`_prefix` (its row sequence and the prefixes that
    repair ``a``), all patterns judged in one call; ``None`` for a pattern without entries."""
    seqs = [_sequence(cls, a, ent[elig], w) if elig.any() else None for elig in eligs]
    cums = [sq[1] for sq in seqs if sq is not None]
    if not cums:
        return [None] * len(eligs)
    verdicts = cls.judge(np.concatenate(cums))
    out: list[Run | None] = []
    at = 0
    for sq in seqs:
        if sq is None:
            out.append(None)
            continue
        out.append((sq[0], np.flatnonzero(verdicts[at: at + len(sq[0])])))
        at += len(sq[0])
    return out


def _sequence(cls: Classes, a: int, e: IntArray, w: NDArray[np.float64]
              ) -> tuple[IntArray, IntArray]:
    """Up to :func:`_rows` single rows of the entries ``e`` (sorted by key) in the order they
    are pulled, as ``(entry position, cumulative key counts of a)`` per row.

    The ``i``-th row of key ``j`` is due when ``a`` reaches ``(C_a[j] + i + 1/2) / w_j`` rows
    (Sainte-Lague's divisors): rows are pulled in order of that size, so ``a`` grows towards
    the mix ``w`` (the table's, or even counts)."""
    mem = cls.members
    s = cls.C.shape[1]
    keys, cnt = mem.k[e], mem.c[e]
    before = np.cumsum(cnt) - cnt                                        # rows before, all keys
    key_start = np.searchsorted(keys, np.arange(s))
    rank0 = before - before[key_start[keys]]                             # rows before, same key
    rows = _rows(cls, a)
    cap = np.minimum(np.maximum(rows - rank0, 0), cnt)
    pos = np.repeat(np.arange(len(e)), cap)                              # (R,) entry of each row
    i = ragged_arange(cap) + np.repeat(rank0, cap)
    k = keys[pos]
    with np.errstate(divide="ignore"):
        due = (cls.C[a][k] + i + 0.5) / w[k]
    order = first_stable(due, rows)
    pos, k = pos[order], k[order]
    add = np.zeros((len(pos), s), dtype=np.int64)
    add[np.arange(len(pos)), k] = 1
    return pos, np.cumsum(add, axis=0) + cls.C[a]


def pattern_bits(wide: NDArray[np.bool_]) -> IntArray:
    """``(E,)`` the rows of a ``(E, m)`` boolean matrix as integers, column ``c`` bit ``c``
    (``sum_c wide[:, c] << c``)."""
    packed = np.packbits(wide, axis=1, bitorder="little").astype(np.int64)
    bits = packed[:, 0].copy() if packed.shape[1] else np.zeros(len(wide), dtype=np.int64)
    for j in range(1, packed.shape[1]):
        bits |= packed[:, j] << (8 * j)
    return bits


def first_stable(x: NDArray[np.float64] | IntArray, r: int) -> IntArray:
    """``np.argsort(x, kind="stable")[:r]`` -- the indices of the ``r`` smallest values, ties
    by index -- without sorting all of ``x`` (a partition finds the ``r``-th value first)."""
    if len(x) <= r:
        return np.argsort(x, kind="stable")
    if r <= 0:
        return np.zeros(0, dtype=np.int64)
    thr = np.partition(x, r - 1)[r - 1]
    less = np.flatnonzero(x < thr)
    sel = np.concatenate([less, np.flatnonzero(x == thr)[: r - len(less)]])
    sel.sort()
    return sel[np.argsort(x[sel], kind="stable")]


def _prefix(cls: Classes, a: int, ent: IntArray, don: IntArray, elig: NDArray[np.bool_],
            w: NDArray[np.float64], first: Run | None) -> Pull | None:
    """The shortest row sequence (:func:`_sequence`) of the eligible entries that repairs
    ``a``; donors that would then fail give nothing and it is sought again (three tries; the
    first is ``first``, from :func:`_first_runs`)."""
    for attempt in range(3):
        e, d = ent[elig], don[elig]
        if len(e) == 0:
            return None
        if attempt == 0 and first is not None:
            pos, ok = first
        else:
            pos, cum = _sequence(cls, a, e, w)
            ok = np.flatnonzero(cls.judge(cum)) if len(pos) else pos
        if len(ok) == 0:
            return None
        rows = np.bincount(pos[: ok[0] + 1], minlength=len(e))
        took = np.flatnonzero(rows)
        e, d, rows = e[took], d[took], rows[took]
        given = np.zeros((len(e), cls.C.shape[1]), dtype=np.int64)
        given[np.arange(len(e)), cls.members.k[e]] = rows
        ds, inv = np.unique(d, return_inverse=True)
        lost = np.zeros((len(ds), cls.C.shape[1]), dtype=np.int64)
        np.add.at(lost, inv.reshape(-1), given)
        after = cls.C[ds] - lost
        fine = cls.judge(after) | (after.sum(axis=1) == 0)
        if fine.all():
            return _cost(cls, a, e, d, rows)
        elig = elig & ~np.isin(don, ds[~fine])
    return None


def _cost(cls: Classes, a: int, e: IntArray, d: IntArray, rows: IntArray) -> Pull:
    """Added stars of moving ``rows`` of entries ``e`` from donors ``d`` into ``a``."""
    codes = cls.members.codes[cls.members.t[e]]
    va = cls.V[a]
    stars = int(((codes != va).any(axis=0) | (va == STAR)).sum())
    cost = int(cls.n[a]) * (stars - int(cls.P[a])) + int((rows * (stars - cls.P[d])).sum())
    return cost, list(zip(e.tolist(), d.tolist(), rows.tolist(), strict=True))


def eject_set(cls: Classes, a: int, q: NDArray[np.float64]) -> IntArray | None:
    """``(s,)`` the fewest rows of class ``a`` to remove so that the rest satisfies the model,
    or ``None`` if no removal of at most half of it does.

    Two removal orders are tried, the shorter repair kept: rows of the keys most
    over-represented against the table's mix ``q`` first (the ``i``-th last row of key ``j``
    is due while ``a`` has more than ``(C_a[j] - i - 1/2) / q_j`` rows, Sainte-Lague's
    divisors as in :func:`_sequence`), and rows of the largest counts first (weights 1)."""
    c = cls.C[a]
    steps = min(int(c.sum()) // 2, _rows(cls, a))
    if steps < 1:
        return None
    cap = np.minimum(c, steps)
    k0 = np.repeat(np.arange(len(c)), cap)                               # (R,) key of each row
    i = ragged_arange(cap)
    runs = []
    for w in (q, np.ones_like(q)):
        with np.errstate(divide="ignore"):
            due = (c[k0] - i - 0.5) / w[k0]
        k = k0[first_stable(-due, steps)]
        gone = np.zeros((len(k), len(c)), dtype=np.int64)
        gone[np.arange(len(k)), k] = 1
        runs.append(np.cumsum(gone, axis=0))
    verdicts = cls.judge(c - np.concatenate(runs))                   # both orders, one call
    best: IntArray | None = None
    for gone, ok_run in zip(runs, np.split(verdicts, [len(runs[0])]), strict=True):
        ok = np.flatnonzero(ok_run)
        if len(ok) and (best is None or ok[0] + 1 < best.sum()):
            best = gone[ok[0]]
    return best


def _rows(cls: Classes, a: int) -> int:
    """Most rows one pull or ejection moves for class ``a``: its size, within
    [:data:`ROWS`, :data:`MAX_ROWS`]."""
    return min(max(int(cls.n[a]), ROWS), MAX_ROWS)


Eject = tuple[float, list[tuple[int, list[tuple[int, int, int]]]]]
"""(added stars per repaired class, [(home, [(entry, donor, rows)])])"""


def best_eject(cls: Classes, a: int, homes: IntArray, q: NDArray[np.float64]) -> Eject | None:
    """Rows ejected from violating class ``a`` (:func:`eject_set`) so that it satisfies the
    model: into the one home where that costs least among those that then satisfy the model
    or were violating already; failing that, spread over up to :data:`HOMES` homes (fewest
    stars first), each taking the longest run of them it can while satisfying the model."""
    gone = eject_set(cls, a, q)
    if gone is None or len(homes) == 0:
        return None
    mem = cls.members
    moves: list[tuple[int, int, int]] = []
    ents = mem.entries(a)
    ents = ents[np.argsort(-mem.c[ents], kind="stable")]
    need = gone.copy()
    for e in ents.tolist():                                  # rows of the ejected keys
        k = int(mem.k[e])
        take = int(min(need[k], mem.c[e]))
        if take > 0:
            moves.append((e, a, take))
            need[k] -= take
    stars = _stars_with(cls, homes, np.asarray([m[0] for m in moves], dtype=np.int64))
    rows = int(gone.sum())
    cost = cls.n[homes] * (stars - cls.P[homes]) + rows * (stars - int(cls.P[a]))
    after = cls.judge(cls.C[homes] + gone)
    was_bad = ~cls.ok[homes]
    allowed = after | was_bad
    if allowed.any():
        eff = np.where(allowed, cost / (1.0 + (after & was_bad)), np.inf)
        i = int(np.argmin(eff))
        return float(eff[i]), [(int(homes[i]), moves)]
    ok_homes = homes[cls.ok[homes]]
    order = np.lexsort((cost[cls.ok[homes]], stars[cls.ok[homes]]))
    return _spread_out(cls, a, ok_homes[order][:HOMES], moves)


def _stars_with(cls: Classes, homes: IntArray, ents: IntArray) -> IntArray:
    """``(H,)`` stars per row of each home after taking rows of the entries' row types."""
    codes = cls.members.codes[np.unique(cls.members.t[ents])]            # (T, m)
    Vh = cls.V[homes]                                                    # (H, m)
    differ = (Vh[:, None, :] != codes[None, :, :]).any(axis=1) | (Vh == STAR)
    return differ.sum(axis=1).astype(np.int64)


def _spread_out(cls: Classes, a: int, homes: IntArray, moves: list[tuple[int, int, int]]
                ) -> Eject | None:
    """The ejected rows ``moves`` handed to ``homes`` in order, each home taking the longest
    prefix of the rows left that keeps it satisfying the model; ``None`` if rows are left."""
    mem = cls.members
    left = [list(m) for m in moves]
    plan: list[tuple[int, list[tuple[int, int, int]]]] = []
    total = 0
    for h in homes.tolist():
        keys = np.repeat([mem.k[m[0]] for m in left], [m[2] for m in left])
        add = np.zeros((len(keys), cls.C.shape[1]), dtype=np.int64)
        add[np.arange(len(keys)), keys] = 1
        ok = np.flatnonzero(cls.judge(np.cumsum(add, axis=0) + cls.C[h]))
        if len(ok) == 0:
            continue
        t, given = int(ok[-1]) + 1, []
        while t > 0:
            r = min(t, left[0][2])
            given.append((left[0][0], a, r))
            left[0][2] -= r
            t -= r
            if left[0][2] == 0:
                left.pop(0)
        stars = int(_stars_with(cls, np.array([h]), np.array([g[0] for g in given]))[0])
        rows = sum(g[2] for g in given)
        total += int(cls.n[h]) * (stars - int(cls.P[h])) + rows * (stars - int(cls.P[a]))
        plan.append((h, given))
        if not left:
            return float(total), plan
    return None
