"""Merging interchangeable pairs (``lp/aggregate.py``) and the incumbent's cutoff
(``lp/highs_cutoff.py``) keep the exact MILP exact."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import aggregate, highs_cutoff, milp_exact
from starmin.algorithms.lp.master import Blocks, build
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.vectors import useful_blocks
from starmin.errors import Infeasible
from tests.algorithms.test_milp_exact import MODELS, table


@pytest.mark.parametrize("spec", [(21, 12, 3, 2, 3), (22, 14, 4, 2, 2), (23, 13, 3, 3, 4)])
@pytest.mark.parametrize("name", ["k2", "l2", "t0.3-equal", "distinct-l3"])
def test_merged_program_has_the_same_optimum_and_splits_back(
        name: str, spec: tuple[int, int, int, int, int]) -> None:
    """The merged program's optimum equals the original's and brute force's; its solution
    splits into one of the original program: every pair covered, block sums and value counts
    unchanged, and no more stars."""
    _, rt = table(*spec)
    model = MODELS[name]
    pairs = Pairs.of(rt)
    blocks = useful_blocks(rt, pairs)
    rels = milp_exact.exact_constraints(model, rt)
    rel = rels[0]
    merged = aggregate.merge(pairs, blocks, milp_exact.merge_key(rels, rt))
    assert merged.pairs.P <= pairs.P and merged.pairs.count.sum() == pairs.count.sum()
    full = highs_cutoff.solve(build(pairs, rels, blocks), upper=None)
    small = highs_cutoff.solve(build(merged.pairs, rels, merged.blocks), upper=None)
    try:
        opt = brute_force.solve(rt, model).stars
    except Infeasible:
        assert full.infeasible and small.infeasible
        return
    assert full.value is not None and small.value is not None and small.x is not None
    assert round(full.value) == round(small.value) == opt
    x = aggregate.split(merged, pairs, blocks, small.x)
    assert np.array_equal(np.bincount(blocks.pair_of, weights=x, minlength=pairs.P),
                          pairs.count)
    assert int(blocks.stars[blocks.block_of] @ x) == opt
    xm = np.rint(small.x).astype(np.int64)
    for b in range(blocks.B):
        mine, theirs = blocks.block_of == b, merged.blocks.block_of == b
        assert x[mine].sum() == xm[theirs].sum()
        if rt.sensitive:
            vo = rel.value_of_key
            got = np.bincount(vo[pairs.key_of[blocks.pair_of[mine]]], weights=x[mine],
                              minlength=rel.r)
            want = np.bincount(vo[merged.pairs.key_of[merged.blocks.pair_of[theirs]]],
                               weights=xm[theirs], minlength=rel.r)
            assert np.array_equal(got, want)


def test_merge_finds_interchangeable_pairs() -> None:
    """Two row types differing in one column, which every vector stars, merge: a test that
    fails if nothing is ever merged."""
    _, rt = table(24, 16, 3, 2, 2)
    pairs = Pairs.of(rt)
    blocks = useful_blocks(rt, pairs, max_stars=rt.m)
    top = blocks.stars == rt.m
    xs = np.flatnonzero(top[blocks.block_of])
    three = Blocks(blocks.vectors[top], blocks.stars[top], np.zeros(len(xs), dtype=np.int64),
                   blocks.pair_of[xs])
    merged = aggregate.merge(pairs, three, None)
    assert merged.pairs.P == 1  # only the all-star vector: every row type alike
    assert aggregate.merge(pairs, blocks, None).pairs.P <= pairs.P


def test_a_pair_without_vectors_is_refused() -> None:
    """A pair no vector receives makes the program infeasible; merging would hide it."""
    _, rt = table(25, 12, 3, 2, 2)
    pairs = Pairs.of(rt)
    blocks = useful_blocks(rt, pairs)
    rest = np.flatnonzero(blocks.pair_of != 0)
    without = Blocks(blocks.vectors, blocks.stars, blocks.block_of[rest], blocks.pair_of[rest])
    with pytest.raises(ValueError, match="no output vector"):
        aggregate.merge(pairs, without, None)


@pytest.mark.parametrize("name", ["k2", "l2", "t0.3-equal"])
def test_cutoff_at_the_optimum_proves_it_and_above_finds_it(name: str) -> None:
    """With ``upper`` = the optimum, HiGHS proves nothing is below (``infeasible``); with
    ``upper`` = optimum + 1 it returns the optimum."""
    _, rt = table(26, 12, 3, 2, 3)
    model = MODELS[name]
    opt = brute_force.solve(rt, model).stars
    pairs = Pairs.of(rt)
    blocks = useful_blocks(rt, pairs)
    prog = build(pairs, milp_exact.exact_constraints(model, rt), blocks)
    at = highs_cutoff.solve(prog, upper=opt)
    assert at.infeasible and at.x is None and not at.optimal
    above = highs_cutoff.solve(prog, upper=opt + 1)
    assert above.optimal and not above.infeasible and above.value is not None
    assert round(above.value) == opt
