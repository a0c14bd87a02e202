"""l-diversity in its four usual forms, each judging many classes at once.

All four are exact: the frequency, distinct and recursive tests are integer comparisons; the
entropy test is decided in floating point only when the margin exceeds a proven error bound,
and exactly (prime factorisation, then 60-digit decimals) otherwise.

Every form here is *monotone* (merging two classes that satisfy it gives a class that
satisfies it: Xiao et al. Lemma 1 for the frequency form; concavity of entropy; for recursive
(c, l) the merged top count is at most the sum of the tops while the merged tail is at least the
sum of the tails). So a release exists iff the whole table satisfies the model, which is what
``check_feasible`` tests.

References
----------
Xiao, Yi, Tao. The Hardness and Approximation Algorithms for l-Diversity. EDBT 2010,
Sec. 3, Definition 2 (l-eligible) and Lemma 1 (monotonicity).
Liang, Yuan. On the Complexity of t-Closeness Anonymization and Related Problems, Sec. 1
(at most a 1/l fraction of a group may share a sensitive value).
Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam. l-Diversity: Privacy Beyond
k-Anonymity. TKDD 2007, Sec. 4 (distinct, entropy and recursive (c, l)-diversity).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from starmin.errors import Infeasible, param
from starmin.models._params import INT64_SAFE, as_counts, exact, fraction_bounds, show, whole
from starmin.models.base import Evaluation

_L_EXAMPLE = 2


def _distinct(hist: NDArray[np.int64]) -> NDArray[np.int64]:
    return (hist > 0).sum(axis=1).astype(np.int64)


def _too_few_values(l: int, overall: NDArray[np.int64], values: Sequence[object],
                    what: str) -> None:
    present = int((overall > 0).sum())
    if l > present:
        raise Infeasible(
            f"no {what} release exists: l = {l} but the sensitive column has only {present} "
            f"distinct value{'s' if present != 1 else ''}; use at most "
            f"{param('l', max(present, 1))}"
        )


@dataclass(frozen=True)
class LDiversity:
    """l-diversity, frequency form: in every class each sensitive value occurs in at most a
    ``1/l`` fraction of the rows (Xiao et al. Definition 2: the class is *l-eligible*).

    Exact integer test per class: ``l * max_count <= size``. ``l`` is a whole number >= 1
    (the papers' integer l; ``2.0`` is read as ``2``). The measure is the class's effective l,
    ``size / max_count`` (higher is better). Cost O(classes x |S|).
    """

    l: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", whole("l", self.l, 1, _L_EXAMPLE))

    @property
    def name(self) -> str:
        return f"{self.l}-diversity"

    @property
    def uses_sensitive(self) -> bool:
        return True

    @property
    def support_only(self) -> bool:
        """The verdict reads only the counts of the values a class holds (see base)."""
        return True

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        h, _ = as_counts(hist, overall)
        size = h.sum(axis=1)
        top = h.max(axis=1) if h.shape[1] else np.zeros(len(h), dtype=np.int64)
        ok = self.l * top <= size
        with np.errstate(divide="ignore", invalid="ignore"):
            measure = np.where(top > 0, size / np.maximum(top, 1), np.inf)
        return Evaluation(ok, measure.astype(np.float64), "size / max count", True)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        _, o = as_counts(np.zeros((0, len(overall)), dtype=np.int64), overall)
        _too_few_values(self.l, o, values, f"l-diverse (l = {self.l})")
        n = int(o.sum())
        j = int(np.argmax(o))
        if self.l * int(o[j]) > n:
            raise Infeasible(
                f"no l-diverse release exists (l = {self.l}): {_valued(values[j])} has "
                f"frequency {int(o[j])}/{n} > 1/{self.l} in the whole table (Xiao et al. Lemma 1); "
                f"use at most {param('l', n // int(o[j]))}"
            )


@dataclass(frozen=True)
class DistinctLDiversity:
    """Distinct l-diversity: every class holds at least ``l`` distinct sensitive values
    (Machanavajjhala et al. Sec. 4; Bredereck et al.'s p-sensitivity without k).

    The missing value counts as a value of its own. Measure: number of distinct values.
    Cost O(classes x |S|).
    """

    l: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", whole("l", self.l, 1, _L_EXAMPLE))

    @property
    def name(self) -> str:
        return f"distinct {self.l}-diversity"

    @property
    def uses_sensitive(self) -> bool:
        return True

    @property
    def support_only(self) -> bool:
        """The verdict reads only the counts of the values a class holds (see base)."""
        return True

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        h, _ = as_counts(hist, overall)
        d = _distinct(h)
        return Evaluation(d >= self.l, d.astype(np.float64), "distinct values", True)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        _, o = as_counts(np.zeros((0, len(overall)), dtype=np.int64), overall)
        _too_few_values(self.l, o, values, f"distinct l-diverse (l = {self.l})")


def _factor(x: int, into: dict[int, int], times: int) -> None:
    """Add ``times`` x the prime exponents of ``x`` to ``into``."""
    p = 2
    while p * p <= x:
        while x % p == 0:
            into[p] = into.get(p, 0) + times
            x //= p
        p += 1 if p == 2 else 2
    if x > 1:
        into[x] = into.get(x, 0) + times


def _entropy_margin_exact(counts: NDArray[np.int64], l: int) -> bool:
    """Exactly decide ``n ln n - sum c ln c >= n ln l`` for one class."""
    c = [int(v) for v in counts if v > 0]
    n = sum(c)
    lhs: dict[int, int] = {}
    rhs: dict[int, int] = {}
    _factor(n, lhs, n)
    _factor(l, rhs, n)
    for v in c:
        _factor(v, rhs, v)
    lhs = {p: e for p, e in lhs.items() if e}
    rhs = {p: e for p, e in rhs.items() if e}
    if lhs == rhs:  # n^n == l^n * prod c^c: the entropy is exactly ln l
        return True
    ctx = Context(prec=60)
    g = (Decimal(n) * ctx.ln(Decimal(n)) - sum((Decimal(v) * ctx.ln(Decimal(v)) for v in c),
                                               Decimal(0))
         - Decimal(n) * ctx.ln(Decimal(l)))
    bound = Decimal(10) ** -40 * (Decimal(n) * (abs(ctx.ln(Decimal(n))) + 1) * 4)
    return bool(g > bound)  # in the unresolvable band we fail: the safe direction


@dataclass(frozen=True)
class EntropyLDiversity:
    """Entropy l-diversity: every class has entropy ``-sum p log p >= log l``
    (Machanavajjhala et al. Sec. 4).

    Decided safely: with ``G = n ln n - sum c ln c - n ln l`` a class passes when the float
    value of ``G`` exceeds its rounding-error bound, fails when below minus the bound, and is
    decided exactly otherwise (``G = 0`` iff ``n^n = l^n prod c^c``, compared by prime
    factorisation; else 60-digit decimal logarithms). So a class whose entropy is exactly
    ``log l`` (e.g. counts (1, 1) with l = 2) passes. Measure: ``exp(entropy)``, the class's
    effective number of values. Cost O(classes x |S|).
    """

    l: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", whole("l", self.l, 1, _L_EXAMPLE))

    @property
    def name(self) -> str:
        return f"entropy {self.l}-diversity"

    @property
    def uses_sensitive(self) -> bool:
        return True

    @property
    def support_only(self) -> bool:
        """The verdict reads only the counts of the values a class holds (see base)."""
        return True

    def _judge(self, h: NDArray[np.int64]) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
        n = h.sum(axis=1).astype(np.float64)
        hf = h.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            clogc = np.where(h > 0, hf * np.log(np.where(h > 0, hf, 1.0)), 0.0).sum(axis=1)
            nlogn = np.where(n > 0, n * np.log(np.where(n > 0, n, 1.0)), 0.0)
            g = nlogn - clogc - n * math.log(self.l)
            err = 1e-12 * (nlogn + clogc + n * math.log(self.l) + 1.0)
            measure = np.where(n > 0, np.exp((nlogn - clogc) / np.where(n > 0, n, 1.0)),
                               np.inf)
        ok = g > err
        unsure = np.flatnonzero((np.abs(g) <= err) & (n > 0))
        for i in unsure:
            ok[i] = _entropy_margin_exact(h[i], self.l)
        ok |= n == 0
        return ok, measure.astype(np.float64)

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        h, _ = as_counts(hist, overall)
        ok, measure = self._judge(h)
        return Evaluation(ok, measure, "exp(entropy)", True)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        _, o = as_counts(np.zeros((0, len(overall)), dtype=np.int64), overall)
        _too_few_values(self.l, o, values, f"entropy l-diverse (l = {self.l})")
        ok, measure = self._judge(o[None, :])
        if not ok[0]:
            raise Infeasible(
                f"no entropy l-diverse release exists (l = {self.l}): the whole table's entropy is "
                f"log {measure[0]:.4g} < log {self.l}, and merging classes never raises it "
                f"above the table's; use at most "
                f"{param('l', math.floor(measure[0] + 1e-9))}"
            )


@dataclass(frozen=True)
class RecursiveCLDiversity:
    """Recursive (c, l)-diversity: with a class's counts sorted descending
    ``r_1 >= ... >= r_m`` (``m`` its number of distinct values), ``r_1 < c (r_l + ... + r_m)``
    (Machanavajjhala et al. Sec. 4). A class with fewer than ``l`` distinct values fails.

    ``c`` is a positive number taken exactly (``c = 0.5`` means 1/2); ``l`` a whole number >= 1.
    Exact integer test. Measure: ``r_1 / (r_l + ... + r_m)`` (lower is better; the class passes
    iff it is below ``c``; infinite when the tail is empty). Cost O(classes x |S| log |S|).
    """

    c: float | int | Fraction
    l: int
    c_exact: Fraction = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        c = exact("c", self.c, 3)
        fraction_bounds("c", self.c, c, Fraction(0), None, 3, lo_open=True)
        object.__setattr__(self, "c_exact", c)
        object.__setattr__(self, "l", whole("l", self.l, 1, _L_EXAMPLE))

    @property
    def name(self) -> str:
        return f"recursive ({self.c}, {self.l})-diversity"

    @property
    def uses_sensitive(self) -> bool:
        return True

    @property
    def support_only(self) -> bool:
        """The verdict reads only the counts of the values a class holds (see base)."""
        return True

    def largest_share(self) -> float:
        """The largest share of a class one value can hold: ``r_1 < c (r_l + ... + r_m)``
        gives ``r_1 < c (n - r_1)``, so ``c / (1 + c)``, when ``l >= 2``; with ``l = 1`` the
        tail is the whole class, so ``r_1 < c n`` and the share is below ``min(1, c)``."""
        c = float(self.c_exact)
        return c / (1.0 + c) if self.l >= 2 else min(1.0, c)

    def _judge(self, h: NDArray[np.int64]) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
        r = -np.sort(-h, axis=1)  # counts descending
        r1 = r[:, 0] if r.shape[1] else np.zeros(len(r), dtype=np.int64)
        tail = r[:, self.l - 1:].sum(axis=1)
        num, den = self.c_exact.numerator, self.c_exact.denominator
        size = h.sum(axis=1)
        if int(size.max(initial=0)) * max(num, den) < INT64_SAFE:
            ok = r1 * den < num * tail
        else:
            ok = np.array([int(a) * den < num * int(b) for a, b in zip(r1, tail, strict=True)],
                          dtype=bool)
        ok &= _distinct(h) >= self.l
        with np.errstate(divide="ignore", invalid="ignore"):
            measure = np.where(tail > 0, r1 / np.maximum(tail, 1), np.inf)
        return ok, measure.astype(np.float64)

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        h, _ = as_counts(hist, overall)
        ok, measure = self._judge(h)
        ok |= h.sum(axis=1) == 0
        return Evaluation(ok, measure, "r1 / (r_l + ... + r_m)", False)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        _, o = as_counts(np.zeros((0, len(overall)), dtype=np.int64), overall)
        _too_few_values(self.l, o, values,
                        f"recursive (c, l)-diverse (c = {self.c}, l = {self.l})")
        ok, measure = self._judge(o[None, :])
        if not ok[0]:
            raise Infeasible(
                f"no recursive (c, l)-diverse release exists (c = {self.c}, l = {self.l}): in the "
                f"whole table r1 / (r_l + ... + r_m) = {measure[0]:.4g} >= c, and merging "
                f"classes never lowers it; choose c > {measure[0]:.4g} or a smaller l"
            )


def _valued(value: object) -> str:
    """``value 'x'``, or ``the missing value`` (no ``value`` before it)."""
    shown = show(value)
    return shown if value is None else f"value {shown}"
