"""bench/spark_scale.py's record keeping: a run of some models keeps the other models of an
earlier run of the same configuration, with their own peaks, and the table shows each
model's own peak memory (nothing here starts Spark)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("spark_scale")
    finally:
        sys.path.remove(str(BENCH))


def _model(stars: int, **extra: Any) -> dict[str, Any]:
    stages = {s: 1.0 for s in ("read", "aggregate", "solve", "lower_bounds", "apply",
                               "verify", "write")}
    return {"method": "tp", "stars": stars, "t_in": 10, "verified": True,
            "stages_s": stages, **extra}


def test_a_partial_run_keeps_the_other_models_with_their_own_peaks(bench: Any) -> None:
    earlier = {"engine": "spark", "master": "local[2]", "rows": 100, "driver_peak_mb": 300.0,
               "jvm_peak_mb": 900.0, "models": {"k5": _model(5), "l3": _model(7)}}
    new = {"engine": "spark", "master": "local[2]", "rows": 100, "driver_peak_mb": 100.0,
           "jvm_peak_mb": 400.0,
           "models": {"l3": _model(8, driver_peak_mb=100.0, jvm_peak_mb=400.0)}}
    merged = bench._merge(earlier, new)
    assert list(merged["models"]) == ["k5", "l3"]
    assert merged["models"]["l3"]["stars"] == 8  # the new run replaces its own models
    assert merged["models"]["k5"]["jvm_peak_mb"] == 900.0  # the old process's peak
    table = bench.markdown([merged])
    assert "| 300 / 900 |" in table and "| 100 / 400 |" in table
    assert bench._merge(None, new) is new
