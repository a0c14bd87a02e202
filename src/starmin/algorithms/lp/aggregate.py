"""Interchangeable pairs, merged: the exact MILP without their symmetry.

Two pairs ``p, p'`` (:mod:`.pairs`) are *interchangeable* for a set of output vectors
(:class:`.master.Blocks`) when the same vectors may receive them and their sensitive values
are equal (with no sensitive column: when the same vectors may receive them). Every
constraint of the row-type program (Liang & Yuan Thm 9; :mod:`.master`) reads a pair only
through its block's sums -- the class size ``sum_p x(b, p)``, the rows of each value
``x(b, u)`` -- and through ``x(b, p) <= c(p) y(b)``; the cost of a row is its vector's
stars. So swapping rows of ``p`` and ``p'`` between vectors maps solutions to solutions of
equal cost: branch and bound meets every such solution again (HiGHS reports these as
orbitopes). Merging each class of interchangeable pairs into one pair with the summed count
``c(P) = sum c(p)`` gives a program with the same optimum:

* a solution ``x`` of the original sums to one of the merged program (``x(b, P) <= c(P)
  y(b)`` since each part is at most ``c(p) y(b)``);
* a solution of the merged program splits back (:func:`split`) by filling each member's
  ``c(p)`` rows into the vectors in order; every block sum and every value count is
  unchanged, and a member gets rows of ``b`` only if ``x(b, P) > 0``, so ``y(b) = 1``.

Complexity ``O(X log X)`` for ``X`` variables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from starmin.algorithms.lp.master import Blocks
from starmin.algorithms.lp.pairs import IntArray, Pairs


@dataclass(frozen=True, eq=False)
class Merged:
    """The merged ``pairs`` and ``blocks``; ``class_of`` ``(P,)`` the merged pair of each
    original pair."""

    pairs: Pairs
    blocks: Blocks
    class_of: IntArray


def merge(pairs: Pairs, blocks: Blocks, value_of_key: IntArray | None) -> Merged:
    """Merge interchangeable pairs (module docstring). The merged pair keeps the type and
    key of its first member (its value is the class's). Every pair must have a vector (else
    the program has no solution, and merging would hide that): ``ValueError`` otherwise."""
    P = pairs.P
    order = np.lexsort((blocks.block_of, blocks.pair_of))
    po, bo = blocks.pair_of[order], blocks.block_of[order]
    heads = np.concatenate([[0], np.flatnonzero(np.diff(po)) + 1]).astype(np.int64)
    value = (value_of_key[pairs.key_of] if value_of_key is not None and len(value_of_key)
             else np.zeros(P, dtype=np.int64))
    seen: dict[tuple[int, bytes], int] = {}
    class_of = np.full(P, -1, dtype=np.int64)
    ends = np.append(heads[1:], len(po))
    for h, e in zip(heads.tolist(), ends.tolist(), strict=True):
        p = int(po[h])
        sig = (int(value[p]), bo[h:e].tobytes())
        class_of[p] = seen.setdefault(sig, len(seen))
    if (class_of < 0).any():
        raise ValueError("a pair no output vector receives: the program has no solution")
    C = len(seen)
    first = np.full(C, P, dtype=np.int64)
    live = np.arange(P)
    np.minimum.at(first, class_of[live], live)
    count = np.bincount(class_of[live], weights=pairs.count[live], minlength=C).astype(np.int64)
    merged = Pairs(pairs.type_of[first], pairs.key_of[first], count)
    # one x per (block, merged pair): keep each block's entries of a class's first member
    keepx = np.flatnonzero(first[class_of[blocks.pair_of]] == blocks.pair_of)
    mblocks = Blocks(blocks.vectors, blocks.stars, blocks.block_of[keepx],
                     class_of[blocks.pair_of[keepx]])
    return Merged(merged, mblocks, class_of)


def split(merged: Merged, pairs: Pairs, blocks: Blocks, x: np.ndarray) -> IntArray:
    """A solution ``x`` ``(X_merged,)`` of the merged program as one ``(X,)`` of the original
    (each member's rows filled into its class's vectors in block order)."""
    xm = np.rint(np.asarray(x, dtype=np.float64)).astype(np.int64)
    C = merged.pairs.P
    left: list[list[tuple[int, int]]] = [[] for _ in range(C)]  # (block, rows) to hand out
    for b, c, v in zip(merged.blocks.block_of.tolist(), merged.blocks.pair_of.tolist(),
                       xm.tolist(), strict=True):
        if v > 0:
            left[c].append((b, v))
    where = {(int(b), int(p)): i for i, (b, p) in
             enumerate(zip(blocks.block_of.tolist(), blocks.pair_of.tolist(), strict=True))}
    out = np.zeros(len(blocks.pair_of), dtype=np.int64)
    for p in range(pairs.P):
        need = int(pairs.count[p])
        queue = left[int(merged.class_of[p])]
        while need > 0 and queue:
            b, v = queue[0]
            take = min(v, need)
            out[where[(b, p)]] += take
            need -= take
            if take == v:
                queue.pop(0)
            else:
                queue[0] = (b, v - take)
    return out
