"""Smoke test of bench/l_diversity_experiments.py: the core function on a tiny config.

Runs every experiment kind (projection sweeps on an adult sample and a synthetic OCC table,
time vs n, the exact 2-diversity matching and brute force) in seconds, and checks the
result structure, that every release passed the independent verifier, and that the
summaries and markdown tables are built -- so the bench cannot rot.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.adult import adult_csv

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("l_diversity_experiments")
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def results(bench: Any) -> dict[str, Any]:
    adult_csv()  # the adult sample is read by bench/l_diversity_data.py; skip when missing
    return bench.run_experiments(bench.tiny_config(seed=0), seed=0)


RUN_FIELDS = {"method", "l", "d", "qi", "n", "t_in", "stars", "tuples", "lower_bound",
              "seconds", "cpu_seconds", "verified"}


def _runs(results: dict[str, Any]) -> list[dict[str, Any]]:
    runs = [r for t in results["tables"] for r in t["runs"]]
    runs += [r for s in results["scaling"] for r in s["runs"]]
    return runs + [r for e in results["exact"] for r in e["runs"]]


def test_every_release_verified_and_no_check_failed(results: dict[str, Any]) -> None:
    runs = _runs(results)
    assert len(runs) > 30
    assert all(r["verified"] is True for r in runs), [r for r in runs if not r["verified"]]
    assert results["checks"]["failures"] == []
    assert results["checks"]["verified"] == len(runs)


def test_runs_have_the_recorded_fields(results: dict[str, Any]) -> None:
    for r in _runs(results):
        assert r.keys() >= RUN_FIELDS
        assert r["stars"] >= r["tuples"] >= 0
        assert r["stars"] <= r["tuples"] * r["d"]
        if r["method"] == "tp":
            assert r["phase"] in (1, 2, 3)
            assert r["stars"] == r["tuples"] * r["d"]          # TP suppresses whole rows


def test_every_method_ran_and_exact_optima_bound_the_heuristics(results: dict[str, Any]
                                                               ) -> None:
    for t in results["tables"]:
        assert {r["method"] for r in t["runs"]} == {"tp", "tp+", "hilbert", "tp+/greedy",
                                                    "hilbert/greedy"}
    methods = [e["method"] for e in results["exact"]]
    assert methods == ["two-diversity-flow", "brute-force", "two-diversity-milp"]
    for e in results["exact"]:
        method = e["method"]
        runs = e["runs"]
        assert runs
        assert {"tp", "tp+", "hilbert", "hilbert/greedy", method} <= {r["method"] for r in runs}
        assert all(r["stars"] >= r["opt"] for r in runs)
        assert all(r["stars"] == r["opt"] for r in runs if r["method"].startswith(
            ("two-diversity", "brute")))


def test_summaries_and_tables(bench: Any, results: dict[str, Any]) -> None:
    s = results["summary"]
    assert [t["name"] for t in s["tables"]] == [t["name"] for t in results["tables"]]
    for t in s["tables"]:
        for m in ("tp", "tp+", "hilbert"):
            assert t["stars_vs_l"][m] and t["stars_vs_d"][m]
        assert t["phases"]["runs"] == sum(sum(c.values()) for c in t["phases"]["per_l"].values())
    assert all(e["instances"] > 0 for e in s["exact"])
    text = bench.markdown(s)
    assert "stars vs l" in text and "brute force" in text
    json.dumps({k: results[k] for k in ("meta", "checks", "summary")}, allow_nan=False)
