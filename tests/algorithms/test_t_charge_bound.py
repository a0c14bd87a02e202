"""Tests of the t-closeness charge LP bound (``t-charges``,
:mod:`starmin.algorithms.t_charge_bound`).

The bound is checked against brute force on small random tables (every distance: the equal
one, a matrix, ordered values and a hierarchy, alone and with a class size) and shown above
the other t bounds on some of them (a bound that adds nothing would pass the first check
too). Its closed form of ``T(B)`` is
compared with an LP solver's optimum of the same problem; the check that guards the solver's
answer is shown to reject raised charges; the nonzero limit gives no bound; PDLP's path
gives a bound too; reports carry it; each distance's variational radius is as stated.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from starmin.algorithms import l_charge_bound, t_charge_bound
from starmin.algorithms.exact import brute_force
from starmin.algorithms.t_closeness_bound import t_closeness_lower_bounds
from starmin.api import lower_bounds
from starmin.data.rowtypes import RowTypes
from starmin.models import AllOf, KAnonymity, TCloseness
from tests.algorithms.test_t_closeness_bound import _model
from tests.helpers.solver import shifted
from tests.helpers.tables import random_table

OTHERS = ("t-star-free", "t-pattern", "t-level-flow", "t-level-lp")


@functools.cache
def _solved(distance: str, k: int) -> list[tuple[RowTypes, float, int]]:
    """Small random tables (three QIs, three sensitive values) at three values of t, with
    the brute-force optimum."""
    out = []
    for seed in range(14):
        rt = random_table(8100 + seed, 7 + seed % 4, m=3, values=[2, 2, 3], s=3)
        for t in (0.05, 0.15, 0.3):
            model = _model(t, distance)
            out.append((rt, t, brute_force.solve(
                rt, model if k == 1 else AllOf(KAnonymity(k), model)).stars))
    return out


@pytest.mark.parametrize("distance", ["equal", "matrix", "ordered", "hierarchical"])
@pytest.mark.parametrize("k", [1, 3])
def test_never_above_the_optimum_and_above_the_other_bounds_somewhere(distance: str,
                                                                      k: int) -> None:
    ran = above = 0
    for rt, t, optimum in _solved(distance, k):
        b = t_closeness_lower_bounds(rt, _model(t, distance), k=k)
        if "t-charges" not in b:
            continue
        ran += 1
        assert b["t-charges"] <= optimum, (t, b, optimum)
        above += b["t-charges"] > max(b.get(name, 0) for name in OTHERS)
    assert ran >= 20, ran
    assert above >= 3, (above, ran)


def test_the_closed_form_is_the_lp_optimum() -> None:
    """``N T(B)`` of :func:`largest_value` against HiGHS on the same LP (the largest ``sum_u
    y_u W_u`` over distributions ``y`` on the bucket's values within ``extra / N`` of ``o /
    N`` in variational distance), on random buckets."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        r = int(rng.integers(2, 6))
        o = rng.integers(1, 9, size=r).astype(np.int64)
        N = int(o.sum())
        extra = int(rng.integers(0, N))
        held = np.sort(rng.choice(r, size=int(rng.integers(1, r + 1)), replace=False))
        w = rng.integers(-8, 9, size=len(held)) / 4.0
        got = t_charge_bound.largest_value(np.zeros(len(held), dtype=np.int64),
                                           held.astype(np.int64), w, 1, o, extra)[0]
        # variables y (on the held values) and z (the mass above o / N), both >= 0
        h = len(held)
        q = o[held] / N
        res = linprog(np.concatenate([-w, np.zeros(h)]),
                      A_ub=np.vstack([np.hstack([np.eye(h), -np.eye(h)]),
                                      np.concatenate([np.zeros(h), np.ones(h)])[None, :]]),
                      b_ub=np.concatenate([q, [extra / N]]),
                      A_eq=np.concatenate([np.ones(h), np.zeros(h)])[None, :], b_eq=[1.0],
                      method="highs")
        if res.status == 2:  # no distribution on these values is that close
            assert got == -np.inf
            continue
        assert res.status == 0
        checked += 1
        assert got / N == pytest.approx(-res.fun, abs=1e-9)
    assert checked >= 100


