"""Theorem 11's route (src/starmin/algorithms/exact/two_diversity_simplex.py) next to the flow
and the MILP: the three exact 2-diversity methods agree on every seeded random table, and
with brute force on the small ones; the SIMPLEX MATCHING instance satisfies the simplex
condition (Liang & Yuan Sec. 6) and its perfect matchings are Lemma 2's good partitions."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.exact import (
    brute_force,
    two_diversity_flow,
    two_diversity_milp,
    two_diversity_simplex,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit
from starmin.models import DistinctLDiversity, LDiversity
from tests.helpers.tables import from_rows, satisfies

L2 = LDiversity(2)


def _table(seed: int, n: int, s: int, m: int = 3, values: int = 3) -> RowTypes:
    """Random QIs; ``s`` sensitive values, balanced, so the table is 2-eligible (one row
    more when two values would be unequal)."""
    n += n % 2 if s == 2 else 0
    rng = np.random.default_rng(seed)
    return RowTypes.from_arrays(rng.integers(0, values, size=(n, m)),
                                rng.permutation(np.arange(n) % s))


def _simplex(rt: RowTypes) -> int:
    plan = two_diversity_simplex.solve(rt, L2)
    plan.validate(rt)
    assert satisfies(plan, rt, L2)
    assert plan.lower_bound == plan.stars and plan.guarantee.kind == "exact"
    return plan.stars


@pytest.mark.parametrize("seed", range(40))
def test_all_three_and_brute_force_agree_on_small_tables(seed: int) -> None:
    n, s = 4 + seed % 9, 2 + seed % 3
    rt = _table(seed, n, s, m=1 + seed % 4, values=2 + seed % 3)
    want = brute_force.solve(rt, L2).stars
    assert _simplex(rt) == want
    assert two_diversity_milp.solve(rt, L2).stars == want
    if s == 2:
        assert two_diversity_flow.solve(rt, L2).stars == want


@pytest.mark.parametrize("seed", range(8))
def test_all_three_agree_beyond_brute_force(seed: int) -> None:
    """18-32 rows: beyond brute force's 16 distinct rows; the three exact methods agree."""
    s = 2 + seed % 3
    rt = _table(500 + seed, 18 + 2 * seed, s, m=4, values=3)
    got = _simplex(rt)
    assert got == two_diversity_milp.solve(rt, L2).stars
    if s == 2:
        assert got == two_diversity_flow.solve(rt, L2).stars


def test_simplex_condition_and_edges() -> None:
    rt = _table(3, 12, 4, m=4, values=2)
    st, sk, _, edges, cost = two_diversity_simplex.hypergraph(rt)
    checked = two_diversity_simplex.simplex_condition(rt, edges, cost, st)
    pairs, triples = two_diversity_milp.group_type_count(rt)
    assert checked == triples and len(edges) == pairs + triples
    for row, c in zip(edges.tolist(), cost.tolist(), strict=True):
        mem = [i for i in row if i >= 0]
        assert len({int(sk[i]) for i in mem}) == len(mem)  # distinct values (Lemma 2)
        codes = rt.codes[st[mem]]
        assert c == len(mem) * int((~(codes == codes[0]).all(axis=0)).sum())  # Sec. 2 cost


def test_needs_a_triple() -> None:
    # three identical rows with values 0, 1, 2 cost nothing as one triple; any pair would
    # leave a single row
    rt = from_rows([[0, 0], [0, 0], [0, 0]], sa=[0, 1, 2])
    plan = two_diversity_simplex.solve(rt, L2)
    assert plan.stars == 0 and plan.class_sizes.tolist() == [3]


def test_refusals() -> None:
    rt = _table(1, 8, 2)
    assert two_diversity_simplex.supports(DistinctLDiversity(2), rt) is not None
    with pytest.raises(InvalidInput):
        two_diversity_simplex.solve(rt, DistinctLDiversity(2))
    with pytest.raises(Infeasible):
        two_diversity_simplex.solve(from_rows([[0], [1], [0]], sa=[0, 0, 1]), L2)
    big = _table(2, 200, 8, m=6)
    reason = two_diversity_simplex.supports(L2, big)
    assert reason is not None and "edge types" in reason and "--method auto" in reason
    with pytest.raises(SolverLimit):
        two_diversity_simplex.solve(big, L2)
