"""Candidate output row types of Algorithm 1's guess (starmin.algorithms.fpt.candidates)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from starmin.algorithms.fpt.candidates import (
    by_merging,
    by_patterns,
    by_subsets,
    candidates,
    covers,
    route,
)
from starmin.transform.plan import STAR, suppressor


def _codes(seed: int, t_in: int, m: int, values: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.unique(rng.integers(0, values, size=(t_in, m)), axis=0).astype(np.int32)


def _naive(codes: np.ndarray) -> set[tuple[int, ...]]:
    """The suppressor of every non-empty subset, one subset at a time."""
    out = set()
    for r in range(1, len(codes) + 1):
        for sub in combinations(range(len(codes)), r):
            out.add(tuple(suppressor(codes[list(sub)]).tolist()))
    return out


@pytest.mark.parametrize("seed", range(25))
def test_all_routes_list_every_subset_suppressor_once(seed: int) -> None:
    rng = np.random.default_rng(seed)
    codes = _codes(seed, int(rng.integers(1, 8)), int(rng.integers(1, 5)),
                   int(rng.integers(2, 4)))
    subsets, patterns, merging = by_subsets(codes), by_patterns(codes), by_merging(codes)
    assert merging is not None
    assert np.array_equal(subsets, patterns) and np.array_equal(subsets, merging)
    assert {tuple(v) for v in subsets.tolist()} == _naive(codes)
    assert len({tuple(v) for v in subsets.tolist()}) == len(subsets)


@pytest.mark.parametrize("seed", range(10))
def test_each_candidate_is_the_suppressor_of_what_it_generalizes(seed: int) -> None:
    codes = _codes(100 + seed, 7, 4, 3)
    vecs = by_subsets(codes)
    cov = covers(vecs, codes)
    for v, c in zip(vecs, cov, strict=True):
        assert c.any()
        assert np.array_equal(suppressor(codes[c]), v)


def test_usable_candidates_and_their_order() -> None:
    codes = np.array([[0, 0], [0, 1], [1, 1]], dtype=np.int32)
    sizes = np.array([1, 1, 3])
    cand = candidates(codes, sizes, 3)
    # (0,0) and (0,1) alone hold 1 row, (0,*) 2 < 3: dropped; (1,1) alone has 3 rows
    got = {tuple(v): int(w) for v, w in zip(cand.vectors.tolist(), cand.omega, strict=True)}
    assert got == {(1, 1): 0, (STAR, 1): 1, (STAR, STAR): 2}
    assert list(cand.omega) == sorted(cand.omega)
    assert cand.covers.shape == (3, 3) and cand.arcs == int(cand.covers.sum())
    # p-sensitivity: (1,1)'s three rows hold one value, so it cannot be a 2-sensitive class
    values = np.array([[1, 0], [0, 1], [3, 0]])
    cand = candidates(codes, sizes, 3, values, 2)
    assert {tuple(v) for v in cand.vectors.tolist()} == {(STAR, 1), (STAR, STAR)}


@pytest.mark.parametrize("seed", range(5))
def test_larger_tables_routes_agree_and_merging_stops_at_its_cap(seed: int) -> None:
    codes = _codes(200 + seed, 30, 5, 3)  # t_in > 12: patterns (m <= 8) or merging
    assert route(len(codes), 5) == "patterns" and route(len(codes), 9) == "merging"
    merging = by_merging(codes)
    assert merging is not None and np.array_equal(merging, by_patterns(codes))
    assert by_merging(codes, max_all=len(merging) - 1) is None
    sizes = np.ones(len(codes), dtype=np.int64)
    assert candidates(codes, sizes, 1, max_all=len(merging) - 1) is None
