"""Every exact method reaches the planted optimum; no lower bound exceeds it
(src/starmin/datasets/planted/).

The methods are taken from the registry (guarantee kind ``exact`` or ``fpt``, and ``supports``
the instance), so a method registered later is held to the planted optima at once. The lower
bounds are :func:`starmin.lower_bounds` (every bound the reports carry) and each exact
plan's own ``lower_bound``."""

from __future__ import annotations

import functools
from typing import Any

import pytest

import starmin
from starmin.algorithms import registry
from starmin.algorithms.exact import brute_force
from starmin.data import Schema
from starmin.data.rowtypes import RowTypes
from starmin.datasets.planted import FAMILIES, generate
from starmin.datasets.planted.instance import PlantedInstance
from starmin.engines.local import LocalEngine

# tiny planted instances (brute force supports them: at most 12 distinct rows)
CASES: list[tuple[str, int, dict[str, Any], int]] = [
    ("liang-yuan-thm3", 6, {}, 0),
    ("liang-yuan-thm3", 8, {"cross": 5}, 1),
    ("liang-yuan-thm4", 4, {}, 0),
    ("liang-yuan-thm5", 6, {}, 2),
    ("liang-yuan-thm5", 8, {"extra": 3, "density": 0.25}, 0),
    ("liang-yuan-thm6", 3, {"edges": 7}, 0),
    ("liang-yuan-thm6", 4, {"t": 0}, 1),
    ("liang-yuan-thm7", 1, {}, 0),
    ("xiao-lemma3", 3, {}, 0),
    ("xiao-lemma3", 4, {"values": 8, "edges": 6}, 1),
    ("meyerson-williams-thm3.1", 9, {}, 0),
    ("meyerson-williams-thm3.1", 8, {"k": 2, "edges": 7}, 1),
    ("meyerson-williams-thm3.1", 8, {"k": 4, "edges": 5}, 2),
    ("bredereck-prop1", 16, {}, 0),
    ("bredereck-thm1", 8, {"t_out": 4}, 1),
    # the k-anonymity families under l-diversity and t-closeness (one sensitive value per row:
    # Liang & Yuan Lemma 1, Bredereck et al. Corollary 1); k = 2 reaches the 2-diversity methods
    ("liang-yuan-thm3", 4, {"model": "l-diversity"}, 0),
    ("liang-yuan-thm3", 6, {"model": "t-closeness"}, 1),
    ("liang-yuan-thm5", 6, {"model": "l-diversity"}, 0),
    ("meyerson-williams-thm3.1", 8, {"k": 2, "model": "l-diversity"}, 0),
    ("meyerson-williams-thm3.1", 9, {"model": "t-closeness"}, 1),
    ("bredereck-prop1", 4, {"model": "l-diversity"}, 0),
    ("bredereck-thm1", 8, {"model": "t-closeness"}, 2),
]


def row_types(inst: PlantedInstance) -> RowTypes:
    schema = Schema.of(list(inst.qi), list(inst.sensitive) or None)
    return LocalEngine().to_row_types(inst.frame(), schema).row_types


@functools.cache
def case(i: int) -> tuple[PlantedInstance, RowTypes]:
    name, size, params, seed = CASES[i]
    inst = generate(name, size, seed=seed, **params)
    return inst, row_types(inst)


EXACT = [n for n, a in registry.algorithms().items() if a.guarantee.kind in ("exact", "fpt")]


def test_every_family_is_covered() -> None:
    assert {c[0] for c in CASES} == set(FAMILIES) - {"meyerson-williams-thm3.2"}


def test_brute_force_is_among_the_exact_methods() -> None:
    assert "brute-force" in EXACT


def test_two_diversity_methods_meet_a_planted_instance() -> None:
    """The 2-diversity exact methods support some case (l = k = 2 with one value per row)."""
    for method in ("two-diversity-milp",):
        if method in EXACT:
            algo = registry.get(method)
            assert any(algo.supports(case(i)[0].model(), case(i)[1]) is None
                       for i in range(len(CASES)))


@pytest.mark.parametrize("i", range(len(CASES)),
                         ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in CASES])
def test_exact_methods_reach_the_planted_optimum(i: int) -> None:
    """Every exact method that supports the instance (brute force always must) reaches the
    planted optimum, and its lower bound never exceeds it; methods that do not support it are
    named in the assertion message only if brute force is among them."""
    inst, rt = case(i)
    model = inst.model()
    assert inst.optimum.stars is not None
    ran = []
    for method in EXACT:
        reason = registry.get(method).supports(model, rt)
        if reason is not None:
            assert method != "brute-force", reason  # the oracle must cover every case here
            continue
        plan = starmin.solve(rt, model, method=method, seed=0)
        assert plan.stars == inst.optimum.stars, method
        if plan.lower_bound is not None:
            assert plan.lower_bound <= inst.optimum.stars, method
        ran.append(method)
    assert "brute-force" in ran


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in CASES])
def test_lower_bounds_never_exceed_the_planted_optimum(i: int) -> None:
    inst, rt = case(i)
    bounds = starmin.lower_bounds(rt, inst.model())
    assert inst.optimum.stars is not None
    assert all(v <= inst.optimum.stars for v in bounds.values()), bounds


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_unplanted_bound_holds(name: str) -> None:
    """Without a planted solution the recorded lower bound (the reductions' 'if' counting)
    still holds: brute force never goes below it."""
    size = {"liang-yuan-thm3": 6, "liang-yuan-thm4": 4, "liang-yuan-thm5": 6,
            "liang-yuan-thm6": 3, "liang-yuan-thm7": 1, "xiao-lemma3": 3,
            "bredereck-prop1": 12, "bredereck-thm1": 8}.get(name, 7)
    params = {"liang-yuan-thm6": {"edges": 5}, "xiao-lemma3": {"edges": 5}}.get(name, {})
    for seed in range(3):
        inst = generate(name, size, seed=seed, plant=False, **params)
        rt = row_types(inst)
        stars = brute_force.solve(rt, inst.model()).stars
        lower = inst.optimum.lower_bound
        if lower is not None:
            assert stars >= lower


def test_meyerson_williams_thm32_upper_bound_holds() -> None:
    inst = generate("meyerson-williams-thm3.2", 9, seed=4)
    stars = brute_force.solve(row_types(inst), inst.model()).stars
    assert inst.optimum.upper_bound is not None and stars <= inst.optimum.upper_bound
