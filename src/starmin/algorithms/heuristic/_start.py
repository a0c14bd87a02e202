"""The start of :mod:`.merge_repair`: its class size, and plans to start from.

* :func:`start_size` -- the class size the start aims at.
* :func:`copies` -- rows per row type (the median), which scales it for t-closeness.
* :func:`row_type_plan` -- every row type a class of its own.
* :func:`spread_keys` -- a plan whose split row types spread their sensitive keys evenly over
  their classes (the vectors are unchanged, so are the stars).
"""

from __future__ import annotations

import numpy as np

from starmin.algorithms.heuristic._merge_state import Judge
from starmin.algorithms.ragged import ragged_arange
from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k
from starmin.transform.plan import Guarantee, ReleasePlan


def start_size(model: PrivacyModel, rt: RowTypes, judge: Judge) -> int:
    """The class size the start aims at: the model's implied ``k``
    (:func:`starmin.models.combine.implied_k`), or more when the smallest class shaped like
    the whole table that satisfies the model is larger -- for ``n = 1, 2, ...`` the counts ``n q``
    (``q`` the table's distribution over sensitive keys) rounded by largest remainders."""

    q = rt.counts.sum(axis=0) / max(rt.n, 1)
    sizes = np.arange(1, min(rt.n, 4096) + 1)
    ideal = sizes[:, None] * q[None, :]                                  # (N, s)
    hist = np.floor(ideal).astype(np.int64)
    short = sizes - hist.sum(axis=1)                                     # rows still to place
    rank = np.argsort(np.argsort(-(ideal - hist), axis=1, kind="stable"), axis=1)
    hist += rank < short[:, None]
    ok = np.flatnonzero(judge(hist))
    shaped = int(sizes[ok[0]]) if len(ok) else 1
    return max(implied_k(model), shaped)


def copies(rt: RowTypes) -> int:
    """The median number of rows of a row type (at least 1): how many copies of each row a
    table holds, e.g. 1 on ARX adult, 33 on adult repeated to a million rows."""
    return max(1, int(np.median(rt.sizes))) if rt.t_in else 1


def row_type_plan(rt: RowTypes, method: str, guarantee: Guarantee) -> ReleasePlan:
    """Every row type released unchanged (row types with equal vectors are one class)."""
    uniq, inv = np.unique(rt.codes, axis=0, return_inverse=True)
    t_idx, k_idx = np.nonzero(rt.counts)
    return ReleasePlan(uniq, np.asarray(inv).reshape(-1)[t_idx], t_idx, k_idx,
                       rt.counts[t_idx, k_idx], method, guarantee)


def spread_keys(rt: RowTypes, plan: ReleasePlan) -> ReleasePlan:
    """``plan`` with the rows of every row type that several classes share dealt out so that
    each class gets about the type's own mix of sensitive keys.

    The rows of such a type are laid out key by key at positions ``(i + 1/2) / c_j`` (``c_j``
    rows of key ``j``), sorted, and cut into the classes' shares in class order: each class
    then holds within one row of its proportional share of every key. ``O(r log r)`` for the
    ``r`` rows of split types (every other entry is kept)."""
    t_in = rt.t_in
    pkey = plan.out_idx * t_in + plan.type_idx
    pieces, p_of = np.unique(pkey, return_inverse=True)                  # (out, type) pairs
    p_size = np.bincount(p_of.reshape(-1), weights=plan.count).astype(np.int64)
    p_type = pieces % t_in
    n_pieces = np.bincount(p_type, minlength=t_in)
    split = n_pieces[plan.type_idx] > 1
    if not split.any():
        return plan
    keep = ~split
    xs = np.flatnonzero(n_pieces > 1)                                    # split types
    t_idx, k_idx = np.nonzero(rt.counts[xs])
    c = rt.counts[xs][t_idx, k_idx]
    row_t = np.repeat(xs[t_idx], c)                                      # (r,) one per row
    row_k = np.repeat(k_idx, c)
    pos = (ragged_arange(c) + 0.5) / np.repeat(c, c)
    order = np.lexsort((row_k, pos, row_t))
    row_t, row_k = row_t[order], row_k[order]
    sp = np.flatnonzero(n_pieces[p_type] > 1)                            # pieces of split types
    sp = sp[np.lexsort((pieces[sp] // t_in, p_type[sp]))]                # by type, then class
    ends = np.cumsum(p_size[sp])                                         # aligned with rows
    row_piece = sp[np.searchsorted(ends, np.arange(len(row_t)), side="right")]
    cell, cnt = np.unique(row_piece * rt.s + row_k, return_counts=True)
    piece, key = cell // rt.s, cell % rt.s
    return ReleasePlan(plan.outputs,
                       np.concatenate([plan.out_idx[keep], pieces[piece] // t_in]),
                       np.concatenate([plan.type_idx[keep], pieces[piece] % t_in]),
                       np.concatenate([plan.key_idx[keep], key]),
                       np.concatenate([plan.count[keep], cnt]),
                       plan.method, plan.guarantee).compact()
