"""Lower bounds on the optimal number of stars for the models that need diverse classes.

Guarantee: proven lower bounds (each is at most the optimum; tests compare them with brute
force), computed from the row types alone, so a report's bound does not depend on which
method made the release.

The argument behind both bounds: a row released without a star keeps its whole QI vector,
and rows with equal released vectors form one class, so the star-free rows of row type ``v``
form a class of their own (all of them, or none if every row of ``v`` carries a star). That
class must satisfy the model by itself. Every row of ``v`` that cannot stay star-free carries
at least one star.

- ``l_frequency``: for frequency l-diversity (:class:`~starmin.models.LDiversity`), Xiao, Yi &
  Tao's ``max(|R1|, l * h(R1))`` (proof of Cor. 1, and Cor. 2): ``R1`` is what phase one of TP
  must remove so that each row type keeps its largest l-eligible sub-multiset, ``h(R1)`` the
  largest count of one sensitive value in ``R1``. It counts suppressed tuples, hence stars.
  Weighed by levels it is stronger: a row that leaves ``v`` carries at least ``level(v)``
  stars, the fewest stars of a vector whose group holds ``l`` distinct values
  (:mod:`.diversity_levels`), since its class lies in such a group; so ``|R1|`` becomes
  ``sum_v |R1(v)| level(v)`` and ``h(R1)`` the most stars the leaving rows of one value carry
  (:func:`frequency_tuple_bound`).
- ``distinct_values``: for every model that needs ``q`` distinct sensitive values per class
  (distinct, entropy and recursive (c, l)-diversity need ``l``, since entropy ``>= log l`` and
  ``r_l > 0`` both need ``l`` values; frequency l-diversity ``l``; p-sensitivity ``p``): every
  row of a row type that holds fewer than ``q`` distinct values carries a star, and at least
  ``level(v)`` of them.

- ``l_charges``: for frequency l-diversity, the charge LP (:mod:`.l_charge_bound`): charges
  per row type and value that every bucket's ``l`` most charged values can pay; the dual of
  the LP core's frequency relaxation with the charges in boxes. Within its work limits only.

- ``distinct_charges``: for the other models needing ``q`` values (distinct, entropy,
  recursive, p-sensitivity), the charge LP of :mod:`.distinct_charge_bound`: every bucket's
  positive charges plus its ``q`` most charged values must be payable. Within its work
  limits only.

- ``entropy_charges``: for entropy l-diversity, the charge LP of
  :mod:`.entropy_charge_bound`: an entropy l-diverse class holding exactly ``l`` values holds
  them equally often, so every bucket meets the frequency LP's condition for ``l`` and the
  distinct LP's for ``l + 1``. At least the distinct LP's optimum, so where it gives a bound
  (on every sensitive column) the distinct LP for ``q = l`` is not run for that part. Within
  its work limits only.

- ``l_value_flow``: for frequency l-diversity, ``l`` times the stars the rows of one value
  carry at least, bounded per star level by a maximum flow into buckets of capacity ``min(c_u,
  h*)`` (:mod:`.l_frequency_flow`); at least the ``l * h(R1)`` term weighed by levels for that
  value when every level is enumerated.

With several sensitive columns each column's histogram is bounded on its own (a release must
satisfy the model on every column) and the largest bound counts.

Complexity: O(t_in x |S|) per model part and sensitive column, and the levels' pattern
enumeration (:mod:`.diversity_levels`, at most 4,096 patterns).

References: Xiao, Yi & Tao, Sec. 5.2 (phase one), Cor. 1 and 2; Machanavajjhala et al. for the
l-diversity forms.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.base import Progress
from starmin.algorithms.distinct_charge_bound import distinct_charge_bound
from starmin.algorithms.diversity_levels import last_level, levels
from starmin.algorithms.entropy_charge_bound import entropy_charge_bound
from starmin.algorithms.l_charge_bound import frequency_charge_bound
from starmin.algorithms.l_frequency_flow import heaviest_value, value_flow_bound
from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.models.l_diversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    LDiversity,
    RecursiveCLDiversity,
)
from starmin.models.p_sensitive import PSensitiveKAnonymity


def leaving_rows(counts: NDArray[np.integer], l: int) -> NDArray[np.int64]:
    """``(t_in, |S|)``: the rows ``L(v, u)`` of each row type and value that cannot stay
    star-free under frequency l-diversity (above the phase-one height)."""
    counts = np.asarray(counts, dtype=np.int64)
    return counts - np.minimum(counts, phase_one_heights(counts, l)[:, None])


def frequency_tuple_bound(counts: NDArray[np.integer], l: int,
                          lev: NDArray[np.int64] | None = None) -> int:
    """Xiao et al.'s ``max(|R1|, l * h(R1))`` for one ``(t_in, |S|)`` histogram, in its
    stronger form ``max(sum_u w_u, l max_u w_u)``: ``w_u`` is the stars the leaving rows of
    value ``u`` carry at least, one per row, or with the row types' levels ``lev``
    (:func:`.diversity_levels.levels` for ``q = l``) ``sum_v L(v, u) level(v)`` (the module
    docstring).

    Why: a row type keeps at most ``h*(v)`` rows of each value star-free, its phase-one
    height (every l-eligible sub-multiset with largest count ``M`` has ``sum_w min(c_w, M)
    >= l M``, and that set of heights is an interval from 0, as ``sum_w min(c_w, h) - l h``
    is concave), so ``L(v, u) = c(v, u) - min(c(v, u), h*(v))`` rows of ``(v, u)`` carry
    stars. A class with ``s`` stars holds at most ``|C| / l`` rows of value ``u``: weighing
    ``|C| >= l x_u(C)`` by ``s`` and summing over the classes, the stars are at least ``l``
    times the stars the rows of ``u`` carry (Xiao et al.'s ``l * h(R1)`` counts one star per
    row)."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size == 0:
        return 0
    leave = leaving_rows(counts, l)
    w = leave.sum(axis=0) if lev is None else lev @ leave
    return max(int(w.sum()), l * int(w.max(initial=0)))


