"""m-approximation within its proven ratio of the brute-force optimum (Liang & Yuan Thm 10)."""

from __future__ import annotations

from collections import Counter

from starmin.algorithms.approx import m_approx
from starmin.algorithms.exact import brute_force
from starmin.models import KAnonymity
from tests.helpers.tables import random_table, satisfies

VALUES = ([2, 2], [1, 3], [2, 3], [3, 3], [2, 2, 2])


def test_within_m_times_opt_on_random_tables() -> None:
    cases: Counter[int] = Counter()
    for seed in range(300):
        n, k = 4 + seed % 13, 2 + seed % 6
        if k > n:
            continue
        vals = VALUES[seed % len(VALUES)]
        rt = random_table(seed, n, m=len(vals), values=vals, s=2 if seed % 3 else None)
        model = KAnonymity(k)
        plan = m_approx.solve(rt, model)
        plan.validate(rt)
        assert satisfies(plan, rt, model)
        opt = brute_force.solve(rt, model).stars
        assert plan.lower_bound is not None
        assert plan.lower_bound <= opt, (seed, "lower bound above OPT")
        assert opt <= plan.stars <= rt.m * opt, (seed, plan.stars, opt)
        assert plan.guarantee.ratio == rt.m
        paper = m_approx.solve(rt, model, refine=False)  # the proof's partition verbatim
        paper.validate(rt)
        assert satisfies(paper, rt, model)
        assert paper.lower_bound == plan.lower_bound
        assert opt <= plan.stars <= paper.stars <= rt.m * opt, (seed, "refinement costlier")
        cases[plan.certificate["case"]] += 1
    assert set(cases) == {0, 1, 2, 3}, cases  # every case of the proof was exercised