def test_extra_rows_rounds_up_exactly() -> None:
    assert t_charge_bound.extra_rows(Fraction(1, 5), 300) == 60
    assert t_charge_bound.extra_rows(Fraction(1, 5), 301) == 61
    assert t_charge_bound.extra_rows(0.2, 300) == 61  # a float is raised before the ceiling
    assert t_charge_bound.extra_rows(Fraction(0), 10) == 0


def _with_charges() -> tuple[RowTypes, TCloseness, int]:
    for rt, t, _ in _solved("equal", 1):
        b = t_closeness_lower_bounds(rt, _model(t, "equal"))
        if b.get("t-charges", 0) > max(b.get(name, 0) for name in OTHERS):
            return rt, _model(t, "equal"), b["t-charges"]
    raise AssertionError("no table where the charge LP is above the other bounds")


def test_the_check_rejects_raised_charges(monkeypatch: pytest.MonkeyPatch) -> None:
    rt, model, bound = _with_charges()
    solve = l_charge_bound.solve
    monkeypatch.setattr(l_charge_bound, "solve", shifted(solve, 0.3))
    said: list[str] = []
    b = t_closeness_lower_bounds(rt, model, progress=said.append)
    assert "t-charges" not in b
    assert any("t charge LP answer failed its check" in line for line in said)
    monkeypatch.setattr(l_charge_bound, "solve", shifted(solve, -1.0))
    assert t_closeness_lower_bounds(rt, model)["t-charges"] < bound


def test_over_the_nonzero_limit_no_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    rt, model, _ = _with_charges()
    monkeypatch.setattr(t_charge_bound, "SIMPLEX_MAX_NONZEROS", 0)
    monkeypatch.setattr(t_charge_bound, "MAX_NONZEROS", 0)
    assert "t-charges" not in t_closeness_lower_bounds(rt, model)
    assert "t-charges" not in t_closeness_lower_bounds(rt, model, charges=False)


def test_by_pdlp_a_bound_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the dual simplex's limit at 0 every LP goes to PDLP and its repair: never above
    brute force, and near the dual simplex's bound."""
    cases = _solved("equal", 1)
    plain = [t_closeness_lower_bounds(rt, _model(t, "equal")).get("t-charges")
             for rt, t, _ in cases]
    monkeypatch.setattr(t_charge_bound, "SIMPLEX_MAX_NONZEROS", 0)
    ran = near = 0
    for (rt, t, optimum), before in zip(cases, plain, strict=True):
        said: list[str] = []
        got = t_closeness_lower_bounds(rt, _model(t, "equal"),
                                       progress=said.append).get("t-charges")
        if got is None or before is None or not any("PDLP stopped" in x for x in said):
            continue  # (no bucket can fail: no LP to solve)
        assert got <= optimum, (t, got, optimum)
        ran += 1
        near += got >= before - 1
    assert ran >= 10 and near >= ran * 0.8, (near, ran)


