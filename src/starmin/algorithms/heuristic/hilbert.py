"""Hilbert: Ghinita et al.'s space-filling-curve heuristic for frequency l-diversity.

Guarantee: **heuristic** -- no bound on the number of stars (Xiao et al. use it as the
baseline of Sec. 6.1); the output is l-diverse and is verified like any other.
``plan.lower_bound`` is Xiao et al.'s bound ``max(|R1|, l * h(R1))`` (Cor. 1's proof,
Cor. 2), which holds for every instance.

Method. Row types are sorted by their Hilbert index in the QI code space (Skilling's
algorithm, ``bits = ceil(log2(largest cardinality))``; codes follow the values' natural
order, so nearby codes are nearby values). The order is then cut into l-eligible groups by
one of two cuts (:mod:`starmin.algorithms.heuristic.hilbert_cut`): ``cut="buckets"`` (the
default: each group takes the next tuple of every value the rest of the table cannot spare,
then of the values coming first in the order, so the rest stays l-eligible) or
``cut="greedy"`` (Ghinita et al.'s running group, cut once it is l-eligible). Each group is
released as its suppressor; groups with equal suppressors form one class, which stays
l-eligible by Lemma 1.

Complexity: ``O(t_in * m * b)`` for the Hilbert index (``m`` QI columns), ``O(t_in log
t_in)`` for the sort, and ``O((batches + nnz) log s)`` Python steps for the cut (``nnz``
non-zero (row type, value) counts, ``s`` sensitive values).

References
----------
G. Ghinita, P. Karras, P. Kalnis and N. Mamoulis, "Fast data anonymization with low
information loss", VLDB 2007 (Hilbert order, greedy 1-d partitioning).
X. Xiao and Y. Tao, "Anatomy", VLDB 2006 (the l largest buckets keep the rest l-eligible).
J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc. 707, 2004 (the index).
X. Xiao, K. Yi and Y. Tao, EDBT 2010, Sec. 6.1 (Hilbert as baseline), Lemma 1, Lemma 4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx.tp import require_l, support_reason
from starmin.algorithms.base import Algorithm, Progress, fixed_work, known_options, silent
from starmin.algorithms.heuristic.hilbert_cut import Entries, bucket_cut, greedy_cut
from starmin.algorithms.l_diversity_bound import frequency_tuple_bound
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.base import PrivacyModel
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

NAME = "hilbert"
OPTIONS = ("cut",)
"""The options :func:`solve` takes."""
GUARANTEE = Guarantee(
    kind="heuristic",
    statement="no bound on stars; l-eligible groups cut from the Hilbert order",
    reference="Ghinita et al., VLDB 2007; Xiao & Tao, VLDB 2006 (Anatomy); baseline of "
              "Xiao, Yi & Tao, EDBT 2010, Sec. 6.1",
)



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


# -- grouping -----------------------------------------------------------------------------------
CUTS = {"buckets": bucket_cut, "greedy": greedy_cut}


def hilbert_groups(codes: NDArray[np.integer], counts: NDArray[np.integer],
                   cardinalities: tuple[int, ...] | list[int], l: int, cut: str = "buckets"
                   ) -> Entries:
    """Cut row types ``(T, d)`` codes with ``(T, s)`` counts into l-eligible groups.

    Returns ``(group, type_idx, key_idx, count)`` entries, ``type_idx`` indexing ``codes``.
    The counts must be l-eligible as a whole. ``cut`` is ``"buckets"`` or ``"greedy"``
    (:mod:`starmin.algorithms.heuristic.hilbert_cut`)."""
    if cut not in CUTS:
        raise InvalidInput(f"unknown Hilbert cut {cut!r}: use one of {', '.join(CUTS)}")
    c64: NDArray[np.int64] = np.asarray(counts, dtype=np.int64)
    return CUTS[cut](hilbert_order(codes, cardinalities), c64, l)


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


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """Hilbert release of ``rt`` under frequency l-diversity (heuristic; see module doc).

    Options: ``cut="buckets"`` (default) or ``"greedy"``. ``seed`` is unused: the order and
    the cut are deterministic."""
    known_options(NAME, options, set(OPTIONS))
    progress = progress or silent
    l = require_l(model, rt, NAME)
    cut = str(options.get("cut", "buckets"))
    progress(f"hilbert: ordering {rt.t_in} row types, {cut} cut")
    entries = hilbert_groups(rt.codes, rt.counts, rt.cardinalities, l, cut)
    groups = int(entries[0].max()) + 1 if len(entries[0]) else 0
    return plan_from_entries(rt, entries, NAME, GUARANTEE, frequency_tuple_bound(rt.counts, l),
                             {"l": l, "cut": cut, "groups": groups})


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """None for frequency l-diversity with a whole ``l`` and one sensitive column."""
    return support_reason(model, rt, NAME)


def auto_work(model: PrivacyModel, rt: RowTypes) -> float:
    """Estimated work units for ``--method auto``: the Hilbert index and the cut,
    ``1e-6 x t_in x (m + s)`` (adult, 8 QIs, occupation: 0.27, measured 0.2-0.3 CPU s)."""
    return 1e-6 * rt.t_in * (rt.m + max(rt.s, 1))

ALGORITHM = Algorithm(
    name=NAME,
    summary="Hilbert-curve order cut greedily into l-eligible groups (Ghinita et al.)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=fixed_work(auto_work),
    options=OPTIONS,
)
