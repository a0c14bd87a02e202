"""The compact distributions the HTML report plots, from the release plan and the row types.

The plan and the row types are the released table and the input aggregated: every released
row is a row of some output vector, so class sizes, stars per row and released value counts
are sums over the plan's ``(output, row type, sensitive key, count)`` entries, and the input's
value counts are sums over the row types -- no pass over the ``n`` rows, and the same numbers
a pass over the tables gives (tests/report/test_distributions.py checks them against the
released table). Equal output vectors are merged first: they are one class to an attacker.

Per-class sensitive measures (each class's EMD to the table for t-closeness, its effective l
for l-diversity, ...) come from the models' own ``evaluate`` on the classes' sensitive
histograms, built in chunks of at most :data:`CHUNK_CELLS` cells. For t-closeness under a
matrix distance that is one small LP per distinct class distribution, as in the verifier.

Everything is bounded for the JSON file and the HTML: at most :data:`MAX_BINS` bins per
histogram and :data:`MAX_VALUES` values per QI column (the most frequent in the input, in the
column's sort order) plus "other" and the stars.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts
from starmin.report.record import Distributions, Histogram, MeasureDistribution, ValueCounts
from starmin.transform.plan import STAR, ReleasePlan, unique_rows

MAX_BINS = 30
"""Bins per histogram (class sizes, per-class measures)."""
MAX_VALUES = 15
"""Values shown per QI column in the before/after view; the rest are summed as "other"."""
CHUNK_CELLS = 2_000_000
"""Cells of one chunk of class-by-sensitive-value histograms."""


def distributions(rt: RowTypes, plan: ReleasePlan, model: PrivacyModel) -> Distributions:
    """The plot data of a release (see the module docstring)."""
    outputs, out_idx = _merged(plan)
    sizes = np.bincount(out_idx, weights=plan.count, minlength=len(outputs)).astype(np.int64)
    keep = sizes > 0
    if not keep.all():  # an output vector no row went to is no class
        new = np.cumsum(keep) - 1
        outputs, sizes, out_idx = outputs[keep], sizes[keep], new[out_idx]
    per_row = (outputs == STAR).sum(axis=1)
    stars_per_record = np.bincount(per_row, weights=sizes, minlength=rt.m + 1).astype(np.int64)
    return Distributions(
        class_sizes=integer_histogram(sizes),
        k=implied_k(model),
        stars_per_record=tuple(int(v) for v in stars_per_record),
        sensitive=_measures(rt, plan, out_idx, len(outputs), model),
        columns=tuple(_values(rt, outputs, sizes, j) for j in range(rt.m)),
    )


def _merged(plan: ReleasePlan) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """The distinct output vectors and each plan entry's index among them."""
    if plan.t_out == 0:
        return plan.outputs, plan.out_idx
    uniq, inv = unique_rows(plan.outputs)  # np.unique(axis=0)'s arrays, by a lexsort
    if len(uniq) == plan.t_out:
        return plan.outputs, plan.out_idx
    return uniq.astype(np.int32), np.asarray(inv).reshape(-1)[plan.out_idx]


# ---- histograms -------------------------------------------------------------------------------

def integer_histogram(values: NDArray[np.int64], lo: int | None = None,
                      hi: int | None = None) -> Histogram:
    """Counts of whole numbers in at most :data:`MAX_BINS` bins with whole-number edges: one
    bin per number when the range is small, else bins growing geometrically (class sizes have
    a long tail). ``lo`` / ``hi`` widen the range (e.g. to show k)."""
    v = np.asarray(values, dtype=np.int64)
    if len(v) == 0:
        return Histogram((), ())
    a = int(v.min()) if lo is None else min(int(v.min()), lo)
    b = int(v.max()) if hi is None else max(int(v.max()), hi)
    if b - a + 1 <= MAX_BINS:
        edges = np.arange(a, b + 2, dtype=np.int64)
    else:
        g = np.geomspace(max(a, 1), b + 1, MAX_BINS + 1)
        edges = np.unique(np.r_[a, np.round(g).astype(np.int64), b + 1])
        edges = edges[(edges >= a) & (edges <= b + 1)]
    counts = np.histogram(v, bins=edges.astype(np.float64))[0]
    # np.histogram closes the last bin: a value b + 1 cannot occur, so bins are [e_i, e_i+1)
    return Histogram(tuple(int(e) for e in edges), tuple(int(c) for c in counts))


