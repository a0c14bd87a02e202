"""The Python API (issue 7, part 8): the release comes back in the kind the data came in,
``Release.write`` writes the same atomic pair as the CLI, and ``starmin.verify`` checks any
table from parameters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import starmin
from starmin.errors import InvalidInput


def _table() -> pl.DataFrame:
    rows = 24
    return pl.DataFrame({
        "zip": [f"0213{i % 4}" for i in range(rows)],
        "age": [30 + i % 3 for i in range(rows)],
        "disease": ["flu", "cold", "ulcer"] * (rows // 3),
        "count": [i if i % 5 else None for i in range(rows)],  # an int column with nulls
    })


@pytest.mark.parametrize(("convert", "kind"), [
    (lambda df: df, pl.DataFrame),
    (lambda df: df.lazy(), pl.LazyFrame),
    (lambda df: df.to_pandas(), pd.DataFrame),
    (lambda df: df.to_arrow(), pa.Table),
])
def test_release_comes_back_in_the_kind_it_came_in(convert: Any, kind: type) -> None:
    release = starmin.anonymize(convert(_table()), qi="zip,age", sensitive="disease", k=3, l=2)
    assert isinstance(release.table, kind)
    assert isinstance(release.frame, pl.DataFrame)
    back = release.table.collect() if kind is pl.LazyFrame else pl.from_pandas(
        release.table) if kind is pd.DataFrame else pl.DataFrame(release.table)
    assert back.height == 24
    assert back.columns == release.frame.columns
    assert back["zip"].to_list() == release.frame["zip"].to_list()


def test_a_path_gives_polars(tmp_path: Path) -> None:
    p = tmp_path / "in.csv"
    _table().write_csv(p, separator=";")
    for source in (p, str(p)):
        release = starmin.anonymize(source, qi="zip,age", k=3)
        assert isinstance(release.table, pl.DataFrame)
        assert release.report["input"]["source"] == str(p)


def test_write_pair_keeps_the_input_separator_and_values(tmp_path: Path) -> None:
    p = tmp_path / "in.csv"
    _table().write_csv(p, separator=";")
    release = starmin.anonymize(p, qi="zip,age", sensitive="disease", k=3)
    out = release.write(tmp_path / "out" / "rel.csv")
    assert out == tmp_path / "out" / "rel.csv"
    text = out.read_text().splitlines()
    assert text[0] == "zip;age;disease;count"
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert report["stars"] == release.report["stars"]
    verdict = starmin.verify(out, qi="zip,age", sensitive="disease", k=3)
    assert verdict.passed


def test_write_from_pandas_writes_the_polars_form(tmp_path: Path) -> None:
    """What is written is the release's polars form, not a round trip through pandas."""
    release = starmin.anonymize(_table().to_pandas(), qi="zip,age", k=3)
    out = release.write(tmp_path / "rel.parquet")
    assert pl.read_parquet(out).equals(release.frame)
    assert (tmp_path / "rel.parquet.report.json").exists()


def test_a_pandas_table_keeps_its_index() -> None:
    """The rows keep their order, so a pandas table comes back with its own index (often the
    record key; it came back as a RangeIndex)."""
    data = _table().to_pandas()
    data.index = pd.Index([10 * i + 7 for i in range(len(data))], name="id")
    release = starmin.anonymize(data, qi="zip,age", k=3)
    assert release.table.index.equals(data.index)
    assert list(release.table.columns) == list(data.columns)


@pytest.mark.parametrize(("name", "words"), [
    ("rel.txt", ("'.txt'", "give path a file name")),
    ("folder", ("is a folder",)),
])
def test_write_refuses_bad_paths_before_writing(tmp_path: Path, name: str,
                                                words: tuple[str, ...]) -> None:
    (tmp_path / "folder").mkdir()
    release = starmin.anonymize(_table(), qi="zip,age", k=3)
    with pytest.raises(InvalidInput) as err:
        release.write(tmp_path / name)
    for w in words:
        assert w in str(err.value)
    assert {p.name for p in tmp_path.iterdir()} == {"folder"}


def test_write_nested_to_csv_refused(tmp_path: Path) -> None:
    df = _table().with_columns(tags=pl.Series([[1, 2]] * 24))
    release = starmin.anonymize(df, qi="zip,age", k=3)
    with pytest.raises(InvalidInput, match=r"'tags'.*give path a \.parquet"):
        release.write(tmp_path / "rel.csv")
    assert list(tmp_path.iterdir()) == []
    release.write(tmp_path / "rel.parquet")
    assert pl.read_parquet(tmp_path / "rel.parquet")["tags"].to_list() == [[1, 2]] * 24


def test_verify_from_parameters() -> None:
    df = _table()
    assert starmin.verify(df, qi="zip,age", k=2).passed  # 4 zips x 3 ages, 2 rows each
    assert not starmin.verify(df, qi="zip,age", k=3).passed
    assert not starmin.verify(df.to_pandas(), qi=["zip", "age"], sensitive="disease",
                              l=2).passed
    assert starmin.verify(df.to_arrow(), qi="zip", sensitive="disease", l=3).passed
    verdict = starmin.verify(df, qi="zip", sensitive="disease", k=6, t=0.0)
    assert verdict.passed and {c.name for c in verdict.checks} >= {"6-anonymity"}


def test_verify_with_model_objects_and_no_model() -> None:
    from starmin.models import KAnonymity

    assert starmin.verify(_table(), qi="zip", model=KAnonymity(6)).passed
    assert not starmin.verify(_table(), qi="zip", model=[KAnonymity(7)], k=2).passed
    with pytest.raises(InvalidInput, match="no privacy model given"):
        starmin.verify(_table(), qi="zip")


def test_verify_is_the_function_after_the_verifier_is_imported() -> None:
    import starmin.verifier  # the independent verifier's package

    assert callable(starmin.verify)
    assert starmin.verify is starmin.verification.verify
    assert starmin.verifier.verify is not starmin.verify
