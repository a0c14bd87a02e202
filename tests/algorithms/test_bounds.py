"""Tests of the k-anonymity lower bounds (src/starmin/algorithms/bounds.py).

A lower bound is only useful if it is never above the optimum: every bound is checked against
the brute-force optimum on many small random tables, and against the independent naive
enumeration on a few; the hand-made cases pin down each bound's value."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.bounds import k_anonymity_lower_bounds, pattern_levels
from starmin.algorithms.exact import brute_force
from starmin.errors import InvalidInput
from starmin.models import KAnonymity
from tests.helpers.naive import naive_optimum
from tests.helpers.tables import expanded, from_rows, permuted, random_table


def _bounds_below_optimum(rt, k: int) -> dict[str, int]:  # type: ignore[no-untyped-def]
    b = k_anonymity_lower_bounds(rt, k)
    opt = brute_force.solve(rt, KAnonymity(k)).stars
    assert set(b) >= {"small-class", "pattern", "best"}
    assert b["best"] == max(v for name, v in b.items() if name != "best")
    assert b["small-class"] <= b["pattern"] <= b.get("partner", b["pattern"])
    assert b["best"] <= opt, (b, opt)
    return b


@pytest.mark.parametrize("seed", range(60))
def test_every_bound_is_at_most_the_optimum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 15)), int(rng.integers(1, 5))
    rt = random_table(500 + seed, n, m, values=int(rng.integers(2, 4)))
    _bounds_below_optimum(rt, int(rng.integers(2, min(5, n) + 1)))


@pytest.mark.parametrize("seed", range(6))
def test_bounds_below_the_naive_optimum(seed: int) -> None:
    rt = random_table(900 + seed, 8, 3, values=2)
    for k in (2, 3):
        assert k_anonymity_lower_bounds(rt, k)["best"] <= naive_optimum(rt, KAnonymity(k))


def test_small_class_and_pattern_values() -> None:
    # (0,0) x3 is big; (0,1) and (1,1) are alone (small-class 2). For k = 2, (0,1) is one
    # star from (0,0) and from (1,1); (1,1) one star from (0,1): pattern 1 + 1
    rt = from_rows([[0, 0]] * 3 + [[0, 1], [1, 1]])
    b = k_anonymity_lower_bounds(rt, 2)
    assert b["small-class"] == 2 and b["pattern"] == 2
    assert b["best"] <= brute_force.solve(rt, KAnonymity(2)).stars == 2


def test_partner_bound_charges_the_lent_row() -> None:
    # (0,1) needs one star; its only bucket with 2 rows holds (0,0) x3, which must lend a row
    # that is starred too: optimum 2, pattern 1, partner 2
    rt = from_rows([[0, 0]] * 3 + [[0, 1]])
    b = k_anonymity_lower_bounds(rt, 2)
    assert (b["pattern"], b["partner"], b["best"]) == (1, 2, 2)
    assert brute_force.solve(rt, KAnonymity(2)).stars == 2
    assert "partner" not in k_anonymity_lower_bounds(rt, 2, partner=False)


def test_pattern_levels_per_row_type() -> None:
    rt = from_rows([[0, 0, 0]] * 2 + [[0, 0, 1], [1, 1, 1]])
    L = pattern_levels(rt, 2).L
    by_vec = {tuple(v): int(x) for v, x in zip(rt.codes.tolist(), L, strict=True)}
    assert by_vec == {(0, 0, 0): 0, (0, 0, 1): 1, (1, 1, 1): 2}


def test_truncated_enumeration_is_still_a_bound() -> None:
    rt = random_table(42, 14, 4, values=3)
    full = k_anonymity_lower_bounds(rt, 3)
    cut = k_anonymity_lower_bounds(rt, 3, max_patterns=5)  # levels 0 and 1 only
    assert cut["pattern"] <= full["pattern"]
    assert cut["best"] <= brute_force.solve(rt, KAnonymity(3)).stars


@pytest.mark.parametrize("seed", range(5))
def test_invariant_under_row_type_grouping_and_order(seed: int) -> None:
    rt = random_table(70 + seed, 14, 3, values=3, s=2)
    b = k_anonymity_lower_bounds(rt, 3)
    assert k_anonymity_lower_bounds(expanded(rt), 3) == b
    assert k_anonymity_lower_bounds(permuted(rt, seed), 3) == b


def test_k_one_and_bad_k() -> None:
    rt = from_rows([[0], [1]])
    assert k_anonymity_lower_bounds(rt, 1)["best"] == 0
    with pytest.raises(InvalidInput, match="k must be"):
        k_anonymity_lower_bounds(rt, 0)


def test_progress_lines() -> None:
    lines: list[str] = []
    k_anonymity_lower_bounds(random_table(5, 30, 4, values=3), 3, progress=lines.append)
    assert any(line.startswith("bounds: pattern level") for line in lines)
