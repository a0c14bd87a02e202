"""Pulling rows for :mod:`.merge_repair`: repair a class with a few rows of its neighbours.

Merging a small violating class ``A`` into a large class ``B`` widens ``B``'s vector for all
its rows. Often a few rows of ``B`` would do: they join ``A``, whose vector widens only where
they differ from it, and ``B`` keeps its vector (it must still satisfy the model after giving
them away; row types may be split, Bredereck et al. Sec. 4).

For a violating class ``A`` and donor classes ``D`` (the classes cheapest to merge with), every
(row type, key) entry of a donor widens ``A``'s vector by the columns where its row type
differs from it: its *pattern*. For each of the few smallest patterns ``S`` among the entries
(``S`` must contain ``A``'s stars), the entries whose pattern lies in ``S`` are taken in order of
usefulness -- keys that ``A`` holds below the table's share first, then rows from donors with
more stars (moving them saves stars) -- and the shortest prefix that makes ``A`` satisfy the
model is found in one vectorized judgment (the last entry cut to the fewest rows that suffice).
Donors that would then fail the model give nothing and the prefix is sought again. The cost is
``|A| (|S'| - |S_A|) + sum rows (|S'| - |S_d|)`` for the final star set ``S'``; the cheapest pull
over the patterns is returned.

Complexity per call: ``O(E (m + s) + p E log E)`` for ``E`` donor entries and ``p <=``
:data:`PATTERNS` patterns, plus ``O(p)`` model evaluations of ``O(E)`` classes.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic._merge_state import Classes, IntArray
from starmin.transform.plan import STAR

PATTERNS = 4
"""Patterns tried per pull, fewest stars first."""
ROWS = 128
"""Most rows one pull takes."""
Pull = tuple[int, list[tuple[int, int, int]]]  # (added stars, [(entry, donor, rows)])


def best_pull(cls: Classes, a: int, donors: IntArray, q: NDArray[np.float64]) -> Pull | None:
    """The cheapest pull that makes class ``a`` satisfy the model, or ``None``."""
    mem = cls.members
    lists = [mem.of[d] for d in donors.tolist()]
    ent = np.fromiter(chain.from_iterable(lists), dtype=np.int64)
    if len(ent) == 0:
        return None
    don = np.repeat(donors, [len(x) for x in lists])
    live = mem.c[ent] > 0
    ent, don = ent[live], don[live]
    va = cls.V[a]
    wide = (mem.codes[mem.t[ent]] != va) | (va == STAR)                 # (E, m)
    bits = (wide * (1 << np.arange(cls.m, dtype=np.int64))).sum(axis=1)
    order = np.lexsort((-cls.P[don], mem.k[ent]))          # by key; more stars first
    ent, don, bits = ent[order], don[order], bits[order]
    pats = np.unique(bits)
    pats = pats[np.argsort([int(p).bit_count() for p in pats.tolist()], kind="stable")]
    best: Pull | None = None
    for pat in pats[:PATTERNS].tolist():
        found = _prefix(cls, a, ent, don, (bits & ~pat) == 0, q)
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    return best


def _sequence(cls: Classes, a: int, e: IntArray, q: NDArray[np.float64]
              ) -> tuple[IntArray, IntArray]:
    """Up to :data:`ROWS` single rows of the entries ``e`` (sorted by key) in the order they
    are pulled, as ``(entry position, cumulative key counts of a)`` per row.

    The ``i``-th row of key ``j`` is due when ``a`` reaches ``(C_a[j] + i + 1/2) / q_j`` rows
    (Sainte-Lague's divisors): rows are pulled in order of that size, so ``a`` grows towards
    the table's mix ``q``. Only the first :data:`ROWS` rows of each key are considered."""
    mem = cls.members
    s = cls.C.shape[1]
    keys, cnt = mem.k[e], mem.c[e]
    before = np.cumsum(cnt) - cnt                                        # rows before, all keys
    key_start = np.searchsorted(keys, np.arange(s))
    rank0 = before - before[key_start[keys]]                             # rows before, same key
    cap = np.clip(ROWS - rank0, 0, cnt)
    pos = np.repeat(np.arange(len(e)), cap)                              # (R,) entry of each row
    i = np.arange(len(pos)) - np.repeat(np.cumsum(cap) - cap, cap) + np.repeat(rank0, cap)
    k = keys[pos]
    with np.errstate(divide="ignore"):
        due = (cls.C[a][k] + i + 0.5) / q[k]
    order = np.argsort(due, kind="stable")[:ROWS]
    pos, k = pos[order], k[order]
    add = np.zeros((len(pos), s), dtype=np.int64)
    add[np.arange(len(pos)), k] = 1
    return pos, np.cumsum(add, axis=0) + cls.C[a]


def _prefix(cls: Classes, a: int, ent: IntArray, don: IntArray, elig: NDArray[np.bool_],
            q: NDArray[np.float64]) -> Pull | None:
    """The shortest row sequence (:func:`_sequence`) of the eligible entries that repairs
    ``a``; donors that would then fail give nothing and it is sought again (three tries)."""
    for _ in range(3):
        e, d = ent[elig], don[elig]
        if len(e) == 0:
            return None
        pos, cum = _sequence(cls, a, e, q)
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


def eject_set(cls: Classes, a: int, q: NDArray[np.float64], limit: int = 64
              ) -> IntArray | None:
    """``(s,)`` the fewest rows of class ``a`` to remove so that the rest satisfies the model,
    removing one row at a time of the key most over-represented against the table's share
    ``q`` (at most ``limit`` rows and half the class); ``None`` if no such prefix works."""
    c = cls.C[a].astype(np.float64)
    n = float(c.sum())
    steps = min(limit, int(n) // 2)
    if steps < 1:
        return None
    gone = np.zeros((steps, len(c)), dtype=np.int64)
    cur = c.copy()
    for r in range(steps):                                   # one row of the worst key
        over = np.where(cur > 0, cur / max(n - r, 1.0) - q, -np.inf)
        j = int(np.argmax(over))
        cur[j] -= 1
        if r:
            gone[r] = gone[r - 1]
        gone[r, j] += 1
    ok = np.flatnonzero(cls.judge(cls.C[a] - gone))
    return gone[ok[0]] if len(ok) else None


def best_eject(cls: Classes, a: int, homes: IntArray, q: NDArray[np.float64]
               ) -> tuple[float, int, list[tuple[int, int, int]]] | None:
    """``(added stars per repaired class, home, moves)``: rows ejected from violating class
    ``a`` (:func:`eject_set`) so that it satisfies the model, moved into the home class where
    that costs least among those that then satisfy the model or were violating already."""
    gone = eject_set(cls, a, q)
    if gone is None or len(homes) == 0:
        return None
    mem = cls.members
    moves: list[tuple[int, int, int]] = []
    ents = np.asarray(mem.of[a], dtype=np.int64)
    ents = ents[np.argsort(-mem.c[ents], kind="stable")]
    need = gone.copy()
    for e in ents.tolist():                                  # rows of the ejected keys
        k = int(mem.k[e])
        take = int(min(need[k], mem.c[e]))
        if take > 0:
            moves.append((e, a, take))
            need[k] -= take
    types = np.unique(mem.t[[m[0] for m in moves]])
    codes = mem.codes[types]                                 # (T, m)
    Vh = cls.V[homes]                                        # (H, m)
    differ = (Vh[:, None, :] != codes[None, :, :]).any(axis=1) | (Vh == STAR)
    stars = differ.sum(axis=1).astype(np.int64)
    rows = int(gone.sum())
    cost = cls.n[homes] * (stars - cls.P[homes]) + rows * (stars - int(cls.P[a]))
    after = cls.judge(cls.C[homes] + gone)
    was_bad = ~cls.ok[homes]
    allowed = after | was_bad
    if not allowed.any():
        return None
    eff = np.where(allowed, cost / (1.0 + (after & was_bad)), np.inf)
    i = int(np.argmin(eff))
    return float(eff[i]), int(homes[i]), moves
