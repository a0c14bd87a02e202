"""Running and recording one l-diversity release (bench/l_diversity_experiments.py).

Every run: aggregate once per projection (``LocalEngine.to_row_types``), solve
(``starmin.api.solve`` for registered methods; the same steps -- feasibility, ``supports``,
``plan.validate`` -- for exact solvers not yet in the registry), time the solve alone
(``time.perf_counter`` wall clock and ``time.process_time`` CPU, plan built but not
applied), and optionally apply the plan
to the rows (``LocalEngine.apply_plan``) and check the released table with the independent
verifier (``starmin.verifier.verify``): a run *verified* when the verifier passes the model and
counts exactly the plan's stars.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

import numpy as np

from starmin import api
from starmin.algorithms import registry
from starmin.algorithms.base import Algorithm
from starmin.data.schema import Schema
from starmin.engines.local import LocalEncoded, LocalEngine
from starmin.errors import InvalidInput
from starmin.models import LDiversity
from starmin.models.apply import check_feasible
from starmin.transform.plan import ReleasePlan
from starmin.verifier import verify

ENGINE = LocalEngine()
HEURISTICS = ("tp", "tp+", "hilbert")
"""The registered methods with their default options (Hilbert: the bucket cut)."""
VARIANTS = ("tp+/greedy", "hilbert/greedy")
"""``name/cut``: the same methods with ``cut="greedy"`` (Ghinita et al.'s running group)."""
METHODS = HEURISTICS + VARIANTS
_UNREGISTERED = {
    "two-diversity-flow": "starmin.algorithms.exact.two_diversity_flow",
    "two-diversity-milp": "starmin.algorithms.exact.two_diversity_milp",
}


def algorithm(name: str) -> Algorithm | None:
    """The algorithm ``name`` from the registry, else from its module; None if absent."""
    try:
        return registry.get(name)
    except InvalidInput:
        pass
    module = _UNREGISTERED.get(name)
    if module is None:
        return None
    try:
        return importlib.import_module(module).ALGORITHM
    except ImportError:
        return None


def registered(name: str) -> bool:
    return name in registry.algorithms()


def aggregate(df: Any, qi: tuple[str, ...], sensitive: str) -> tuple[LocalEncoded, float]:
    """Row types of ``df`` on ``qi`` and the seconds it took."""
    t = time.perf_counter()
    enc = ENGINE.to_row_types(df, Schema.of(list(qi), sensitive))
    return enc, time.perf_counter() - t


def solve(enc: LocalEncoded, l: int, method: str) -> tuple[ReleasePlan, float, float]:
    """Plan for frequency l-diversity by ``method``, its solve time in wall-clock seconds
    and in CPU seconds of this process (less sensitive to other load on the machine)."""
    rt, model = enc.row_types, LDiversity(l)
    name, _, cut = method.partition("/")
    options: dict[str, Any] = {"cut": cut} if cut else {}
    c = time.process_time()
    t = time.perf_counter()
    if registered(name):
        plan = api.solve(rt, model, name, **options)
    else:
        algo = algorithm(name)
        if algo is None:
            raise InvalidInput(f"method {name!r} is not available")
        check_feasible(model, rt)
        reason = algo.supports(model, rt)
        if reason is not None:
            raise InvalidInput(reason)
        plan = algo.solve(rt, model, **options)
        plan.validate(rt)
    return plan, time.perf_counter() - t, time.process_time() - c


def verified(enc: LocalEncoded, plan: ReleasePlan, l: int) -> bool:
    """Apply ``plan`` to the rows and ask the independent verifier (module docstring)."""
    released = ENGINE.apply_plan(enc, plan)
    schema = enc.schema
    report = verify(released, schema.qi, schema.sensitive, [LDiversity(l)])
    return bool(report.passed and report.stars == plan.stars)


def record(enc: LocalEncoded, l: int, method: str, check: bool) -> dict[str, Any]:
    """Solve, optionally verify, and describe the run as plain JSON values."""
    plan, secs, cpu = solve(enc, l, method)
    sizes = plan.class_sizes
    rec: dict[str, Any] = {
        "method": method, "l": l, "stars": int(plan.stars),
        "tuples": int(plan.suppressed_records),
        "all_star_rows": int(plan.fully_suppressed_records),
        "classes": len(sizes), "largest_class": int(sizes.max(initial=0)),
        "lower_bound": None if plan.lower_bound is None else int(plan.lower_bound),
        "seconds": secs, "cpu_seconds": cpu,
    }
    cert = plan.certificate
    if "phase" in cert:
        rec.update(phase=int(cert["phase"]), phase2_iterations=int(cert["phase_two_iterations"]),
                   phase3_rounds=int(cert["phase_three_rounds"]))
    rec["verified"] = verified(enc, plan, l) if check else None
    return rec


def describe(enc: LocalEncoded) -> dict[str, Any]:
    rt = enc.row_types
    return {"n": int(rt.n), "d": int(rt.m), "t_in": int(rt.t_in), "s": int(rt.s)}


def warm_up() -> None:
    """Run every method once on a small table so imports and caches are not timed."""
    rng = np.random.default_rng(0)
    import polars as pl

    df = pl.DataFrame({"a": rng.integers(0, 5, 300), "b": rng.integers(0, 5, 300),
                       "s": rng.integers(0, 6, 300)})
    enc, _ = aggregate(df, ("a", "b"), "s")
    for m in METHODS:
        record(enc, 2, m, check=True)
