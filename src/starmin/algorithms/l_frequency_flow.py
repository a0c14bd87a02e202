"""The level flow bound for frequency l-diversity, weighed by one value (``l_value_flow``).

Guarantee: **bound** -- the value is at most the optimum (tested against brute force), and
at least Xiao, Yi & Tao's ``l * h(R1)`` term weighed by levels for the same value
(:func:`starmin.algorithms.l_diversity_bound.frequency_tuple_bound`).

Argument. A class ``C`` with ``s`` stars holds at most ``|C| / l`` rows of a value ``u``, so
``s |C| >= l s x_u(C)``; summed over the classes, the stars of a release are at least ``l``
times ``W_u``, the stars its rows of value ``u`` carry (Xiao et al., proof of Cor. 1). ``W_u =
sum_{j=0}^{m-1} (n_u - A_j)`` with ``A_j`` the rows of value ``u`` carrying at most ``j``
stars, and ``A_j`` is bounded as in the t-closeness level flow
(:mod:`starmin.algorithms.t_level_flow`, which holds the flow and the proof of the network):
for a star set ``S`` and a bucket ``B`` of ``S`` (the rows agreeing outside ``S``), the
classes whose star set lies within ``S`` and which meet ``B`` lie inside ``B``, and their union
``U`` is l-eligible (frequency l-diversity is closed under union; Xiao et al. Lemma 1). With
``M`` the largest count of one value in ``U``, ``sum_w min(c_w(B), M) >= sum_w U_w >= l M``,
so ``M`` is at most ``B``'s phase-one height ``h*(B)`` (the feasible heights are an interval
from 0, Sec. 5.2; :func:`starmin.algorithms.approx.tp_phases.phase_one_heights`). So ``U``
holds at most ``cap(B) = min(c_u(B), h*(B))`` rows of ``u``, and ``A_j`` is at most the
maximum flow from the row types (their rows of ``u``) to the level-``j`` buckets with these
capacities. Level 0 (the row types themselves) gives the rows of ``u`` above the row types'
phase-one heights, as in Xiao et al.'s ``R1``; a row type whose level-``j`` buckets all hold
fewer than ``l`` distinct values has ``h* = 0`` there, so each level's flow is at most the
count the levels give: when every level is enumerated, the bound is at least ``l`` times the
levels-weighted ``w_u`` (the report takes the largest bound in any case).

The value ``u`` is the one whose leaving rows carry the most stars by the levels (the
maximizer of ``l * h(R1)``'s weighed form); one flow per level for that value only.

Work limits: the patterns of each level are enumerated while they fit in ``max_patterns``
(levels not computed contribute 0), the flow keeps at most ``t_level_flow.MAX_FLOW_ARCS``
arcs per level (over it, the cut at the source); no clock is read.

Complexity: per level ``j``, ``C(m, j)`` groupings of the ``t_in`` row types, their bucket
histograms ``O(t_in r)`` and phase-one heights, and one maximum flow
(:class:`starmin.algorithms.t_level_flow.LevelFlow`).

References: X. Xiao, K. Yi and Y. Tao, EDBT 2010, Lemma 1, Sec. 5.2, Cor. 1 and 2.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.algorithms.t_level_flow import LevelFlow, level_flow_bound

IntArray = NDArray[np.int64]

MAX_PATTERNS = 4096
"""Patterns enumerated at most (every pattern of up to 12 QI columns)."""


def value_flow_bound(codes: NDArray[np.integer], counts: NDArray[np.integer], l: int,
                     u: int, *, max_patterns: int = MAX_PATTERNS) -> int:
    """``l * W_u`` (module doc) for the ``(t_in, r)`` histogram ``counts`` of one sensitive
    column and its value index ``u``."""
    hist: IntArray = np.asarray(counts, dtype=np.int64)
    t_in, r = hist.shape
    n: IntArray = hist[:, u]
    N = int(n.sum())
    if N == 0 or l <= 1:
        return 0
    keys = PatternKeys(codes)
    m = keys.m
    flows: list[int] = []
    used = 0
    for j in range(m):  # level m (every column starred) adds no term
        masks = [0] if j == 0 else masks_of_level(m, j)
        if used + len(masks) > max_patterns:
            break
        used += len(masks)
        level = LevelFlow(n)
        for mask in masks:
            if j == 0:
                inv = np.arange(t_in, dtype=np.int64)
                bucket = hist
            else:
                _, inv = np.unique(keys.keys(mask), return_inverse=True)
                inv = np.asarray(inv, dtype=np.int64).reshape(-1)
                nb = int(inv.max()) + 1
                flat = (inv[:, None] * r + np.arange(r)).reshape(-1)
                bucket = np.bincount(flat, weights=hist.reshape(-1),
                                     minlength=nb * r).reshape(nb, r).astype(np.int64)
            cap = np.minimum(bucket[:, u], phase_one_heights(bucket, l))
            level.add(inv, cap, bucket[:, u])
        flows.append(level.value())
        if flows[-1] >= N:
            break
    return l * level_flow_bound(N, flows)


def heaviest_value(leave: IntArray, lev: IntArray | None) -> int:
    """The value whose leaving rows (``(t_in, r)`` :func:`.l_diversity_bound.leaving_rows`)
    carry the most stars by the levels ``lev`` (one per row without them); ties: the first."""
    w = leave.sum(axis=0) if lev is None else lev @ leave
    return int(np.argmax(w)) if w.size else 0

