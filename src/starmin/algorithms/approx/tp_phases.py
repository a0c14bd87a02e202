"""The three phases of Xiao, Yi & Tao's TP algorithm on a ``(g, m)`` pillar-count matrix.

Guarantee: the residue set ``R`` (the tuples removed from the QI-groups) is l-eligible and
at most ``l`` times the fewest tuples any l-diverse generalization suppresses (Thm 3); optimal
when the run ends in phase one (Cor. 1), at most ``OPT + l - 1`` when it ends in phase two
(Cor. 3). Every QI-group keeps an l-eligible part.

Complexity: phase one is ``O(g * m log m)`` numpy work (``g`` QI-groups, ``m`` sensitive
values); phase two takes ``O(l log m)`` per removed tuple with the inverted lists of Sec. 5.5
(a per-value candidate list of alive groups, scanned once, and a heap on ``h(R, v)``);
phase three ``O(g * m)`` per round and at most ``h(R)`` rounds (Lemma 9), ``O(g * n)`` in
the worst case (Thm 4, with ``s = g`` QI-groups).

The paper leaves several choices arbitrary; here they are fixed so the run is deterministic,
and the paper's worked examples come out exactly as printed:

* phase two takes the least frequent alive SA value of ``R`` with the *smallest code*, from
  the alive QI-group with the *smallest index* holding it;
* phase three's greedy set cover breaks ties by the smallest group index, removes the
  chosen groups' pillars in pick order, restores groups in index order, and a fat group
  gives up its smallest SA value that is not a pillar of ``R``.

Notation follows the paper: ``g`` is the paper's ``s`` (QI-groups), ``m`` the number of
distinct SA values, ``h(Q, v)`` a pillar count, ``h(Q)`` the pillar height.

References
----------
X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity",
EDBT 2010: Sec. 5.2 (phase one, Lemma 4, Cor. 1-2), Sec. 5.3 (phase two, Lemmas 5-7,
Cor. 3-4, Thm 2), Sec. 5.4 (phase three, Lemmas 8-9, Thm 3), Sec. 5.5 (inverted lists, Thm 4).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Progress, silent
from starmin.errors import StarminError

Move = tuple[int, int, int]
"""``(phase, group, value)``: one tuple moved from a QI-group to ``R``."""


@dataclass
class TPRun:
    """The outcome of a run.

    Attributes
    ----------
    kept : ``(g, m)`` tuples each QI-group keeps (each row l-eligible).
    phase : the phase that ended the run (1, 2 or 3).
    residue_one : ``(m,)`` the residue set after phase one (the paper's R-dot).
    iterations : phase-two iterations.
    rounds : phase-three rounds.
    moves : every move in order, when traced.
    after_phase_one, after_phase_two : ``(kept, residue)`` snapshots, when traced.
    """

    kept: NDArray[np.int64]
    phase: int
    residue_one: NDArray[np.int64]
    iterations: int = 0
    rounds: int = 0
    moves: list[Move] | None = None
    after_phase_one: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
    after_phase_two: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
    removed: NDArray[np.int64] = field(default_factory=lambda: np.zeros((0, 0), np.int64))


def phase_one_heights(counts: NDArray[np.integer], l: int) -> NDArray[np.int64]:
    """``(g,)`` pillar height each QI-group keeps after phase one (Sec. 5.2).

    Removing tuples from the pillars until the group is l-eligible stops at full levels
    (all pillars lose a tuple before the height drops), so the group keeps
    ``min(h(Q, v), h*)`` of each value, with ``h*`` the largest ``h`` such that
    ``sum_v min(h(Q, v), h) >= l * h``. Writing ``tail_j`` for the tuples outside the ``j``
    largest pillars, that is ``h* = min(h(Q), min_{j < l} floor(tail_j / (l - j)))``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    g, m = counts.shape
    if g == 0:
        return np.zeros(0, dtype=np.int64)
    if m < l:  # fewer than l values: no non-empty subset is l-eligible
        return np.zeros(g, dtype=np.int64)
    k = l
    top = np.sort(counts if m <= 4 * l else np.partition(counts, m - k, axis=1)[:, m - k:],
                  axis=1)[:, ::-1][:, :k]                      # (g, k) largest first
    prefix = np.zeros((g, k), dtype=np.int64)
    np.cumsum(top[:, :-1], axis=1, out=prefix[:, 1:])          # tuples in the j largest
    tail = counts.sum(axis=1)[:, None] - prefix                # (g, k)
    denom = l - np.arange(k, dtype=np.int64)                   # l, l-1, ..., 1
    return np.minimum((tail // denom).min(axis=1), top[:, 0])


class _State:
    """QI-groups and residue set during phases two and three (Sec. 5.5's arrays).

    ``Q``, ``h`` and ``size`` are numpy arrays for the vectorized steps; the per-tuple hot
    path works on Python mirrors (``hl``, ``sl`` and the touched rows) and :meth:`sync`
    writes those back before any vectorized step.
    """

    def __init__(self, kept: NDArray[np.int64], residue: NDArray[np.int64], l: int,
                 trace: bool) -> None:
        self.Q = kept                                          # (g, m) h(Q_i, v)
        self.h = kept.max(axis=1) if kept.shape[1] else np.zeros(len(kept), np.int64)
        self.size = kept.sum(axis=1)
        self.hl: list[int] = self.h.tolist()                   # h(Q_i)
        self.sl: list[int] = self.size.tolist()                # |Q_i|
        self.rows: dict[int, list[int]] = {}                   # touched rows of Q
        self.dirty: set[int] = set()                           # rows not yet written back
        self.R: list[int] = [int(x) for x in residue]          # h(R, v)
        self.H = max(self.R) if self.R else 0                  # h(R)
        self.total = sum(self.R)                               # |R|
        self.l = l
        self.moves: list[Move] | None = [] if trace else None
        self.phase = 2

    def row(self, i: int) -> list[int]:
        r = self.rows.get(i)
        if r is None:
            r = self.rows[i] = self.Q[i].tolist()
        return r

    def sync(self) -> None:
        """Write the touched rows back to the numpy arrays."""
        if self.dirty:
            idx = np.fromiter(self.dirty, dtype=np.int64, count=len(self.dirty))
            self.Q[idx] = [self.rows[i] for i in self.dirty]
            self.h[idx] = [self.hl[i] for i in self.dirty]
            self.size[idx] = [self.sl[i] for i in self.dirty]
            self.dirty.clear()

    def eligible(self) -> bool:
        """Inequality (1): ``|R| >= l * h(R)``."""
        return self.total >= self.l * self.H

    def thin(self, i: int) -> bool:
        return self.sl[i] == self.l * self.hl[i]

    def pillars(self, i: int) -> list[int]:
        hh = self.hl[i]
        if hh == 0:
            return []
        return [u for u, c in enumerate(self.row(i)) if c == hh]

    def conflicting(self, i: int) -> bool:
        return any(self.R[u] == self.H for u in self.pillars(i))

    def move(self, i: int, v: int) -> None:
        """Move one tuple of SA value ``v`` from QI-group ``i`` to ``R``."""
        row = self.row(i)
        row[v] -= 1
        self.sl[i] -= 1
        self.dirty.add(i)
        hh = self.hl[i]
        if row[v] + 1 == hh and hh not in row:                 # the last pillar shrank
            self.hl[i] = hh - 1
        self.R[v] += 1
        self.total += 1
        if self.R[v] > self.H:
            self.H = self.R[v]
        if self.moves is not None:
            self.moves.append((self.phase, i, v))


def _candidates(st: _State, alive: NDArray[np.bool_]) -> list[list[int]]:
    """Per SA value, the alive QI-groups holding it, ascending (Sec. 5.5's candidate list)."""
    idx = np.flatnonzero(alive)
    vv, ii = np.nonzero(st.Q[idx].T)                           # value-major, groups ascending
    bounds = np.searchsorted(vv, np.arange(st.Q.shape[1] + 1))
    groups = idx[ii]
    return [groups[bounds[v]:bounds[v + 1]].tolist() for v in range(st.Q.shape[1])]


def _statuses(st: _State) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(g,)`` thin and conflicting masks, vectorized."""
    st.sync()
    h = st.h
    thin = st.size == st.l * h
    rpill = np.asarray(st.R) == st.H
    conflicting = ((h[:, None] == st.Q) & rpill[None, :]).any(axis=1) & (h > 0)
    return thin, conflicting


def phase_two(st: _State, progress: Progress = silent) -> int:
    """Sec. 5.3: raise ``|R|`` at fixed ``h(R)`` (Lemma 5). Returns the iterations run;
    ``progress`` hears their count (throttled)."""
    thin, conflicting = _statuses(st)
    dead = (thin & conflicting) | (st.size == 0)               # dead stays dead (Sec. 5.3)
    cand = _candidates(st, ~dead)
    ptr = [0] * len(cand)
    heap = [(st.R[v], v) for v in range(len(cand)) if cand[v]]
    heapq.heapify(heap)
    l, Q, h, size, hl, sl = st.l, st.Q, st.h, st.size, st.hl, st.sl
    iterations = 0
    meter = Meter(progress, "tp: phase two", "iterations",
                  note=lambda: f"{sum(st.R):,} tuples in R")
    while heap:
        meter.tick(iterations)
        r, v = heap[0]
        if r != st.R[v]:                                       # stale entry
            heapq.heappop(heap)
            continue
        lst, p = cand[v], ptr[v]
        while p < len(lst) and (dead[lst[p]] or (st.rows[lst[p]][v] if lst[p] in st.rows
                                                 else Q[lst[p], v]) == 0):
            p += 1
        ptr[v] = p
        if p == len(lst):                                      # v is no longer alive
            heapq.heappop(heap)
            continue
        i = lst[p]
        if sl[i] > l * hl[i]:                                  # fat: give one v
            if st.R[v] >= st.H:
                raise StarminError("TP phase two picked a pillar of R, contradicting "
                                   "Xiao et al. Lemma 5: report this as a bug")
            changed = [v]
        else:                                                  # thin, not conflicting
            changed = st.pillars(i)
        for u in changed:
            st.move(i, u)
        iterations += 1
        for u in changed:
            heapq.heappush(heap, (st.R[u], u))
            if st.R[u] == st.H:                                # u became a pillar of R
                js = np.asarray(cand[u][ptr[u]:], dtype=np.int64)
                st.sync()
                if len(js):
                    kill = (~dead[js]) & (h[js] > 0) & (Q[js, u] == h[js]) & (
                        size[js] == l * h[js])
                    dead[js[kill]] = True
        if (st.thin(i) and st.conflicting(i)) or sl[i] == 0:
            dead[i] = True
        if st.eligible():
            break
    st.sync()
    return iterations


def _greedy_cover(st: _State) -> list[int]:
    """Step one of a phase-three round: greedy SET COVER of R's pillars by the groups'
    non-conflicting pillar sets; picks the group minimizing ``|C(Q) & P|`` (Sec. 5.4)."""
    st.sync()
    live = np.flatnonzero(st.size > 0)
    P = np.asarray(st.R) == st.H                               # (m,) pillars of R
    pil = st.Q[live] == st.h[live][:, None]                    # (g_live, m) pillars of Q
    picked: list[int] = []
    while P.any():
        j = int(np.argmin((pil & P).sum(axis=1)))              # first minimum: smallest index
        picked.append(int(live[j]))
        P &= pil[j]
    return picked


def _restore(st: _State, i: int) -> bool:
    """Step two for one group: remove tuples until it is dead again. True if R became
    l-eligible."""
    row = st.row(i)
    while st.sl[i] > 0:
        if st.sl[i] > st.l * st.hl[i]:                         # fat
            u = next((u for u, c in enumerate(row) if c > 0 and st.R[u] < st.H), None)
            if u is None:
                raise StarminError("TP phase three found a fat group with only pillars of R "
                                   "although R is not l-eligible: report this as a bug")
            st.move(i, u)
        else:
            pil = st.pillars(i)
            if any(st.R[u] == st.H for u in pil):              # thin and conflicting: dead
                return False
            for u in pil:
                st.move(i, u)
        if st.eligible():
            return True
    return False


def phase_three(st: _State, max_rounds: int, progress: Progress = silent) -> int:
    """Sec. 5.4: rounds of greedy set cover then restoration. Returns the rounds run;
    ``progress`` hears the groups restored (throttled)."""
    st.phase = 3
    rounds = restored = 0
    meter = Meter(progress, "tp: phase three", "groups restored",
                  note=lambda: f"round {rounds:,} of at most {max_rounds:,}")
    while not st.eligible():
        rounds += 1
        if rounds > max_rounds:
            raise StarminError("TP phase three exceeded the round bound of Xiao et al. "
                               "Lemma 9: report this as a bug")
        for i in _greedy_cover(st):
            for u in st.pillars(i):
                st.move(i, u)
            if st.eligible():
                return rounds
        thin, conflicting = _statuses(st)
        for j in np.flatnonzero((st.size > 0) & ~(thin & conflicting)).tolist():
            if _restore(st, j):
                return rounds
            restored += 1
            meter.tick(restored)
    return rounds


def run(counts: NDArray[np.integer], l: int, trace: bool = False,
        progress: Progress = silent) -> TPRun:
    """Run TP on ``counts`` (``(g, m)``: tuples per QI-group and SA value) for integer
    ``l >= 1``. The caller checks that the whole table is l-eligible (Lemma 1). ``progress``
    hears a line per phase and throttled counts within phases two and three."""
    counts = np.asarray(counts, dtype=np.int64)
    # Phase one (Sec. 5.2): cap every group at its pillar height h*.  (g, m)
    hstar = phase_one_heights(counts, l)
    kept = np.minimum(counts, hstar[:, None])
    residue_one = (counts - kept).sum(axis=0)
    st = _State(kept.copy(), residue_one, l, trace)
    out = TPRun(kept=kept, phase=1, residue_one=residue_one, moves=st.moves)
    if trace:
        out.after_phase_one = (kept.copy(), residue_one.copy())
    if not st.eligible():
        progress(f"tp: phase one left {int(residue_one.sum()):,} tuples in R; phase two")
        out.iterations = phase_two(st, progress)
        out.phase = 2
        if trace:
            out.after_phase_two = (st.Q.copy(), np.asarray(st.R, dtype=np.int64))
        if not st.eligible():
            progress(f"tp: phase two made {out.iterations:,} iterations; phase three")
            out.rounds = phase_three(st, max_rounds=int(residue_one.max()) + 1,
                                     progress=progress)
            out.phase = 3
    st.sync()
    out.kept = st.Q
    out.removed = counts - st.Q
    return out
