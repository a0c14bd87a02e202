"""The Spark engine against the local engine: identical row types, plans, verdicts and
releases (the same rows in the same order) on adult and on the synthetic census, under
k-anonymity and l-diversity; the verifier's Spark path; the Spark release's files.

Kept small (Spark is slow to start and each job costs ~0.1-1 s on a loaded machine): the
session is shared (conftest.py) and each table is released once per engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.api import aggregate
from starmin.data.rowtypes import RowTypes
from starmin.datasets import synthetic_census
from tests.helpers.shared import shared_file

ADULT_QI = ["sex", "age", "race", "marital-status"]
CENSUS_QI = ["sex", "age", "race", "education", "workclass"]


def same_row_types(a: RowTypes, b: RowTypes) -> None:
    assert a.qi == b.qi and a.sensitive == b.sensitive
    assert a.domains == b.domains
    assert a.sensitive_domains == b.sensitive_domains
    np.testing.assert_array_equal(a.codes, b.codes)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.keys, b.keys)


def same_release(local: Any, spark: Any) -> None:
    """Plans, verdicts and released rows equal (row for row, in order)."""
    pa, pb = local.plan, spark.plan
    assert (pa.method, pa.stars) == (pb.method, pb.stars)
    np.testing.assert_array_equal(pa.outputs, pb.outputs)
    for f in ("out_idx", "type_idx", "key_idx", "count"):
        np.testing.assert_array_equal(getattr(pa, f), getattr(pb, f))
    assert local.verification.as_dict() == spark.verification.as_dict()
    assert local.verification.passed
    released = pl.from_arrow(spark.table.toArrow())
    assert isinstance(released, pl.DataFrame)
    assert released.columns == local.frame.columns
    assert released.equals(local.frame)


ADULT_ROWS = 4000
"""The first rows of adult used (the whole file costs a minute more per engine here)."""


@pytest.fixture(scope="module")
def adult(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first :data:`ADULT_ROWS` records of ARX's adult.csv (``;``-separated)."""
    lines = shared_file("data/arx/adult.csv").read_text().splitlines(keepends=True)
    path = tmp_path_factory.mktemp("adult") / "adult.csv"
    path.write_text("".join(lines[:ADULT_ROWS + 1]))
    return path


def test_adult_row_types(spark: Any, adult: Path) -> None:
    same_row_types(aggregate(adult, ADULT_QI, "occupation"),
                   aggregate(adult, ADULT_QI, "occupation", engine="spark"))


def test_empty_text_missing_values_and_nan_read_alike(spark: Any, tmp_path: Path) -> None:
    """A quoted "" is the empty string, an empty field the missing value and "NaN" text, in
    both readers (the local one read "" as missing, and so did this one)."""
    path = tmp_path / "t.csv"
    path.write_text('a,b,s\nx,"",p\nx,,q\ny,"",p\ny,NaN,q\nx,1.5,p\ny,,q\n')
    local = aggregate(path, ["a", "b"], "s")
    same_row_types(local, aggregate(path, ["a", "b"], "s", engine="spark"))
    assert set(local.domains[1]) == {"", "1.5", "NaN", None}


def test_float32_and_boolean_parquet_released_alike(spark: Any, tmp_path: Path) -> None:
    """A float32 QI is released by its shortest text (0.1) and a truth value as true, by
    both engines (both had released 0.10000000149011612 and True)."""
    path = tmp_path / "t.parquet"
    pl.DataFrame({"a": pl.Series([0.1, 0.1, 0.2, 0.2, 0.3, 0.5], dtype=pl.Float32),
                  "b": [True, True, False, False, True, True],
                  "s": ["x", "y", "x", "y", "z", "x"]}).write_parquet(path)
    local = starmin.anonymize(path, ["a", "b"], "s", k=2)
    remote = starmin.anonymize(path, ["a", "b"], "s", k=2, engine="spark")
    same_release(local, remote)
    assert local.frame["a"].to_list() == ["0.1", "0.1", "0.2", "0.2", "*", "*"]
    assert local.frame["b"].to_list() == ["true", "true", "false", "false", "true", "true"]


