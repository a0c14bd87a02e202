"""Information loss of a release, from its plan and the row types (no pass over the rows).

Each released class is a distinct output vector ``g`` (equal vectors merged) holding ``|E|``
rows; its cell in column ``j`` is a node of the column's hierarchy (``RowTypes.dgh``; flat,
i.e. suppression only, unless hierarchies were attached: a star is the root). With ``n`` rows,
``m`` QI columns, ``D_j`` the values of column ``j``'s hierarchy domain, ``leaves(x)`` the
values under node ``x`` (1 for a value, ``D_j`` for the root), ``level(x)`` its level (0 for a
value) and ``H_j`` the root's level:

* **stars**: cells at the root; **generalized cells**: cells at an internal node.
* **loss** (Iyengar's loss metric LM, 2002, Sec. 3.1 -- the "Loss" ARX optimizes): the average
  over the ``n x m`` cells of ``(leaves(x) - 1) / (D_j - 1)`` (0 for a value, 1 for a star;
  0 for a column with a single value). ARX calls ``1 - loss`` the *granularity*.
* **precision** (Sweeney's Prec, 2002, Sec. 4): ``1 -`` the average over the cells of
  ``level(x) / H_j``. With suppression only, ``1 - stars / (n m)``.
* **discernibility** (Bayardo & Agrawal 2005, Sec. 2): ``sum |E|^2`` over the released classes
  (a star is a value: suppressed rows form classes of their own).
* **average class size** (LeFevre et al., Mondrian, 2006, Sec. 5): ``n / classes``, and
  normalized ``n / (classes x k)`` for the smallest class size ``k`` the model implies.
* **KL-divergence** (Kifer & Gehrke 2006, Sec. 3; Machanavajjhala et al., l-diversity, 2007,
  Sec. 6.3; ARX's "KL divergence"): the original joint distribution ``P(v) = count(v) / n``
  over the QI vectors against the distribution the release implies, in which each class
  spreads its rows uniformly over the combinations of the table's values it covers:
  ``Q(v) = sum over classes E covering v of (|E| / n) / area(g_E)``, with
  ``area(g) = prod_j observed(g_j)``, ``observed(x)`` the values *of the table* under ``x``
  (the column's observed domain: 1 for a value, the column's distinct values for a star; a
  hierarchy file's values the table lacks are left out, so the measure does not depend on
  them). ``KL = sum_v P(v) log2(P(v) / Q(v))`` in bits, over the observed vectors ``v``
  (``P > 0``; ``Q(v) > 0`` there, since a row's own class covers it). It is 0 when nothing
  is generalized. Unlike ARX's (one class per row under full-domain recoding), under local
  recoding several classes may cover ``v`` and all of them count.

All but the KL-divergence take ``O(t_out x m)``. The KL-divergence groups the classes by their
vector of levels (a *pattern*; at most ``t_out``) and, per pattern, generalizes the ``t_in``
row types to it and looks up the classes: ``O(patterns x t_in x m)``. Beyond
:data:`KL_MAX_WORK` pattern x row-type pairs it is not computed (``None``, with a note).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.data.hierarchies import ROOT, Hierarchies
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import ReleasePlan, unique_rows

KL_MAX_WORK = 50_000_000
"""Most (level pattern x row type) pairs the KL-divergence is computed for."""


@dataclass(frozen=True)
class LossMeasures:
    """The loss measures of one release (see the module docstring for each definition)."""

    stars: int
    generalized_cells: int
    loss: float
    """Iyengar's LM, the average over the ``n x m`` QI cells; ``1 - loss`` is granularity."""
    precision: float
    discernibility: int
    classes: int
    average_class_size: float
    k: int
    """The smallest class size the model implies (1: none)."""
    normalized_average_class_size: float | None
    """``n / (classes x k)``; ``None`` when ``k`` is 1."""
    kl_divergence: float | None
    """In bits; ``None`` when over the work limit (see ``kl_note``)."""
    kl_note: str | None = None
    loss_per_column: Mapping[str, float] = field(default_factory=dict)
    generalized_per_column: Mapping[str, int] = field(default_factory=dict)
    objective: str = "stars"
    """What the method minimized (``stars`` or ``loss``)."""
    loss_bound: Mapping[str, Any] | None = None
    """A certified lower bound on the loss of any release
    (:class:`starmin.algorithms.loss_bound.LossBound` as a dict: ``average`` bounds
    :attr:`loss`); ``None`` without hierarchies under the stars objective."""

    @property
    def granularity(self) -> float:
        return 1.0 - self.loss

    def as_dict(self) -> dict[str, Any]:
        return {"stars": self.stars, "generalized_cells": self.generalized_cells,
                "loss": self.loss, "granularity": self.granularity,
                "precision": self.precision, "discernibility": self.discernibility,
                "classes": self.classes, "average_class_size": self.average_class_size,
                "k": self.k,
                "normalized_average_class_size": self.normalized_average_class_size,
                "kl_divergence": self.kl_divergence, "kl_note": self.kl_note,
                "loss_per_column": dict(self.loss_per_column),
                "generalized_per_column": dict(self.generalized_per_column),
                "objective": self.objective,
                "loss_bound": None if self.loss_bound is None else dict(self.loss_bound)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LossMeasures:
        return cls(int(d["stars"]), int(d["generalized_cells"]), float(d["loss"]),
                   float(d["precision"]), int(d["discernibility"]), int(d["classes"]),
                   float(d["average_class_size"]), int(d.get("k") or 1),
                   d.get("normalized_average_class_size"), d.get("kl_divergence"),
                   d.get("kl_note"),
                   MappingProxyType({str(c): float(v)
                                     for c, v in (d.get("loss_per_column") or {}).items()}),
                   MappingProxyType({str(c): int(v)
                                     for c, v in (d.get("generalized_per_column") or {}).items()}),
                   str(d.get("objective") or "stars"),
                   None if d.get("loss_bound") is None
                   else MappingProxyType(dict(d["loss_bound"])))


def classes_of(plan: ReleasePlan) -> tuple[NDArray[np.int32], NDArray[np.int64],
                                           NDArray[np.int64]]:
    """The released classes: distinct output vectors with at least one row ``(g, m)``, their
    sizes ``(g,)``, and each plan entry's class (``-1`` for an entry with no rows)."""
    if plan.t_out == 0:
        return plan.outputs, np.zeros(0, np.int64), np.zeros(len(plan.count), np.int64)
    uniq, inv = unique_rows(plan.outputs)
    of_entry = np.asarray(inv).reshape(-1)[plan.out_idx]
    sizes = np.bincount(of_entry, weights=plan.count, minlength=len(uniq)).astype(np.int64)
    keep = sizes > 0
    new = np.cumsum(keep) - 1
    return (uniq[keep].astype(np.int32), sizes[keep],
            np.where(keep[of_entry], new[of_entry], -1).astype(np.int64))


def measures(plan: ReleasePlan, rt: RowTypes, k: int = 1) -> LossMeasures:
    """Every loss measure of ``plan`` on ``rt`` (hierarchies: ``rt.dgh``); ``k`` the smallest
    class size the model implies, for the normalized average class size."""
    dgh = rt.dgh
    outs, sizes, _ = classes_of(plan)
    n, m = rt.n, rt.m
    w = sizes.astype(np.float64)
    lm: dict[str, float] = {}
    gen: dict[str, int] = {}
    prec: list[float] = []
    stars = generalized = 0
    for j, c in enumerate(rt.qi):
        col = dgh[j]
        x = outs[:, j]
        stars += int(sizes[x == ROOT].sum())
        gen[c] = int(sizes[x >= col.card].sum())
        generalized += gen[c]
        share = ((col.leaves_of(x) - 1) / (col.domain - 1) if col.domain and col.domain > 1
                 else np.zeros(len(x)))
        lm[c] = float((w * share).sum() / n) if n else 0.0
        prec.append(float((w * col.level_of(x) / col.height).sum() / n) if n else 0.0)
    g = len(sizes)
    kl, note = kl_divergence(rt, dgh, outs, sizes)
    return LossMeasures(
        stars=stars, generalized_cells=generalized,
        loss=float(np.mean(list(lm.values()))) if m else 0.0,
        precision=1.0 - (float(np.mean(prec)) if m else 0.0),
        discernibility=int((sizes.astype(np.int64) ** 2).sum()),
        classes=g, average_class_size=n / g if g else 0.0, k=int(k),
        normalized_average_class_size=(n / (g * k)) if g and k > 1 else None,
        kl_divergence=kl, kl_note=note,
        loss_per_column=MappingProxyType(lm), generalized_per_column=MappingProxyType(gen))


def kl_divergence(rt: RowTypes, dgh: Hierarchies, outs: NDArray[np.int32],
                  sizes: NDArray[np.int64]) -> tuple[float | None, str | None]:
    """KL(P || Q) in bits of the release whose classes are ``outs`` ``(g, m)`` with ``sizes``
    (see the module docstring), or ``None`` and why."""
    n = rt.n
    if n == 0 or len(sizes) == 0:
        return 0.0, None
    levels = dgh.level_of(outs)                        # (g, m) level of each class cell
    patterns, pat = unique_rows(levels)
    pat = np.asarray(pat).reshape(-1)
    work = len(patterns) * rt.t_in
    if work > KL_MAX_WORK:
        return None, (f"not computed: {len(patterns)} level patterns x {rt.t_in} row types "
                      f"exceed the work limit of {KL_MAX_WORK:,} pairs")
    area = np.prod(dgh.observed_of(outs).astype(np.float64), axis=1)   # (g,)
    mass = sizes / n / area                            # (g,) Q per covered combination
    q = np.zeros(rt.t_in, dtype=np.float64)            # (t_in,) Q of each row type
    radix = np.array([col.nodes + 1 for col in dgh.columns], dtype=np.float64)
    packable = float(np.prod(radix)) < 2.0 ** 62
    for p, levs in enumerate(patterns):
        cls = np.flatnonzero(pat == p)
        anc = np.stack([dgh[j].up[levs[j], rt.codes[:, j]] for j in range(rt.m)], axis=1)
        hit = _lookup(outs[cls], anc, radix if packable else None)   # (t_in,) or -1
        found = hit >= 0
        q[found] += mass[cls[hit[found]]]
    p_of = rt.sizes / n
    return float((p_of * np.log2(p_of / q)).sum()), None


def _lookup(keys: NDArray[np.int32], rows: NDArray[np.int32], radix: NDArray[np.float64] | None
            ) -> NDArray[np.int64]:
    """For each of ``rows`` ``(r, m)``, the index of the equal row of ``keys`` ``(g, m)``
    (distinct), or -1. Packs the codes (``+1``, so the root is 0) into one integer per row
    when they fit (``radix``), else compares rows with ``np.unique``."""
    if radix is not None:
        r = radix.astype(np.int64)

        def pack(a: NDArray[np.int32]) -> NDArray[np.int64]:
            out = np.zeros(len(a), dtype=np.int64)
            for j in range(a.shape[1]):
                out = out * r[j] + (a[:, j].astype(np.int64) + 1)
            return out
        kk, rr = pack(keys), pack(rows)
        order = np.argsort(kk)
        pos = np.searchsorted(kk[order], rr)
        pos = np.minimum(pos, len(kk) - 1)
        return np.where(kk[order][pos] == rr, order[pos], -1).astype(np.int64)
    both = np.concatenate([keys, rows])
    _, inv = np.unique(both, axis=0, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    at = np.full(int(inv.max()) + 1, -1, dtype=np.int64)
    at[inv[:len(keys)]] = np.arange(len(keys))
    return at[inv[len(keys):]]
