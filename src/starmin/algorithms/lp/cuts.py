"""Linear cuts for the models that are not linear: entropy and recursive (c, l)-diversity.

Issue 8 asks the exact MILP (:mod:`.milp_exact`) to give these models "valid linear
relaxations for bounds, and check integer solutions exactly". The MILP states each of them by
linear constraints every class satisfying it meets (both need ``l`` distinct values; recursive
(c, l) also caps every value at ``c / (1 + c)`` of the class). An integer solution is then
judged by the model itself; a class that fails gives a *cut*: a linear inequality that every
class satisfying the model meets and that class does not. The cut is added for every output
vector and the MILP solved again, until a solution's classes all pass (then it is optimal: it
is optimal for a relaxation and feasible) or no cut separates (the run is then reported with
the relaxation's proven bound, not as exact).

Why the cuts are valid. Write a class as its counts ``x_v`` per sensitive value, ``S = sum x``.

* **Entropy l-diversity** (``H(x / S) >= log l``). ``f(x) = S log S - sum_v x_v log x_v -
  S log l = S (H - log l)`` is concave and positively homogeneous (entropy is concave on the
  simplex; ``f`` is its perspective). So ``f(x) <= grad f(y) . x`` for any ``y > 0`` (the
  tangent plane at ``y`` passes through 0 by Euler's identity), with ``d f / d x_v =
  log(S_y / (l y_v))``. A class satisfying the model has ``f(x) >= 0``, hence
  ``sum_v log(S_y / (l y_v)) x_v >= 0``. For a failing class ``x^`` take ``y = x^`` with its
  zero counts raised to :data:`DELTA` (``y > 0`` keeps the gradient finite); the cut's value
  at ``x^`` is ``f(x^) + S log(S_y / S)``, below 0 unless ``x^`` fails by less than about
  ``DELTA`` per missing value -- checked before a cut is added.
* **Recursive (c, l)-diversity** (``r_1 < c (r_l + ... + r_m)`` with counts sorted
  descending; ``c = num / den``). For any value ``a`` and any set ``U`` of ``|S| - l + 1``
  values, ``x_a <= r_1`` and ``sum_U x_u >= r_l + ... + r_m`` (the smallest ``|S| - l + 1``
  counts, zeros included, sum to the tail). So a satisfying class has ``den x_a - num sum_U
  x_u <= den r_1 - num tail <= -1`` (integers, strict inequality). With the class indicator
  ``y(b)``: ``den x(b, a) - num sum_U x(b, u) + y(b) <= 0`` (an empty block gives ``0 <= 0``).
  For a failing class take ``a`` its most frequent value and ``U`` its ``|S| - l + 1`` rarest:
  the left side is then ``den r_1 - num tail + 1 > 0``.

References: Machanavajjhala et al., TKDD 2007, Sec. 4 (entropy and recursive (c, l)-diversity);
Liang & Yuan Sec. 4, Thm 9 (the MILP the cuts are added to); Kelley's cutting-plane method
(1960) for the convex sets the two models define per class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray

from starmin.models.base import PrivacyModel
from starmin.models.combine import parts

DELTA = 1e-6
"""What a value missing from a failing class counts as where the entropy cut is taken."""
SEPARATION = 1e-7
"""How far below 0 (in rows) a cut must put the failing class to be added."""


@dataclass(frozen=True)
class Cut:
    """``sum_v coef[v] x(b, v) + y_coef y(b) <= rhs`` for every output vector ``b``
    (``x(b, v)``: the block's rows of sensitive value ``v``)."""

    coef: NDArray[np.float64]
    y_coef: float
    rhs: float


def nonlinear(model: PrivacyModel) -> list[PrivacyModel]:
    """The parts of ``model`` the MILP states by cuts (entropy, recursive (c, l))."""
    from starmin.models.l_diversity import EntropyLDiversity, RecursiveCLDiversity

    return [p for p in parts(model) if isinstance(p, EntropyLDiversity | RecursiveCLDiversity)]


def cut_for(part: PrivacyModel, x: NDArray[np.int64]) -> Cut | None:
    """The cut that ``part`` gives against the class with counts ``x`` per value (which
    fails ``part``), or ``None`` when no cut separates it by :data:`SEPARATION`."""
    from starmin.models.l_diversity import EntropyLDiversity, RecursiveCLDiversity

    xf = x.astype(np.float64)
    if isinstance(part, EntropyLDiversity):
        y = np.where(x > 0, xf, DELTA)
        g = np.log(y.sum() / (part.l * y))
        if float(g @ xf) >= -SEPARATION:
            return None
        return Cut(-g, 0.0, 0.0)          # -sum g_v x_v <= 0
    if isinstance(part, RecursiveCLDiversity):
        num, den = part.c_exact.numerator, part.c_exact.denominator
        order = np.lexsort((np.arange(len(x)), x))       # rarest first, ties by value
        tail = order[: max(len(x) - part.l + 1, 0)]
        coef = np.zeros(len(x))
        coef[tail] -= num
        coef[int(np.argmax(x))] += den
        if float(coef @ xf) + 1.0 <= SEPARATION:
            return None
        return Cut(coef, 1.0, 0.0)
    raise TypeError(f"{part.name} has no cuts")


def value_counts(keys: NDArray[np.int64], counts: NDArray[np.int64],
                 value_of_key: NDArray[np.int64], r: int) -> NDArray[np.int64]:
    """``(r,)`` a class's rows per sensitive value, from its (key, rows) entries."""
    return np.bincount(value_of_key[keys], weights=counts, minlength=r).astype(np.int64)


def entropy_cap(l: int, r: int) -> float:
    """The largest share one value can hold in a class of entropy ``>= log l`` over ``r``
    values: ``H <= h(p) + (1 - p) log(r - 1)`` for the largest share ``p`` (the rest spread
    evenly), so ``p`` is at most the root of ``h(p) + (1 - p) log(r - 1) = log l`` above
    ``1 / r``, found by bisection and rounded up (a valid, slightly weaker cap)."""
    if l <= 1 or r <= 1:
        return 1.0
    target = math.log(l)

    def most(p: float) -> float:
        h = -p * math.log(p) - (1 - p) * math.log(1 - p) if 0 < p < 1 else 0.0
        return h + (1 - p) * math.log(r - 1)

    lo, hi = 1.0 / r, 1.0
    if most(lo) < target:
        return 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if most(mid) >= target:
            lo = mid
        else:
            hi = mid
    return min(1.0, hi + 1e-9)


SHARE_LINES = 6
"""How many segments of the upper concave envelope of ``m(S)`` :func:`entropy_share_lines`
gives (the smallest class sizes first)."""


def entropy_most(sizes: NDArray[np.int64], l: int, r: int) -> NDArray[np.int64]:
    """``m(S)``: the most rows one value can hold in a class of ``S`` rows (each of
    ``sizes``) whose entropy over ``r`` values is at least ``log l``. With ``c`` rows on one
    value the most even rest (``S - c`` spread over the other ``r - 1`` values, none above
    ``c``) has the largest entropy (Schur concavity), and that entropy falls as ``c`` grows
    (the compositions are majorized), so a bisection over ``c`` finds ``m(S)``. The target
    is lowered by 1e-9 so that rounding can only raise ``m(S)`` (a valid, weaker cap). A
    size with no such class gets its smallest possible most, ``ceil(S / r)``."""
    S = np.asarray(sizes, dtype=np.int64)
    target = math.log(l) - 1e-9

    def entropy(c: NDArray[np.int64]) -> NDArray[np.float64]:
        rest = S - c
        q, rem = rest // (r - 1), rest % (r - 1)
        terms: list[tuple[NDArray[np.int64], NDArray[np.int64] | int]] = [
            (c, 1), (q + 1, rem), (q, r - 1 - rem)]
        h = np.zeros(len(S))
        for cnt, times in terms:
            share = cnt / S
            with np.errstate(divide="ignore", invalid="ignore"):
                h -= np.where(cnt > 0, times * share * np.log(np.where(cnt > 0, share, 1.0)),
                              0.0)
        return h

    lo = -(-S // r)          # ceil(S / r): always possible; passes if anything does
    hi = S.copy()
    ok = entropy(lo) >= target
    lo_pass = lo.copy()
    # invariant: entropy(lo_pass) >= target (where ok), entropy(hi + 1 ...) < target
    for _ in range(64):
        if not np.any(lo_pass < hi):
            break
        mid = (lo_pass + hi + 1) // 2
        good = entropy(mid) >= target
        lo_pass = np.where(good & (lo_pass < hi), mid, lo_pass)
        hi = np.where(~good & (lo_pass < hi), mid - 1, hi)
    return np.where(ok, lo_pass, lo)


@lru_cache(maxsize=32)
def entropy_share_lines(l: int, r: int, s_min: int, s_max: int
                        ) -> tuple[tuple[int, int, int], ...]:
    """Lines ``(a, b, c)`` with ``a m(S) <= b S + c`` for every class size ``S`` in
    ``[s_min, s_max]`` (:func:`entropy_most`): so ``a x(b, u) <= b n(b) + c y(b)`` holds for
    every class satisfying entropy l-diversity of ``s_min`` to ``s_max`` rows (and for an
    empty block, ``0 <= 0``). The share cap ``p*`` (:func:`entropy_cap`) is the large
    classes' bound; small classes allow far less (``r = 12``, ``l = 3``: a class of 4 rows
    must hold 4 values, share 1/4, where ``p*`` is 0.77), and a MILP stating ``p*`` only finds
    classes like ``(2, 1, 1)`` that fail, one cut round each. The lines are the first
    :data:`SHARE_LINES` segments of the upper concave envelope of the points ``(S, m(S))``,
    each through two of them, so its coefficients are integers and every point lies on or
    under it exactly: a line shifted by a rounding margin instead (``beta + 1e-7``) made
    HiGHS return 12 stars for a table whose optimum is 8 (its tolerances are of that size).
    Empty when ``l <= 1`` or ``r <= l`` (no cap binds) or the range holds fewer than two
    sizes. Remembered: ``milp`` asks for the same lines for its program and for its first
    release's rounding (:func:`.lp_rounding.combined`); the scan over every size up to the
    table's rows takes 0.02 s at 10,000 rows, 3.2 s at 1,000,000."""
    if l <= 1 or r <= l or s_max < s_min + 1 or s_min < 1:
        return ()
    sizes = np.arange(s_min, s_max + 1, dtype=np.int64)
    most = entropy_most(sizes, l, r)
    hull: list[int] = []  # the upper concave envelope (monotone chain, exact integers)
    for i in range(len(sizes)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            cross = (int(sizes[b] - sizes[a]) * int(most[i] - most[a])
                     - int(most[b] - most[a]) * int(sizes[i] - sizes[a]))
            if cross >= 0:   # b lies on or below the chord a -> i
                hull.pop()
            else:
                break
        hull.append(i)
    lines = []
    for a, b in pairwise(hull[:SHARE_LINES + 1]):
        run, rise = int(sizes[b] - sizes[a]), int(most[b] - most[a])
        at = int(most[a]) * run - rise * int(sizes[a])
        g = math.gcd(run, rise, at) or 1
        lines.append((run // g, rise // g, at // g))
    return tuple(lines)
