"""ARX adult, read from ``../shared/data`` (never copied into the repository)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from starmin.data.schema import Schema
from starmin.engines.local import LocalEncoded, LocalEngine

ADULT = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "arx" / "adult.csv"


def adult_encoded(sensitive: str = "occupation"
                  ) -> tuple[pl.DataFrame, LocalEngine, LocalEncoded]:
    """adult, a local engine, and adult encoded with every other column as a QI."""
    df = pl.read_csv(ADULT, separator=";")
    engine = LocalEngine()
    schema = Schema.of(qi=[c for c in df.columns if c != sensitive], sensitive=sensitive)
    return df, engine, engine.to_row_types(df, schema)
