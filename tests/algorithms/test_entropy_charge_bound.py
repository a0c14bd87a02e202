"""Tests of the entropy l-diversity charge LP bound (``entropy_charges``,
:mod:`starmin.algorithms.entropy_charge_bound`).

The bound is checked against brute force on many small random tables (l = 2 and 3) and
shown above the distinct charge LP on most of them (a bound that adds nothing would pass the
first check too); a literal table pins a case at the optimum where the distinct bounds stay
at half of it. The check that guards the solver's answer is shown to reject raised charges,
the nonzero limit to give no bound, and the report to carry it for entropy l-diversity only.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import starmin
from starmin.algorithms import charge_lp, l_charge_bound
from starmin.algorithms.distinct_charge_bound import distinct_charge_bound
from starmin.algorithms.diversity_levels import last_level, levels
from starmin.algorithms.entropy_charge_bound import entropy_charge_bound
from starmin.algorithms.exact import brute_force
from starmin.algorithms.l_diversity_bound import diversity_lower_bounds
from starmin.api import lower_bounds
from starmin.models import DistinctLDiversity, EntropyLDiversity, LDiversity
from tests.helpers.solver import shifted
from tests.helpers.tables import from_rows, solved_tables


def _histogram(rt: starmin.RowTypes) -> np.ndarray:
    return np.asarray(rt.sensitive_histograms(rt.counts)[0], dtype=np.int64)


def _bound(rt: starmin.RowTypes, l: int, **options: object) -> int | None:
    return entropy_charge_bound(rt.codes, _histogram(rt), l, last_level(rt.m, rt.t_in),
                                **options)  # type: ignore[arg-type]


@functools.cache
def _solved(l: int) -> list[tuple[int, starmin.RowTypes, int]]:
    """The feasible tables of seeds 0..149 with their brute-force optimum."""
    return solved_tables(EntropyLDiversity(l), l, 150)


@pytest.mark.parametrize("l", [2, 3])
def test_never_above_the_optimum_and_above_the_distinct_lp_on_most(l: int) -> None:
    tables = above = 0
    for seed, rt, opt in _solved(l):
        got = _bound(rt, l)
        if got is None:
            continue
        h = _histogram(rt)
        distinct = distinct_charge_bound(rt.codes, h, l, levels(rt.codes, h, l,
                                                                (h > 0).sum(axis=1) < l),
                                         last_level(rt.m, rt.t_in))
        assert got <= opt, (seed, got, opt)
        tables += 1
        above += got > (distinct or 0)
    assert tables >= 60, tables
    assert above >= tables // 2, (above, tables)


def test_a_literal_table_at_the_optimum() -> None:
    # (0, 1) holds values 0 and 1 once each: entropy log 2, it may stay. (0, 0) holds value
    # 0 twice and (1, 0) value 1 once: each must leave. (1, 1) holds 2, 2, 1: two values, not
    # equally often, so its entropy is below log 2 though it holds two values -- the distinct
    # bounds see only the rows of one value (3), the entropy charges 6, the optimum; where the
    # entropy LP gives a bound the distinct LP for the same l is not run.
    rt = from_rows([[0, 1], [0, 0], [0, 0], [1, 1], [1, 0], [1, 1], [1, 1], [0, 1]],
                   [1, 0, 0, 2, 1, 2, 1, 0])
    b = diversity_lower_bounds(rt, [EntropyLDiversity(2)])
    assert b == {"distinct_values": 3, "entropy_charges": 6}  # the distinct LP not needed
    b = diversity_lower_bounds(rt, [DistinctLDiversity(2)])
    assert b == {"distinct_values": 3, "distinct_charges": 3}
    assert brute_force.solve(rt, EntropyLDiversity(2)).stars == 6


def test_the_check_rejects_raised_charges(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = from_rows([[0, 1], [0, 0], [0, 0], [1, 1], [1, 0], [1, 1], [1, 1], [0, 1]],
                   [1, 0, 0, 2, 1, 2, 1, 0])
    solve = charge_lp.solve
    monkeypatch.setattr(l_charge_bound, "solve", shifted(solve, 0.3))
    said: list[str] = []
    assert _bound(rt, 2, progress=said.append) is None
    assert any("failed its check" in line for line in said)
    monkeypatch.setattr(l_charge_bound, "solve", shifted(solve, -1.0))
    lowered = _bound(rt, 2)
    assert lowered is not None and lowered < 6


def test_over_the_nonzero_limit_no_bound() -> None:
    _, rt, _ = _solved(2)[0]
    assert _bound(rt, 2) is not None
    assert _bound(rt, 2, max_nonzeros=0) is None


def test_reports_carry_it_for_entropy_l_diversity_only() -> None:
    rt = _solved(2)[3][1]
    assert "entropy_charges" in lower_bounds(rt, EntropyLDiversity(2))
    for model in (LDiversity(2), DistinctLDiversity(2)):
        assert "entropy_charges" not in lower_bounds(rt, model)


def test_by_pdlp_a_bound_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the dual simplex's limit at 0 every LP goes to PDLP and its repair: never above
    brute force, and near the dual simplex's bound."""
    from starmin.algorithms import entropy_charge_bound as ecb

    plain = {seed: _bound(rt, 2) for seed, rt, _ in _solved(2)[:30]}
    monkeypatch.setattr(ecb, "SIMPLEX_MAX_NONZEROS", 0)
    tables = near = 0
    for seed, rt, opt in _solved(2)[:30]:
        said: list[str] = []
        got = _bound(rt, 2, progress=said.append)
        if got is None or plain[seed] is None or not any("PDLP stopped" in x for x in said):
            continue  # (no bucket can fail: no LP to solve)
        assert got <= opt, (seed, got, opt)
        tables += 1
        near += got >= plain[seed] - 1
    assert tables >= 15 and near >= tables * 0.8, (near, tables)
