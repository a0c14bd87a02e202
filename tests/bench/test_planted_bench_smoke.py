"""Smoke test of bench/planted.py: one tiny instance through every registered method, the
work limit, and the markdown table -- so the bench cannot rot."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from starmin.algorithms import registry

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("planted")
    finally:
        sys.path.remove(str(BENCH))


def test_run_one_and_table(bench: Any) -> None:
    r = bench.run_one("bredereck-prop1", 8, {}, bench.WORK_LIMIT)
    assert r["optimum"] == 18 and r["rows"] == 6 and r["lower_bounds"]["best"] <= 18
    ran = {n: m for n, m in r["methods"].items() if m["status"] == "ok"}
    assert ran["brute-force"]["stars"] == 18 and ran["brute-force"]["at_optimum"] is True
    assert all(m["stars"] >= 18 for m in ran.values())
    algorithms = registry.algorithms()
    assert set(r["methods"]) == set(algorithms)  # every registered method is listed
    # a zero work limit skips every method with a work estimate
    tight = bench.run_one("bredereck-prop1", 8, {}, 0.0)
    assert all(m["status"] == "skipped" for n, m in tight["methods"].items()
               if algorithms[n].auto is not None)
    text = bench.table({"runs": [{"label": "bredereck-prop1", **r}]})
    assert text.splitlines()[2].startswith("| bredereck-prop1 | 8 | 6 x 4 (5) | 18 |")
    assert "brute-force **18**" in text