def few_values_bound(counts: NDArray[np.integer], q: int,
                     lev: NDArray[np.int64] | None = None) -> int:
    """Rows of the row types holding fewer than ``q`` distinct sensitive values; with the
    row types' levels ``lev`` for ``q``, each weighed by its row type's level (the module
    docstring)."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size == 0 or q <= 1:
        return 0
    few = (counts > 0).sum(axis=1) < q
    if lev is None:
        return int(counts[few].sum())
    return int(counts[few].sum(axis=1) @ lev[few])


def distinct_values_needed(model: PrivacyModel) -> int:
    """How many distinct sensitive values every class of ``model`` must hold (1: no need)."""
    if isinstance(model, LDiversity | DistinctLDiversity | EntropyLDiversity
                  | RecursiveCLDiversity):
        return int(model.l)
    if isinstance(model, PSensitiveKAnonymity):
        return int(model.p)
    return 1


def diversity_lower_bounds(rt: RowTypes, parts: list[PrivacyModel],
                           progress: Progress | None = None, *, charges: bool = True
                           ) -> dict[str, int]:
    """The bounds above for every part of a model (each part bounds the whole), and with
    ``charges`` the charge LP bound of each frequency part (``l_charges``,
    :mod:`.l_charge_bound`, within its work limits)."""
    if not rt.sensitive:
        return {}
    histograms = rt.sensitive_histograms(rt.counts)  # per column, (t_in, |S_a|)
    out: dict[str, int] = {}
    ls = {int(p.l) for p in parts if isinstance(p, LDiversity)}
    memo: dict[tuple[int, int], NDArray[np.int64]] = {}
    charged: set[int] = set()  # the q of the distinct charge LPs run
    entropic: set[int] = set()  # the l of the entropy charge LPs run
    last = last_level(rt.m, rt.t_in)

    def lev(a: int, q: int) -> NDArray[np.int64]:
        """Levels of column ``a`` for ``q`` values, once for every part that asks."""
        if (a, q) not in memo:
            h = histograms[a]
            needed = (h > 0).sum(axis=1) < q
            if q in ls:
                needed |= leaving_rows(h, q).sum(axis=1) > 0
            memo[(a, q)] = levels(rt.codes, h, q, needed)
        return memo[(a, q)]

    for part in parts:
        q = distinct_values_needed(part)
        if q > 1:
            v = max(few_values_bound(h, q, lev(a, q)) for a, h in enumerate(histograms))
            out["distinct_values"] = max(out.get("distinct_values", 0), v)
        if charges and isinstance(part, EntropyLDiversity) and q not in entropic:
            entropic.add(q)
            found = [entropy_charge_bound(rt.codes, h, q, last, progress) for h in histograms]
            _keep_best(out, "entropy_charges", found)
            if all(b is not None for b in found):  # at least the distinct LP's optimum
                charged.add(q)
        if q > 1 and charges and not isinstance(part, LDiversity) and q not in charged:
            charged.add(q)
            _keep_best(out, "distinct_charges",
                       [distinct_charge_bound(rt.codes, h, q, lev(a, q), last, progress)
                        for a, h in enumerate(histograms)])
        if isinstance(part, LDiversity):
            l = int(part.l)
            v = max(frequency_tuple_bound(h, l, lev(a, l)) for a, h in enumerate(histograms))
            out["l_frequency"] = max(out.get("l_frequency", 0), v)
            v = max(value_flow_bound(rt.codes, h, l,
                                     heaviest_value(leaving_rows(h, l), lev(a, l)))
                    for a, h in enumerate(histograms))
            out["l_value_flow"] = max(out.get("l_value_flow", 0), v)
            if charges:
                _keep_best(out, "l_charges",
                           [frequency_charge_bound(rt.codes, h, l, lev(a, l), last, progress)
                            for a, h in enumerate(histograms)])
    return out


def _keep_best(out: dict[str, int], name: str, found: list[int | None]) -> None:
    """``out[name]``: the largest of the bounds found (``None``: no bound) and any before."""
    got = [b for b in found if b is not None]
    if got:
        out[name] = max(out.get(name, 0), *got)
