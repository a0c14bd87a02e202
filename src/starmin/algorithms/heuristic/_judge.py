"""The model verdict of :mod:`.merge_repair`, compiled once per table.

Merge-repair judges classes tens of thousands of times, most calls on one to a few classes.
:func:`starmin.models.apply.holds` rebuilds, on every call, the projection of the key counts
onto each sensitive column, checks the inputs, finds the values present in the table and, for
t-closeness, the ground distance's matrices. Here all of that is done once:

* the projection of the ``(g, s)`` key counts onto each sensitive column is a fixed 0/1
  matrix (none when the keys are the values of a single column);
* t-closeness with the equal, ordered or hierarchical distance (Li et al. ICDE 2007, Sec. 4;
  Liang & Yuan Sec. 2.1) keeps the table's present values, ``N``, the value ranks or the
  hierarchy's node matrices, and decides ``EMD <= t`` by the same integer comparison as
  :func:`starmin.models.t_closeness.emd_exact` (``num * t.den <= n N scale * t.num`` with
  ``D_i = c_i N - C_i n``); when the products could overflow int64 it calls the model itself
  (exact Python integers);
* k-anonymity is ``n >= k``; a conjunction is the conjunction of its compiled parts;
* every other model is judged by its own ``evaluate``.

The verdicts are identical to :func:`.merge_repair.make_judge`'s generic form (tests pin them
on random inputs), so releases do not change; only the time per call does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.data.rowtypes import RowTypes
from starmin.models._params import INT64_SAFE
from starmin.models.base import PrivacyModel

Verdict = Callable[[IntArray], NDArray[np.bool_]]
"""``(g, |S_a|)`` histograms of one sensitive column -> ``(g,)`` verdicts."""


def compile_judge(model: PrivacyModel, rt: RowTypes) -> Judge:
    """``(g, s)`` key counts -> ``(g,)`` bool: every sensitive column's histogram satisfies
    ``model`` (empty classes pass), as :func:`.merge_repair.make_judge`'s generic form."""
    overall = [tot[0] for tot in rt.sensitive_histograms(rt.counts.sum(axis=0))]
    values = rt.sensitive_values()
    verdicts = [_compile(model, o, vals) for o, vals in zip(overall, values, strict=True)]
    projs = _projections(rt)

    def judge(key_counts: IntArray) -> NDArray[np.bool_]:
        kc = np.asarray(key_counts, dtype=np.int64)
        if kc.ndim == 1:
            kc = kc[None, :]
        size = kc.sum(axis=1)
        ok = size == 0
        if projs is None:
            return ok | verdicts[0](kc)
        good = np.ones(len(kc), dtype=bool)
        for proj, verdict in zip(projs, verdicts, strict=True):
            good &= verdict(kc if proj is None else kc @ proj)
        return ok | good

    return judge


def _projections(rt: RowTypes) -> list[IntArray | None] | None:
    """Per sensitive column the ``(s, |S_a|)`` projection of key counts (``None``: the
    identity); ``None`` overall when the only column's values are the keys."""
    if not rt.sensitive:
        return [np.ones((rt.s, 1), dtype=np.int64)]
    if len(rt.sensitive) == 1 and np.array_equal(rt.keys[:, 0],
                                                 np.arange(rt.s, dtype=np.int32)):
        return None
    out: list[IntArray | None] = []
    for a, dom in enumerate(rt.sensitive_domains):
        proj = np.zeros((rt.s, len(dom)), dtype=np.int64)
        proj[np.arange(rt.s), rt.keys[:, a]] = 1
        out.append(proj)
    return out


def _compile(model: PrivacyModel, overall: IntArray, values: Sequence[object]) -> Verdict:
    """The verdict of ``model`` on one sensitive column (table histogram ``overall``)."""
    from starmin.models.combine import AllOf
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.t_closeness import TCloseness

    o = np.asarray(overall, dtype=np.int64).reshape(-1)
    if isinstance(model, AllOf):
        parts = [_compile(p, o, values) for p in model.models]

        def every(h: IntArray) -> NDArray[np.bool_]:
            ok = parts[0](h)
            for p in parts[1:]:
                ok &= p(h)
            return ok

        return every
    if isinstance(model, KAnonymity):
        k = int(model.k)
        return lambda h: h.sum(axis=1) >= k
    if isinstance(model, TCloseness):
        fast = _t_closeness(model, o, values)
        if fast is not None:
            return fast

    def generic(h: IntArray) -> NDArray[np.bool_]:
        return np.asarray(model.evaluate(h, o, values).ok, dtype=bool)

    return generic


def _t_closeness(model: object, o: IntArray, values: Sequence[object]) -> Verdict | None:
    """t-closeness with the equal, ordered or hierarchical distance as in
    :func:`starmin.models.t_closeness.emd_exact` (``None`` for a matrix distance)."""
    from starmin.models.distances import EqualDistance, HierarchicalDistance, OrderedDistance
    from starmin.models.t_closeness import TCloseness

    assert isinstance(model, TCloseness)
    dist = model.distance
    if not isinstance(dist, EqualDistance | OrderedDistance | HierarchicalDistance):
        return None
    keep = o > 0
    idx = np.flatnonzero(keep)
    vals = [v for v, k in zip(values, keep.tolist(), strict=True) if k]
    ov = o[idx]
    N = int(ov.sum())
    t = model.t_exact
    order = getattr(dist, "order", None) or ()
    scale_max = max(len(vals), len(order), getattr(dist, "height", 0), 2)
    per_row = max(N, 1) * scale_max * max(t.numerator, t.denominator)
    numerators = dist.prepare(vals)
    all_kept = bool(keep.all())

    def verdict(h: IntArray) -> NDArray[np.bool_]:
        n = h.sum(axis=1)
        if len(n) == 0:
            return np.zeros(0, dtype=bool)
        if int(n.max()) * per_row >= INT64_SAFE:   # exact Python integers: the model itself
            return np.asarray(model.evaluate(h, o, values).ok, dtype=bool)
        hk = h if all_kept else h[:, idx]
        D = hk * N - np.multiply.outer(n, ov)
        num, scale = numerators(D)
        return (num * t.denominator <= n * (N * scale) * t.numerator) | (n == 0)

    return verdict