def measure_histogram(values: NDArray[np.float64], threshold: float | None) -> Histogram:
    """Counts of finite per-class measures in at most :data:`MAX_BINS` bins over a range that
    includes the threshold; whole-number measures get one bin per number when few."""
    v = np.asarray(values, dtype=np.float64)
    if len(v) == 0:
        return Histogram((), ())
    whole = bool(np.all(v == np.round(v))) and (threshold is None
                                                or float(threshold).is_integer())
    lo = float(v.min()) if threshold is None else min(float(v.min()), float(threshold))
    hi = float(v.max()) if threshold is None else max(float(v.max()), float(threshold))
    if whole and hi - lo + 1 <= MAX_BINS:
        ih = integer_histogram(v.astype(np.int64), int(lo), int(hi))
        return Histogram(tuple(float(e) for e in ih.edges), ih.counts)
    if hi == lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, MAX_BINS + 1)
    counts = np.histogram(v, bins=edges)[0]
    return Histogram(tuple(float(e) for e in edges), tuple(int(c) for c in counts))


# ---- per-class sensitive measures -------------------------------------------------------------

def threshold_of(model: PrivacyModel) -> tuple[float | None, str | None]:
    """The parameter a model's per-class measure is held against, and its name."""
    for exact, name in (("t_exact", "t"), ("c_exact", "c")):
        if hasattr(model, exact):
            return float(getattr(model, exact)), name
    for name in ("p", "l"):
        v = getattr(model, name, None)
        if isinstance(v, int | float):
            return float(v), name
    return None, None


def _measures(rt: RowTypes, plan: ReleasePlan, out_idx: NDArray[np.int64], g: int,
              model: PrivacyModel) -> tuple[MeasureDistribution, ...]:
    needy = [m for m in parts(model) if m.uses_sensitive]
    if not needy or not rt.sensitive or g == 0:
        return ()
    cols = len(rt.sensitive)
    overall = rt.sensitive_histograms(rt.counts.sum(axis=0)[None, :])
    values = rt.sensitive_values()
    measure = {(i, a): np.zeros(g, dtype=np.float64) for i in range(len(needy))
               for a in range(cols)}
    names: dict[tuple[int, int], tuple[str, bool]] = {}
    order = np.argsort(out_idx, kind="stable")
    o, key, cnt = out_idx[order], plan.key_idx[order], plan.count[order]
    step = max(1, CHUNK_CELLS // max(rt.s, 1))
    for lo in range(0, g, step):
        hi = min(g, lo + step)
        a0, a1 = np.searchsorted(o, [lo, hi])
        kc = np.zeros((hi - lo, rt.s), dtype=np.int64)
        np.add.at(kc, (o[a0:a1] - lo, key[a0:a1]), cnt[a0:a1])
        hists = rt.sensitive_histograms(kc)
        for i, m in enumerate(needy):
            for a in range(cols):
                ev = m.evaluate(hists[a], overall[a][0], values[a])
                measure[i, a][lo:hi] = ev.measure
                names[i, a] = (ev.measure_name, ev.higher_is_better)
    out = []
    for i, m in enumerate(needy):
        thr, thr_name = threshold_of(m)
        for a in range(cols):
            v = measure[i, a]
            finite = v[np.isfinite(v)]
            name, higher = names[i, a]
            worst = None if len(v) == 0 else float(v.min() if higher else v.max())
            out.append(MeasureDistribution(
                model=m.name, sensitive=rt.sensitive[a], measure_name=name,
                higher_is_better=higher, threshold=thr, threshold_name=thr_name,
                worst=worst if worst is None or np.isfinite(worst) else None,
                histogram=measure_histogram(finite, thr), infinite=int(len(v) - len(finite))))
    return tuple(out)


# ---- values before and after ------------------------------------------------------------------

def _values(rt: RowTypes, outputs: NDArray[np.int32], sizes: NDArray[np.int64],
            j: int) -> ValueCounts:
    card = len(rt.domains[j])
    before = np.bincount(rt.codes[:, j], weights=rt.sizes, minlength=card).astype(np.int64)
    col = outputs[:, j]
    kept = (col != STAR) & (col < card)  # the value itself (not a group, not a star)
    after = np.bincount(col[kept], weights=sizes[kept], minlength=card).astype(np.int64)
    if card <= MAX_VALUES:
        shown = np.arange(card)
    else:  # the most frequent in the input (ties: sort order), shown in sort order
        shown = np.sort(np.lexsort((np.arange(card), -before))[:MAX_VALUES])
    return ValueCounts(
        column=rt.qi[j], distinct=card,
        values=tuple(value_text(rt.domains[j][c]) for c in shown),
        before=tuple(int(before[c]) for c in shown),
        after=tuple(int(after[c]) for c in shown),
        other_before=int(before.sum() - before[shown].sum()),
        other_after=int(after.sum() - after[shown].sum()),
        stars=int(sizes[col == STAR].sum()),
        generalized=int(sizes[col >= card].sum()))


def value_text(v: object) -> str | None:
    """A QI value as the release writes it (``None``: the missing value)."""
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return str(v)
