"""Entropy l-diversity's share lines in the exact MILP (``lp/cuts.py``): the most rows one
value can hold in a class of ``S`` rows, ``m(S)``, and lines ``x(b, u) <= alpha n(b) + beta
y(b)`` above every ``(S, m(S))``. Held to brute force over every composition of small classes,
and to the MILP: brute force's optimum with fewer cut rounds than without the lines."""

from __future__ import annotations

import math
from itertools import combinations_with_replacement

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import cuts, milp_exact
from starmin.errors import Infeasible
from starmin.models import EntropyLDiversity
from tests.helpers.tables import random_table


def compositions(S: int, r: int) -> list[tuple[int, ...]]:
    """Every multiset of ``S`` rows over ``r`` values, as sorted counts (descending)."""
    out = set()
    for combo in combinations_with_replacement(range(r), S):
        counts = np.bincount(combo, minlength=r)
        out.add(tuple(sorted(counts.tolist(), reverse=True)))
    return sorted(out)


def entropy_ok(counts: tuple[int, ...], l: int) -> bool:
    S = sum(counts)
    h = -sum(c / S * math.log(c / S) for c in counts if c)
    return h >= math.log(l) - 1e-12


@pytest.mark.parametrize(("l", "r"), [(2, 3), (2, 5), (3, 4), (3, 6), (4, 6), (3, 12)])
def test_most_equals_brute_force(l: int, r: int) -> None:
    top = 11 if r <= 6 else 8
    sizes = np.arange(1, top + 1)
    got = cuts.entropy_most(sizes, l, r)
    for S, m in zip(sizes.tolist(), got.tolist(), strict=True):
        passing = [c[0] for c in compositions(S, r) if entropy_ok(c, l)]
        want = max(passing) if passing else -(-S // r)
        assert m == want, (l, r, S, m, want)


@pytest.mark.parametrize(("l", "r"), [(2, 3), (2, 5), (3, 4), (3, 6), (4, 6), (3, 12)])
def test_every_satisfying_class_meets_every_line(l: int, r: int) -> None:
    top = 11 if r <= 6 else 8
    lines = cuts.entropy_share_lines(l, r, l, top)
    assert lines
    tight = False
    for S in range(l, top + 1):
        for c in compositions(S, r):
            if entropy_ok(c, l):
                for a, b, cc in lines:
                    assert a * c[0] <= b * S + cc, (l, r, S, c, a, b, cc)
            elif any(a * c[0] > b * S + cc for a, b, cc in lines):
                tight = True  # a failing class the lines cut off (no cut round needed)
    assert tight or r <= l + 1
    # the lines are below the plain share cap p* somewhere (else they add nothing)
    cap = cuts.entropy_cap(l, r)
    assert any((b * l + cc) / a < cap * l for a, b, cc in lines)
    assert all(isinstance(v, int) for line in lines for v in line)  # exact, no margin


def test_no_lines_where_no_cap_binds() -> None:
    assert cuts.entropy_share_lines(3, 3, 3, 50) == ()
    assert cuts.entropy_share_lines(1, 5, 1, 50) == ()
    assert cuts.entropy_share_lines(2, 5, 10, 9) == ()


def test_two_sensitive_columns_and_a_class_on_a_line() -> None:
    """Classes whose counts lie exactly on a line (``(2, 2)`` of 4 rows, ``x = n - 2``):
    with two sensitive columns and k = 3 a line shifted by a 1e-7 margin made HiGHS return
    12 and 24 stars where brute force's optimum is 8 and 20 (seeds 213 and 55 here). Random
    tables of that kind, exact answers."""
    import polars as pl

    from starmin.data import Schema
    from starmin.engines.local import LocalEngine
    from starmin.models import AllOf, KAnonymity

    values = ["a", "b", "c", None]
    model = AllOf(KAnonymity(3), EntropyLDiversity(2))
    checked = []
    for seed in range(240):
        rng = np.random.default_rng(seed)
        n, m = int(rng.integers(8, 13)), int(rng.integers(1, 4))
        r, cols = int(rng.integers(2, 5)), int(rng.choice([1, 2]))
        X = rng.integers(0, 2, size=(n, m))
        data: dict[str, list[object]] = {f"q{j}": X[:, j].tolist() for j in range(m)}
        for a in range(cols):
            data[f"s{a}"] = [values[int(v)] for v in rng.integers(0, r, size=n)]
        if cols != 2 or seed % 2 == 0:
            continue
        rt = LocalEngine().to_row_types(pl.DataFrame(data), Schema.of(
            [f"q{j}" for j in range(m)], ["s0", "s1"])).row_types
        try:
            opt = brute_force.solve(rt, model).stars
        except Infeasible:
            continue
        plan = milp_exact.solve(rt, model)
        assert plan.certificate["proven_optimal"] and plan.stars == opt, (seed, plan.stars, opt)
        checked.append(seed)
    assert 55 in checked and 213 in checked and len(checked) >= 20


def test_milp_equals_brute_force_with_fewer_cut_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines keep brute force's optimum and save cut rounds: without them the MILP
    returns small classes such as ``(2, 1, 1)`` and needs a round to cut each."""
    cases = []
    for seed in range(8):
        rt = random_table(300 + seed, 13, 3, values=2, s=6)
        for l in (2, 3):
            try:
                opt = brute_force.solve(rt, EntropyLDiversity(l)).stars
            except Infeasible:
                continue
            cases.append((rt, l, opt))
    assert len(cases) >= 8

    def rounds() -> int:
        total = 0
        for rt, l, opt in cases:
            plan = milp_exact.solve(rt, EntropyLDiversity(l))
            assert plan.certificate["proven_optimal"] and plan.stars == opt, (l, opt)
            total += int(plan.certificate.get("cut_rounds", 0))
        return total

    with_lines = rounds()
    monkeypatch.setattr(milp_exact, "entropy_share_lines", lambda *a: ())
    without = rounds()
    assert with_lines < without, (with_lines, without)


def test_the_rounding_states_entropys_cap_and_lines() -> None:
    """``milp``'s first release rounds the LP with every linear consequence of the model
    (:func:`lp_rounding.combined`): for entropy l-diversity the share cap ``p*`` and the
    share lines on each sensitive column (the LP's relaxation of entropy has no cap)."""
    from starmin.algorithms.lp import lp_rounding

    rt = random_table(5, 60, 3, values=3, s=6)
    (rel,) = lp_rounding.combined(EntropyLDiversity(3), rt)
    assert rel.column == 0 and rel.k == 3
    assert rel.cap == pytest.approx(cuts.entropy_cap(3, 6))
    assert rel.share_lines == cuts.entropy_share_lines(3, 6, 3, rt.n) != ()
    (plain,) = lp_rounding.combined(EntropyLDiversity(1), rt)
    assert plain.share_lines == () and plain.cap is None
