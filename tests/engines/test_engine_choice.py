"""Choosing an engine: by name, as an object, and the errors (no Spark needed)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import starmin
from starmin.engines import LocalEngine, get_engine
from starmin.errors import InvalidInput, command_line


def test_names_and_objects() -> None:
    assert isinstance(get_engine("local"), LocalEngine)
    eng = LocalEngine()
    assert get_engine(eng) is eng
    release = starmin.anonymize("sample:liang-yuan-table1", ["Age", "Zipcode"], k=2, engine=eng)
    assert set(release.report["timings_s"]) >= {"read", "aggregate", "solve", "apply",
                                                "verify"}
    assert eng.stages.seconds["aggregate"] >= 0


def test_unknown_engine() -> None:
    with pytest.raises(InvalidInput, match=r"engine='duckdb' is not an engine: use "
                                           r"engine='local' or engine='spark'"):
        starmin.anonymize("sample:liang-yuan-table1", ["Age"], k=2, engine="duckdb")
    with pytest.raises(InvalidInput, match="engine object"):
        get_engine(3)
    with command_line(), pytest.raises(InvalidInput, match="--engine duckdb is not an engine"):
        get_engine("duckdb")


def test_spark_without_pyspark_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark -> ImportError
    with pytest.raises(InvalidInput, match=r'needs PySpark.*pip install "starmin\[spark\]"'):
        get_engine("spark")
    with command_line(), pytest.raises(InvalidInput, match="--engine spark needs PySpark"):
        get_engine("spark")


def test_uniforms_follow_the_local_stream() -> None:
    """The Spark engine's per-row random numbers are numpy's stream at each row's position,
    for any runs of positions (no Spark involved)."""
    pytest.importorskip("pyarrow")
    from starmin.engines.spark.apply import uniforms

    full = np.random.default_rng(11).random(5000)
    pos = np.r_[np.arange(17, 900), np.arange(3000, 3100), [4999, 0, 1]].astype(np.int64)
    np.testing.assert_array_equal(uniforms(pos, 11), full[pos])
    assert len(uniforms(np.zeros(0, dtype=np.int64), 11)) == 0


def test_cli_unknown_engine_is_bad_input(tmp_path: object, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    from starmin.cli.main import main

    for argv in (["anonymize", "sample:liang-yuan-table1", "--k", "2", "--engine", "duckdb",
                  "-q"],
                 ["info", "sample:liang-yuan-table1", "--engine", "duckdb", "-q"]):
        assert main(argv) == 2
        assert "--engine duckdb is not an engine: use --engine local or --engine spark" in \
            capsys.readouterr().err
