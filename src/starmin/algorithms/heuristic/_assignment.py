"""The working state of :mod:`.pattern_packing`: rows of row types assigned to classes.

A class is a bucket ``(mask, key)`` (see :mod:`.pattern_keys`): rows of any row type whose
projection outside ``mask`` has that key may join it, and each pays ``popcount(mask)`` stars.
Rows of one row type may be spread over several classes (Bredereck et al., Sec. 4: only counts
per row type matter); rows not yet placed are counted in ``free``.

Invariant kept by the callers between steps: every class holds 0 or >= ``k`` rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys, mask_vector
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import STAR, Guarantee, ReleasePlan


class Assignment:
    """Classes, their members, and the free rows of each row type."""

    def __init__(self, keys: PatternKeys, n: IntArray, k: int) -> None:
        self.keys = keys
        self.n = np.asarray(n, dtype=np.int64)
        self.k = int(k)
        self.t, self.m = keys.t, keys.m
        self.free = self.n.copy()                      # (t_in,) rows not yet in a class
        self.mask: list[int] = []                      # per class: starred columns
        self.key: list[int] = []                       # per class: projection key
        self.size: list[int] = []                      # per class: rows
        self.members: list[dict[int, int]] = []        # per class: row type -> rows
        self.index: dict[tuple[int, int], int] = {}    # (mask, key) -> class
        self.by_mask: dict[int, list[int]] = {}        # mask -> classes
        self.pieces: dict[int, dict[int, int]] = {}    # row type -> {class: rows}

    # -- basic operations ------------------------------------------------------------------
    def open(self, mask: int, key: int) -> int:
        """The class of bucket ``(mask, key)``, created empty if new."""
        cid = self.index.get((mask, key))
        if cid is None:
            cid = len(self.mask)
            self.index[(mask, key)] = cid
            self.by_mask.setdefault(mask, []).append(cid)
            self.mask.append(mask)
            self.key.append(key)
            self.size.append(0)
            self.members.append({})
        return cid

    def move(self, x: int, src: int | None, dst: int | None, rows: int) -> None:
        """Move ``rows`` rows of row type ``x`` from class ``src`` to ``dst`` (None: free)."""
        if rows <= 0:
            return
        if src is None:
            self.free[x] -= rows
        else:
            self._remove(x, src, rows)
        if dst is None:
            self.free[x] += rows
        else:
            p = self.pieces.setdefault(x, {})
            p[dst] = p.get(dst, 0) + rows
            mem = self.members[dst]
            mem[x] = mem.get(x, 0) + rows
            self.size[dst] += rows

    def _remove(self, x: int, cid: int, rows: int) -> None:
        p = self.pieces[x]
        p[cid] -= rows
        if p[cid] == 0:
            del p[cid]
        mem = self.members[cid]
        mem[x] -= rows
        if mem[x] == 0:
            del mem[x]
        self.size[cid] -= rows

    def level(self, cid: int) -> int:
        """Stars per row of class ``cid``."""
        return int(self.mask[cid]).bit_count()

    @staticmethod
    def level_of_mask(mask: int) -> int:
        """Stars per row of a pattern."""
        return int(mask).bit_count()

    def live(self, mask: int) -> tuple[IntArray, IntArray]:
        """``(keys, classes)`` of the non-empty classes with this pattern, sorted by key."""
        cids = [c for c in self.by_mask.get(mask, ()) if self.size[c] > 0]
        keys = np.array([self.key[c] for c in cids], dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        return keys[order], np.array(cids, dtype=np.int64)[order]

    @property
    def stars(self) -> int:
        """Current cost: sum over classes of size x pattern size (free rows excluded)."""
        return sum(s * int(mk).bit_count() for mk, s in zip(self.mask, self.size, strict=True))

    def check(self) -> None:
        """Raise ``AssertionError`` if an invariant is broken (for tests)."""
        placed = np.zeros(self.t, dtype=np.int64)
        for cid, mem in enumerate(self.members):
            assert self.size[cid] == sum(mem.values())
            assert self.size[cid] == 0 or self.size[cid] >= self.k, (cid, self.size[cid])
            if mem:
                xs = np.fromiter(mem, dtype=np.int64)
                assert (self.keys.keys(self.mask[cid], xs) == self.key[cid]).all()
                np.add.at(placed, xs, np.fromiter(mem.values(), dtype=np.int64))
        assert (placed + self.free == self.n).all()

    # -- output ----------------------------------------------------------------------------
    def to_plan(self, rt: RowTypes, method: str, guarantee: Guarantee,
                lower_bound: int | None, certificate: Mapping[str, Any]) -> ReleasePlan:
        """The release: each class's suppressor (a star only where its members differ, so
        never more stars than its pattern), equal suppressors merged into one class."""
        if (self.free != 0).any():
            raise RuntimeError("internal error: rows left unassigned")
        keep, ptype, pcls, pcnt = self._pieces_by_type()
        vectors = self._suppressors(keep, ptype, pcls)
        uniq, inv = np.unique(vectors, axis=0, return_inverse=True)
        inv = np.asarray(inv, dtype=np.int64).reshape(-1)
        seg_piece, seg_type, seg_key, seg_cnt = _split_keys(rt, ptype, pcnt)
        plan = ReleasePlan(uniq.astype(np.int32), inv[pcls[seg_piece]], seg_type, seg_key,
                           seg_cnt, method, guarantee, lower_bound, dict(certificate))
        return plan.compact()

    def _pieces_by_type(self) -> tuple[list[int], IntArray, IntArray, IntArray]:
        """The non-empty classes and ``(type, class, rows)`` of every piece, sorted by row
        type; classes renumbered to their position among the non-empty ones."""
        keep = [c for c in range(len(self.size)) if self.size[c] > 0]
        renum = {c: i for i, c in enumerate(keep)}
        ptype = np.fromiter((x for c in keep for x in self.members[c]), dtype=np.int64)
        pcls = np.fromiter((renum[c] for c in keep for _ in self.members[c]), dtype=np.int64)
        pcnt = np.fromiter((v for c in keep for v in self.members[c].values()), dtype=np.int64)
        order = np.lexsort((pcls, ptype))
        return keep, ptype[order], pcls[order], pcnt[order]

    def _suppressors(self, keep: list[int], ptype: IntArray, pcls: IntArray
                     ) -> NDArray[np.int64]:
        """``(g, m)`` output vector of each kept class: its members' common value or STAR."""
        g = len(keep)
        codes = self.keys.codes[ptype]
        order = np.argsort(pcls, kind="stable")
        c_sorted = codes[order]
        starts = np.searchsorted(pcls[order], np.arange(g))
        lo = np.minimum.reduceat(c_sorted, starts, axis=0)
        hi = np.maximum.reduceat(c_sorted, starts, axis=0)
        vec = np.where(lo == hi, lo, STAR)
        masks = np.array([mask_vector(self.mask[c], self.m) for c in keep], dtype=bool)
        assert not (~masks & (vec == STAR)).any(), "a class's members differ outside its pattern"
        return vec.astype(np.int64)


def _split_keys(rt: RowTypes, ptype: IntArray, pcnt: IntArray
                ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Hand each row type's (sensitive key) cells to its pieces in order.

    Pieces (sorted by type) and non-zero cells (row-major, so sorted by type) both tile the
    rows ``0..n-1`` type after type; cutting at the union of their ends gives segments that
    lie in one piece and one cell. Returns ``(piece, type, key, rows)`` per segment.
    """
    c_type, c_key = np.nonzero(rt.counts)
    c_cnt = rt.counts[c_type, c_key]
    p_end = np.cumsum(pcnt)
    c_end = np.cumsum(c_cnt)
    cuts = np.union1d(p_end, c_end)
    starts = np.concatenate([[0], cuts[:-1]])
    piece = np.searchsorted(p_end, starts, side="right")
    cell = np.searchsorted(c_end, starts, side="right")
    assert (ptype[piece] == c_type[cell]).all()
    return piece, c_type[cell].astype(np.int64), c_key[cell].astype(np.int64), np.diff(
        np.concatenate([[0], cuts]))
