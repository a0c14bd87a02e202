"""Tables for the l-diversity experiments (bench/l_diversity_experiments.py).

* ``adult()`` -- ARX adult (30,162 rows) read from ``<repo>/../shared/data/arx/adult.csv``;
  sensitive attribute ``occupation`` (14 values, the most frequent 13.4%, so ``l <= 7``), the
  8 other columns are QIs (Xiao et al.'s OCC has 7 QIs and 50 occupations).
* ``replicated_adult(n)`` -- adult replicated to ``n`` rows: copy 0 is the original, every
  further copy moves ``age`` by a uniform integer offset in ``[-3, 3]`` per row (seeded,
  clipped to adult's age range), so the number of row types grows with ``n``.
* ``balanced_adult(n)`` -- ``n / 2`` rows of each ``salary-class`` (``<=50K``, ``>50K``),
  sampled without replacement (seeded): a two-valued sensitive attribute with equal counts,
  the only 2-eligible case with two values (Xiao et al. Sec. 4), for the exact min-cost
  matching solver. QIs: the 7 columns other than ``occupation`` and ``salary-class``.
* ``acs(n, sensitive)`` -- :func:`starmin.datasets.synthetic_acs` (Xiao et al.'s Table 6
  domain sizes); ``"occupation"`` mimics OCC, ``"income"`` SAL. Rows depend only on
  ``(seed, i)``, so smaller ``n`` are prefixes (nested samples).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from starmin.datasets import synthetic_acs
from starmin.datasets.acs import QI as ACS_QI

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO / ".." / "shared" / "data" / "arx" / "adult.csv"
ADULT_SA = "occupation"
ADULT_QI = ("sex", "age", "race", "marital-status", "education", "native-country",
            "workclass", "salary-class")
BALANCED_SA = "salary-class"
BALANCED_QI = ("sex", "age", "race", "marital-status", "education", "native-country",
               "workclass")
AGE_JITTER = 3


@dataclass(frozen=True)
class Table:
    """One experiment table: data, QI columns (the projections choose from), sensitive."""

    name: str
    df: pl.DataFrame
    qi: tuple[str, ...]
    sensitive: str

    @property
    def max_l(self) -> int:
        """Largest feasible l: ``floor(n / most frequent count)`` (Xiao et al. Lemma 1)."""
        top = int(self.df[self.sensitive].value_counts()["count"].to_numpy().max())
        return self.df.height // top


def adult() -> pl.DataFrame:
    """The ARX adult table (``;``-separated), 30,162 rows."""
    if not ADULT.exists():
        raise FileNotFoundError(f"{ADULT} is missing: place the ARX data in <repo>/../shared")
    return pl.read_csv(ADULT, separator=";")


def replicated_adult(n: int, seed: int = 0) -> pl.DataFrame:
    """Adult replicated to ``n`` rows with an age jitter (module docstring)."""
    base = adult()
    rng = np.random.default_rng(seed)
    age = base["age"].to_numpy()
    parts = [base]
    for _ in range(1, -(-n // base.height)):
        a = np.clip(age + rng.integers(-AGE_JITTER, AGE_JITTER + 1, size=len(age)),
                    age.min(), age.max())
        parts.append(base.with_columns(pl.Series("age", a)))
    return pl.concat(parts).head(n)


def balanced_adult(n: int, seed: int = 0) -> pl.DataFrame:
    """``n // 2`` adult rows of each salary class (module docstring)."""
    df = adult()
    half = n // 2
    parts = [df.filter(pl.col(BALANCED_SA) == v).sample(half, seed=seed + i)
             for i, v in enumerate(sorted(df[BALANCED_SA].unique().to_list()))]
    return pl.concat(parts)


def acs(n: int, sensitive: str, seed: int = 0) -> pl.DataFrame:
    """Synthetic OCC (``sensitive="occupation"``) or SAL (``"income"``) table."""
    return synthetic_acs(n, seed, sensitive=sensitive)  # type: ignore[arg-type]


def adult_table(df: pl.DataFrame | None = None, name: str = "adult") -> Table:
    return Table(name, adult() if df is None else df, ADULT_QI, ADULT_SA)


def acs_table(n: int, sensitive: str, seed: int = 0) -> Table:
    name = {"occupation": "occ", "income": "sal"}[sensitive]
    return Table(f"{name}-{n // 1000}k", acs(n, sensitive, seed), ACS_QI, sensitive)


def projections(qi: Sequence[str], d: int, limit: int | None, seed: int
                ) -> list[tuple[str, ...]]:
    """The ``C(len(qi), d)`` size-``d`` subsets of ``qi`` in lexicographic order, or a seeded
    random sample of ``limit`` of them (kept in lexicographic order)."""
    every = list(itertools.combinations(qi, d))
    if limit is None or limit >= len(every):
        return every
    pick = np.random.default_rng([seed, d]).choice(len(every), size=limit, replace=False)
    return [every[i] for i in sorted(pick.tolist())]
