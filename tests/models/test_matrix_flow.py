"""The matrix distance's EMD by integer min-cost flow (starmin.models.matrix_distance): exact
for matrices of short decimals (checked against the closed form of points on a line, in
fractions), a safe near-exact bound otherwise, and the LP only where 64-bit costs would
overflow."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest

from starmin.models import MatrixDistance, TCloseness
from starmin.models import matrix_distance as md
from tests.models import naive


def line_emd(c: list[int], o: list[int], x: list[Fraction]) -> Fraction:
    """EMD between the class counts ``c`` and the table counts ``o`` for values at points
    ``x`` on a line (sorted): the area between the two distribution functions."""
    n, N = sum(c), sum(o)
    order = sorted(range(len(x)), key=lambda i: x[i])
    out, fc, fo = Fraction(0), Fraction(0), Fraction(0)
    for a, b in pairwise(order):
        fc += Fraction(c[a], n)
        fo += Fraction(o[a], N)
        out += abs(fc - fo) * (x[b] - x[a])
    return out


def line_metric(rng: np.random.Generator, s: int) -> tuple[list[list[float]], list[Fraction]]:
    """``s`` points in {0, 0.1, ..., 1} with 0 and 1 among them: distances are short decimals."""
    pts = sorted({0, 10, *rng.integers(0, 11, size=s - 2).tolist()})
    while len(pts) < s:
        pts = sorted({*pts, int(rng.integers(0, 11))})
    x = [Fraction(p, 10) for p in pts]
    return [[abs(p - q) / 10 for q in pts] for p in pts], x


def test_short_decimals_give_the_exact_emd() -> None:
    """Entries that are multiples of 0.1: the measure is the EMD exactly, and the verdict
    flips exactly at it (``t`` = EMD passes, ``t`` = EMD - 1e-12 fails)."""
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(60):
        s = int(rng.integers(2, 7))
        D, x = line_metric(rng, s)
        overall = rng.integers(1, 40, size=s)
        hist = np.minimum(rng.integers(0, 12, size=(4, s)), overall)
        hist = hist[hist.sum(axis=1) > 0]
        if not len(hist):
            continue
        values = list(range(s))
        for row in hist:
            want = line_emd(row.tolist(), overall.tolist(), x)
            at = TCloseness(want, MatrixDistance(D)).evaluate(row[None, :], overall, values)
            assert at.ok[0] and at.measure[0] == float(want)
            if want > 0:
                below = TCloseness(want - Fraction(1, 10**12), MatrixDistance(D))
                assert not below.evaluate(row[None, :], overall, values).ok[0]
            checked += 1
    assert checked >= 150


def test_min_cost_flow_replaces_the_lp(monkeypatch: pytest.MonkeyPatch) -> None:
    """Metrics of long decimals (points in the plane) are judged by the flow with rounded
    costs, not the LP: within 1e-9 of the LP's EMD and never below it."""
    monkeypatch.setattr(md, "_transport", lambda *a: pytest.fail("the LP path was taken"))
    rng = np.random.default_rng(5)
    for _ in range(30):
        s = int(rng.integers(2, 7))
        pts = rng.random((s, 2))
        D = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))
        D = D / D.max()
        overall = rng.integers(1, 60, size=s)
        hist = np.minimum(rng.integers(0, 20, size=(5, s)), overall)
        hist = hist[hist.sum(axis=1) > 0]
        got = TCloseness(1, MatrixDistance(D)).evaluate(hist, overall, list(range(s))).measure
        want = np.array([naive.emd_lp(r.tolist(), overall.tolist(), D) for r in hist])
        assert (got >= want - 1e-9).all() and np.allclose(got, want, atol=1e-9)


def test_supplies_past_64_bits_take_the_lp(monkeypatch: pytest.MonkeyPatch) -> None:
    """Classes whose supplies ``c_i N`` would overflow the flow's 64-bit costs under a
    long-decimal metric go to the LP (and agree with the flow where both run)."""
    calls: list[int] = []
    real = md._transport

    def counted(*a: object) -> object:
        calls.append(1)
        return real(*a)  # type: ignore[arg-type]

    monkeypatch.setattr(md, "_transport", counted)
    pts = np.random.default_rng(9).random((4, 2))
    D = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))
    D = D / D.max()
    small_h, small_o = np.array([[3, 0, 1, 2]]), np.array([5, 4, 4, 3])
    big = 10**6
    m = TCloseness(1, MatrixDistance(D))
    small = m.evaluate(small_h, small_o, [0, 1, 2, 3]).measure[0]
    assert not calls
    large = m.evaluate(small_h * big, small_o * big, [0, 1, 2, 3]).measure[0]
    assert calls and large == pytest.approx(small, abs=1e-9)
