"""Properties: a count-weighted table behaves like its expanded rows; row order is irrelevant.

``RowTypes.from_arrays(X, S, weights)`` aggregates duplicate rows into counts; the helper
``expanded`` undoes that (one row type per row, duplicates kept apart), so the brute force
then runs its DP over single rows instead of multiplicities -- a different computation that
must give the same optimum.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.algorithms.approx import m_approx
from starmin.algorithms.exact import brute_force
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible
from starmin.models import (
    DistinctLDiversity,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    TCloseness,
)
from tests.helpers.naive import naive_optimum
from tests.helpers.tables import expanded, permuted, satisfies

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def weighted_tables(draw: st.DrawFn, max_rows: int = 10,
                    sensitive: bool | None = None) -> tuple[RowTypes, int]:
    """A table given as distinct-ish rows with weights (total <= max_rows), and a k.
    ``sensitive``: force (True) or forbid (False) a sensitive column with 3 values."""
    m = draw(st.integers(1, 3))
    t = draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 2), min_size=m, max_size=m),
                               min_size=t, max_size=t)))
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=t, max_size=t)))
    while w.sum() > max_rows:
        w[int(np.argmax(w))] -= 1
        if w.min() == 0:
            keep = w > 0
            X, w = X[keep], w[keep]
    with_sa = draw(st.booleans()) if sensitive is None else sensitive
    top = 2 if sensitive else 1
    S = np.array(draw(st.lists(st.integers(0, top), min_size=len(w), max_size=len(w))))
    rt = RowTypes.from_arrays(X, S if with_sa else None, weights=w)
    k = draw(st.integers(1, rt.n))
    return rt, k


@SETTINGS
@given(weighted_tables())
def test_brute_force_weights_equal_expanded_rows(case: tuple[RowTypes, int]) -> None:
    rt, k = case
    model = KAnonymity(k)
    ex = expanded(rt)
    a, b = brute_force.solve(rt, model), brute_force.solve(ex, model)
    a.validate(rt)
    b.validate(ex)
    assert satisfies(a, rt, model) and satisfies(b, ex, model)
    assert a.stars == b.stars
    if rt.n <= 8:
        assert a.stars == naive_optimum(rt, model)


@SETTINGS
@given(weighted_tables(), st.integers(0, 2**31 - 1))
def test_brute_force_invariant_under_permutation(case: tuple[RowTypes, int], seed: int) -> None:
    rt, k = case
    model = KAnonymity(k)
    pr = permuted(rt, seed)
    plan = brute_force.solve(pr, model)
    plan.validate(pr)
    assert plan.stars == brute_force.solve(rt, model).stars
    # and on the expanded rows, shuffled
    pe = permuted(expanded(rt), seed)
    assert brute_force.solve(pe, model).stars == plan.stars


@SETTINGS
@given(weighted_tables())
def test_m_approx_weights_equal_expanded_rows(case: tuple[RowTypes, int]) -> None:
    rt, k = case
    model = KAnonymity(k)
    ex = expanded(rt)
    a, b = m_approx.solve(rt, model), m_approx.solve(ex, model)
    a.validate(rt)
    b.validate(ex)
    assert satisfies(a, rt, model) and satisfies(b, ex, model)
    assert a.stars == b.stars
    assert a.lower_bound == b.lower_bound
    assert a.certificate["case"] == b.certificate["case"]


@SETTINGS
@given(weighted_tables(), st.integers(0, 2**31 - 1))
def test_m_approx_invariant_under_permutation(case: tuple[RowTypes, int], seed: int) -> None:
    rt, k = case
    model = KAnonymity(k)
    a = m_approx.solve(rt, model)
    # row order alone: the same release cost
    rows_only = permuted(expanded(rt), seed, columns=False, values=False)
    assert m_approx.solve(rows_only, model).stars == a.stars
    # relabelled values and columns may break ties differently, but the proof's case and
    # lower bound depend on class sizes only, and the ratio still holds
    pr = permuted(rt, seed)
    b = m_approx.solve(pr, model)
    b.validate(pr)
    assert satisfies(b, pr, model)
    assert (b.certificate["case"], b.lower_bound) == (a.certificate["case"], a.lower_bound)
    opt = brute_force.solve(rt, model).stars
    assert b.lower_bound is not None and b.lower_bound <= opt <= b.stars <= rt.m * opt


SENSITIVE_MODELS = (LDiversity(2), DistinctLDiversity(2), TCloseness(0.3),
                    TCloseness(Fraction(1, 5), OrderedDistance()), PSensitiveKAnonymity(2, 2))


def _stars(rt: RowTypes, model: PrivacyModel) -> int | None:
    try:
        plan = brute_force.solve(rt, model)
    except Infeasible:
        return None
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    return plan.stars


@SETTINGS
@given(weighted_tables(sensitive=True), st.sampled_from(SENSITIVE_MODELS),
       st.integers(0, 2**31 - 1))
def test_sensitive_models_weights_and_order_do_not_matter(
        case: tuple[RowTypes, int], model: PrivacyModel, seed: int) -> None:
    rt, _ = case
    stars = _stars(rt, model)
    assert _stars(expanded(rt), model) == stars
    assert _stars(permuted(expanded(rt), seed), model) == stars