@pytest.mark.parametrize("params", [{"k": 5, "method": "m-approx"},
                                    {"l": 3, "method": "tp"}],
                         ids=["k5", "l3"])
def test_adult_parity(spark: Any, adult: Path, params: dict[str, Any]) -> None:
    local = starmin.anonymize(adult, ADULT_QI, "occupation", engine="local", **params)
    remote = starmin.anonymize(adult, ADULT_QI, "occupation", engine="spark", **params)
    same_release(local, remote)
    assert set(remote.report["timings_s"]) >= {"read", "aggregate", "solve", "apply",
                                               "verify"}


def census_with_missing(n: int) -> pl.DataFrame:
    """The synthetic census with some missing values (data: a value of their own) and an
    identifier column."""
    df = synthetic_census(n, seed=3)
    rng = np.random.default_rng(1)
    holes = pl.Series(rng.random(n) < 0.02)
    return df.with_columns(
        pl.when(holes).then(None).otherwise(pl.col("workclass")).alias("workclass"),
        pl.when(holes.shift(1, fill_value=False)).then(None).otherwise(pl.col("age"))
        .alias("age"),
        pl.Series("id", np.arange(n)))


def test_census_parity_from_a_spark_dataframe(spark: Any) -> None:
    """A Spark DataFrame in, a Spark DataFrame out (the engine is chosen by the input); the
    same release as the local engine's on the polars table, identifiers dropped."""
    df = census_with_missing(4000)
    sdf = spark.createDataFrame(df.to_arrow(compat_level=pl.CompatLevel.oldest()))
    params: dict[str, Any] = {"l": 2, "method": "tp", "seed": 7,
                              "identifiers": "id"}
    local = starmin.anonymize(df, CENSUS_QI, "occupation", **params)
    remote = starmin.anonymize(sdf, CENSUS_QI, "occupation", **params)
    assert type(remote.table).__module__.startswith("pyspark")
    assert "id" not in remote.table.columns
    same_release(local, remote)
    rt = aggregate(sdf, CENSUS_QI, "occupation")
    same_row_types(aggregate(df, CENSUS_QI, "occupation"), rt)
    assert rt.domains[1][-1] is None and rt.domains[4][-1] is None  # missing last


def test_spark_verifier_counts_like_the_local_one(spark: Any) -> None:
    """The verifier's Spark path on a table with a failing class: the same verdict as on the
    same table in memory, through the public verify()."""
    df = pl.DataFrame({"a": ["x", "x", "y", "*", "*", None], "b": [1, 1, 2, 3, 3, None],
                       "s": ["p", "q", "p", "p", "p", "q"]})
    sdf = spark.createDataFrame(df.to_arrow(compat_level=pl.CompatLevel.oldest()))
    for params in ({"k": 2}, {"k": 2, "l": 2}):
        local = starmin.verify(df, "a,b", "s", **params)
        remote = starmin.verify(sdf, "a,b", "s", **params)
        assert not local.passed
        assert local.as_dict() == remote.as_dict()