def test_the_pdlp_and_repair_limits_are_the_t_lps_own(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """PDLP runs within :data:`t_charge_bound.PDLP_WORK` and its repair within
    :data:`t_charge_bound.REPAIR_WORK` deterministic seconds of Glop (the diversity LPs' 6e8
    and 3 gave no bound on adult's t rows)."""
    rt, model, _ = _with_charges()
    monkeypatch.setattr(t_charge_bound, "SIMPLEX_MAX_NONZEROS", 0)
    seen: list[tuple[float, float]] = []
    real = l_charge_bound.first_order_bound

    def spy(*args: Any) -> int | None:
        seen.append((args[4].args[0].per_lp, args[7]))
        return real(*args)

    monkeypatch.setattr(l_charge_bound, "first_order_bound", spy)
    assert "t-charges" in t_closeness_lower_bounds(rt, model, large_lp=True)
    assert seen == [(t_charge_bound.REPAIR_WORK, t_charge_bound.PDLP_WORK)]
    assert t_charge_bound.REPAIR_WORK > 3 and t_charge_bound.PDLP_WORK > 6e8
    # reports (no large_lp) and the other distances, whose LP is a relaxation: the
    # diversity LPs' limits
    from starmin.algorithms.charge_lp import MAX_WORK as GLOP_WORK
    from starmin.algorithms.charge_pdlp import MAX_WORK

    seen.clear()
    t_closeness_lower_bounds(rt, model)
    for rt, t, _ in _solved("matrix", 1):
        t_closeness_lower_bounds(rt, _model(t, "matrix"), large_lp=True)
    assert seen and set(seen) == {(GLOP_WORK, MAX_WORK)}


def test_adult_takes_the_large_charge_lp() -> None:
    """ARX adult (8 QIs, occupation), t = 0.5: with ``large_lp`` (``starmin info``) the LP
    (1.0 million nonzeros) is within :data:`t_charge_bound.LARGE_MAX_NONZEROS` and raises the
    bound from the level flow's 25,428 to 26,088 (issue 8's t = 0.5 row); without it (the
    reports) it is over :data:`t_charge_bound.MAX_NONZEROS` and gives none."""
    from tests.helpers.adult import adult_encoded

    rt = adult_encoded()[2].row_types
    said: list[str] = []
    b = t_closeness_lower_bounds(rt, TCloseness(0.5), large_lp=True, progress=said.append)
    assert b.get("t-charges", 0) >= 26_000 > max(b[name] for name in OTHERS if name in b)
    assert any("t charge LP by PDLP" in line for line in said)
    assert "t-charges" not in t_closeness_lower_bounds(rt, TCloseness(0.5))


def test_reports_carry_it() -> None:
    rt, model, bound = _with_charges()
    assert lower_bounds(rt, model)["t-charges"] == bound


def test_the_variational_radius_of_each_distance() -> None:
    """A t-close class is within ``t`` times the items' scale in variational distance: the
    equal distance ``t``, a hierarchy of height 2 ``2 t`` (exact fractions), three ordered
    values ``2 t``, the matrix ``t / 0.5`` (a float, its least distance being 0.5)."""
    from starmin.algorithms.t_closeness_bound import _columns

    rt = random_table(8100, 9, m=3, values=[2, 2, 3], s=3)
    radius = {d: next(_columns(rt, _model(0.15, d))).radius
              for d in ("equal", "hierarchical", "ordered", "matrix")}
    assert radius["equal"] == Fraction(3, 20)
    assert radius["hierarchical"] == radius["ordered"] == Fraction(3, 10)
    assert radius["matrix"] == pytest.approx(0.3) and isinstance(radius["matrix"], float)


def test_info_takes_the_large_lp(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """``starmin info --t`` asks for the large LP (equal distance); reports do not."""
    import starmin
    from starmin.algorithms import t_closeness_bound
    from starmin.cli.main import main

    asked: list[bool] = []
    real = t_closeness_bound.t_charge_bound

    def spy(*args: Any, **kwargs: Any) -> int | None:
        asked.append(bool(kwargs.get("large")))
        return real(*args, **kwargs)

    monkeypatch.setattr(t_closeness_bound, "t_charge_bound", spy)
    src = tmp_path / "t.csv"
    src.write_text("q,s\n" + "".join(f"{i % 8},{i % 2}\n" for i in range(24)))
    assert main(["-q", "info", str(src), "--qi", "q", "--sensitive", "s", "--t", "0.3"]) == 0
    assert asked == [True]
    starmin.anonymize(src, ["q"], "s", t=0.3)
    assert asked[1:] and not any(asked[1:])
