"""ARX adult, read from ``../shared/data`` (never copied into the repository)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from starmin.data.schema import Schema
from starmin.engines.local import LocalEncoded, LocalEngine
from tests.helpers.shared import shared_file


def adult_csv() -> Path:
    """``../shared/data/arx/adult.csv``; skips the test when it is missing (see
    :mod:`tests.helpers.shared`)."""
    __tracebackhide__ = True
    return shared_file("data/arx/adult.csv")


def adult_encoded(sensitive: str = "occupation"
                  ) -> tuple[pl.DataFrame, LocalEngine, LocalEncoded]:
    """adult, a local engine, and adult encoded with every other column as a QI."""
    df = pl.read_csv(adult_csv(), separator=";")
    engine = LocalEngine()
    schema = Schema.of(qi=[c for c in df.columns if c != sensitive], sensitive=sensitive)
    return df, engine, engine.to_row_types(df, schema)