def test_release_folder_written_atomically_and_verified(
        spark: Any, adult: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``anonymize --engine spark`` writes a folder of part files and the report beside it;
    ``verify --engine spark`` reads the folder; a second run replaces the folder whole, and
    no temporary file is left."""
    from starmin.cli.main import main

    small = tmp_path / "adult.csv"
    small.write_text("".join(adult.read_text().splitlines(keepends=True)[:400]))
    assert (tmp_path / "adult.csv") != adult
    out = tmp_path / "rel" / "adult.csv"
    argv = ["anonymize", str(small), "--qi", ",".join(ADULT_QI), "--k", "4", "-q",
            "--method", "m-approx", "-o", str(out), "--engine", "spark"]
    assert main(argv) == 0
    assert out.is_dir() and (out / "_SUCCESS").is_file()
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert Path(f"{out}.report.html").is_file()
    assert main(["verify", str(out), "--qi", ",".join(ADULT_QI), "--k", "4",
                 "--engine", "spark", "-q"]) == 0
    capsys.readouterr()
    assert main(["info", str(small), "--qi", ",".join(ADULT_QI), "--k", "4",
                 "--engine", "spark", "-q"]) == 0
    assert main(["info", str(small), "--qi", ",".join(ADULT_QI), "--k", "4", "-q"]) == 0
    info = capsys.readouterr().out.splitlines()
    half = len(info) // 2
    assert info[0].startswith("n = 399 rows")
    assert info[:half] == info[half:]  # the same row types and bounds from both engines
    assert main(argv) == 0  # replaces the previous release
    assert sorted(p.name for p in out.parent.iterdir()) == [
        "adult.csv", "adult.csv.report.html", "adult.csv.report.json"]
    parts = sorted(out.glob("part-*.csv"))
    text = pl.concat([pl.read_csv(p, separator=";", infer_schema=False) for p in parts])
    local = starmin.anonymize(small, ADULT_QI, k=4, method="m-approx")
    assert text.equals(local.frame.with_columns(pl.all().cast(pl.String)))
    assert report["stars"] == local.report["stars"]


def test_generalization_parity(spark: Any, adult: Path, tmp_path: Path) -> None:
    """ARX's hierarchies (age, marital-status) plus built-in ones for the other QIs: the same
    plan, released cells (hierarchy nodes) and verdict on both engines; the Spark release's
    cells are checked against the original rows by the verifier's Spark path."""
    small = tmp_path / "adult.csv"
    small.write_text("".join(adult.read_text().splitlines(keepends=True)[:1500]))
    params: dict[str, Any] = {
        "k": 5, "method": "m-approx", "generalize": True,
        "hierarchies": {c: shared_file(f"data/arx/adult_hierarchy_{c}.csv")
                        for c in ("age", "marital-status")}}
    local = starmin.anonymize(small, ADULT_QI, "occupation", engine="local", **params)
    remote = starmin.anonymize(small, ADULT_QI, "occupation", engine="spark", **params)
    same_release(local, remote)
    cells = remote.verification.cells
    assert cells is not None and cells.passed and cells.generalized > 0


def test_spark_cells_check_finds_what_the_local_one_finds(spark: Any, tmp_path: Path) -> None:
    """``verify(original=...)`` on a Spark release: the same cell verdict, counts and first
    violating cells as in memory, with the original as a Spark DataFrame, a polars table or
    a CSV path."""
    original = pl.DataFrame({"a": ["x", "y", "z", "x", None, "y"], "b": [1, 2, 3, 4, 5, 6],
                             "s": ["p", "q", "p", "p", "q", "q"]})
    released = pl.DataFrame({"a": ["x", "*", "w", "x", None, "q"],
                             "b": ["1", "1-4", "3", "*", "5", "6"],
                             "s": ["p", "q", "p", "p", "q", "q"]})
    hier = [["1", "1-4"], ["2", "1-4"], ["3", "1-4"], ["4", "1-4"], ["5", "5-6"],
            ["6", "5-6"]]
    local = starmin.verify(released, "a,b", "s", k=1, original=original,
                           hierarchies={"b": hier})
    assert local.cells is not None and not local.cells.passed
    sdf = spark.createDataFrame(released.to_arrow(compat_level=pl.CompatLevel.oldest()))
    sorig = spark.createDataFrame(original.to_arrow(compat_level=pl.CompatLevel.oldest()))
    path = tmp_path / "original.csv"
    original.write_csv(path)
    for orig in (sorig, original, str(path)):
        remote = starmin.verify(sdf, "a,b", "s", k=1, original=orig, hierarchies={"b": hier})
        assert remote.as_dict() == local.as_dict()
