"""The local engine's release held as categoricals (issue 11, part 2: peak memory): the CSV
bytes are those of the text release, ``Release.table`` and a Parquet file keep text QI
columns, the verdict is the same."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import starmin
from starmin.data import Schema
from starmin.engines.local import LocalEngine, as_text
from starmin.verifier import verify

SRC = Path(__file__).resolve().parents[2] / "src"
HOSTILE = ["a", "", None, "x,y", 'q"q', "line\nbreak", " sp ", "1.0", "é", "#c", "a;b",
           "t\tab"]


def _table(rows: int = 60) -> pl.DataFrame:
    return pl.DataFrame({
        "zip": [HOSTILE[i % len(HOSTILE)] for i in range(rows)],
        "age": [30 + i % 3 for i in range(rows)],
        "town": [HOSTILE[(i // 3) % 4] for i in range(rows)],
        "disease": ["flu", "cold", "ulcer", None][:3] * (rows // 3),
        "note": [f"n{i}" if i % 7 else None for i in range(rows)],
    })


def _release(df: pl.DataFrame, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    schema = Schema.of(["zip", "age", "town"], ["disease"], None)
    eng = LocalEngine()
    enc = eng.to_row_types(df, schema)
    plan = starmin.solve(enc.row_types, starmin.models.KAnonymity(4), "auto", seed=seed)
    return (eng.apply_plan(enc, plan, seed=seed),
            eng.apply_plan(enc, plan, seed=seed, categorical=True))


@pytest.mark.parametrize("separator", [",", ";", "\t"])
@pytest.mark.parametrize("seed", [0, 3])
def test_categorical_release_writes_the_same_bytes(separator: str, seed: int) -> None:
    text, cat = _release(_table(), seed)
    assert all(cat.schema[c] == pl.Categorical for c in ("zip", "age", "town"))
    assert all(text.schema[c] == pl.String for c in ("zip", "age", "town"))
    a, b = io.BytesIO(), io.BytesIO()
    text.write_csv(a, separator=separator)
    cat.write_csv(b, separator=separator)
    assert a.getvalue() == b.getvalue()
    assert as_text(cat, ("zip", "age", "town")).equals(text)


def test_the_verdict_is_the_same() -> None:
    text, cat = _release(_table())
    models = [starmin.models.KAnonymity(4)]
    a = verify(text, ("zip", "age", "town"), ("disease",), models)
    b = verify(cat, ("zip", "age", "town"), ("disease",), models)
    assert a.passed and b.passed
    assert a.as_dict() == b.as_dict()


def test_api_gives_text_columns_and_parquet_keeps_them(tmp_path: Path) -> None:
    p = tmp_path / "in.csv"
    _table().write_csv(p)
    release = starmin.anonymize(p, qi="zip,age,town", sensitive="disease", k=4)
    assert release.frame.schema["zip"] == pl.Categorical
    assert release.table.schema["zip"] == pl.String
    assert release.table.schema["age"] == pl.String
    # the sensitive column read from the file is a categorical too, given back as text
    assert release.frame.schema["disease"] == pl.Categorical
    assert release.table.schema["disease"] == pl.String
    out = release.write(tmp_path / "rel.parquet")
    back = pl.read_parquet(out)
    assert back.schema["zip"] == pl.String and back.schema["disease"] == pl.String
    assert back.equals(release.table)
    csv = release.write(tmp_path / "rel.csv")
    buf = io.BytesIO()
    release.table.write_csv(buf)
    assert csv.read_bytes() == buf.getvalue()


def test_cli_writes_the_api_release(tmp_path: Path) -> None:
    p = tmp_path / "in.csv"
    _table().write_csv(p)
    out = tmp_path / "cli.csv"
    subprocess.run([sys.executable, "-m", "starmin.cli.main", "-q", "anonymize", str(p),
                    "--qi", "zip,age,town", "--sensitive", "disease", "--k", "4", "-o",
                    str(out)], check=True, env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin"},
                   capture_output=True)
    release = starmin.anonymize(p, qi="zip,age,town", sensitive="disease", k=4)
    buf = io.BytesIO()
    release.table.write_csv(buf)
    assert out.read_bytes() == buf.getvalue()


def test_a_callers_categorical_sensitive_column_keeps_its_dtype() -> None:
    """Only columns the engine read from a file are turned back into text: a table built by
    the caller keeps its own categorical sensitive column."""
    df = _table().with_columns(pl.col("disease").cast(pl.Categorical))
    release = starmin.anonymize(df, qi="zip,age,town", sensitive="disease", k=4)
    assert release.table.schema["disease"] == pl.Categorical
    assert release.table.schema["zip"] == pl.String
