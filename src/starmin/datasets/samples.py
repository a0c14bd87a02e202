"""Named samples for the CLI (``sample:NAME``) with default column roles and hierarchies."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType

import polars as pl

from starmin.datasets.acs import synthetic_acs, synthetic_acs_hierarchies
from starmin.datasets.census import synthetic_census, synthetic_census_hierarchies
from starmin.datasets.papers import liang_yuan_table1, liang_yuan_table1_digits, xiao_table1
from starmin.errors import InvalidInput
from starmin.transform.hierarchy import Hierarchy

_CENSUS_QI = ("sex", "age", "race", "marital-status", "education", "native-country",
              "workclass")
_ACS_QI = ("age", "gender", "race", "marital-status", "birth-place", "education", "work-class")


@dataclass(frozen=True)
class Sample:
    """A named table: how to build it and its default column roles."""

    name: str
    description: str
    build: Callable[[], pl.DataFrame]
    qi: tuple[str, ...]
    sensitive: tuple[str, ...]
    hierarchies: Callable[[], dict[str, Hierarchy]] | None = None


def _digits_hierarchies() -> dict[str, Hierarchy]:
    t = liang_yuan_table1_digits()
    return {c: Hierarchy.flat(sorted(set(t[c])), c) for c in t.columns[:-1]}


def _masked(value: str, keep: int) -> str:
    return value[:keep] + "*" * (len(value) - keep)


def _liang_yuan_hierarchies() -> dict[str, Hierarchy]:
    """Digit-masking hierarchies: Zipcode 98765 -> 9876* -> ... -> *, Age 38 -> 3* -> *
    (the generalised forms printed in Liang & Yuan's Tables 2-3), Education -> *."""
    t = liang_yuan_table1()
    zips = sorted(set(t["Zipcode"]))
    ages = sorted({str(a) for a in t["Age"]})
    return {
        "Zipcode": Hierarchy.from_rows([(z, *(_masked(z, k) for k in range(4, 0, -1)), "*")
                                        for z in zips], "Zipcode"),
        "Age": Hierarchy.from_rows([(a, _masked(a, 1), "*") for a in ages], "Age"),
        "Education": Hierarchy.flat(sorted(set(t["Education"])), "Education"),
    }


def _xiao_hierarchies() -> dict[str, Hierarchy]:
    """The coarsening of Xiao et al.'s Table 4 (Sec. 2): Age <50 / >= 50, Education
    "Bachelor or above" / "High Sch. or below", then *; Gender -> *."""
    return {
        "Age": Hierarchy.from_rows([("< 30", "<50", "*"), ("[30, 50]", "<50", "*"),
                                    ("≥ 50", "≥ 50", "*")], "Age"),
        "Gender": Hierarchy.flat(("M", "F"), "Gender"),
        "Education": Hierarchy.from_rows([("Master", "Bachelor or above", "*"),
                                          ("Bachelor", "Bachelor or above", "*"),
                                          ("High Sch.", "High Sch. or below", "*")],
                                         "Education"),
    }


_LIST = (
    Sample("census", "synthetic adult-like census, 10,000 rows, seed 0",
           partial(synthetic_census, 10_000, 0), _CENSUS_QI, ("occupation",),
           synthetic_census_hierarchies),
    Sample("census-100k", "synthetic adult-like census, 100,000 rows, seed 0",
           partial(synthetic_census, 100_000, 0), _CENSUS_QI, ("occupation",),
           synthetic_census_hierarchies),
    Sample("acs-occ", "synthetic ACS-like OCC table (Xiao et al. Table 6), 10,000 rows, seed 0",
           partial(synthetic_acs, 10_000, 0, "occupation"), _ACS_QI, ("occupation",),
           synthetic_acs_hierarchies),
    Sample("acs-sal", "synthetic ACS-like SAL table (Xiao et al. Table 6), 10,000 rows, seed 0",
           partial(synthetic_acs, 10_000, 0, "income"), _ACS_QI, ("income",),
           synthetic_acs_hierarchies),
    Sample("liang-yuan-table1", "Liang & Yuan, Table 1 (10 rows)", liang_yuan_table1,
           ("Zipcode", "Age", "Education"), ("Disease",), _liang_yuan_hierarchies),
    Sample("liang-yuan-table1-digits",
           "Liang & Yuan, Table 1 with one QI per digit of Zipcode and Age (Sec. 2)",
           liang_yuan_table1_digits, ("z1", "z2", "z3", "z4", "z5", "a1", "a2", "Education"),
           ("Disease",), _digits_hierarchies),
    Sample("xiao-table1", "Xiao, Yi & Tao, Table 1 (10 rows, Name omitted)", xiao_table1,
           ("Age", "Gender", "Education"), ("Disease",), _xiao_hierarchies),
)

SAMPLES: Mapping[str, Sample] = MappingProxyType({s.name: s for s in _LIST})
"""Every named sample, by name."""


def _get(name: str) -> Sample:
    key = name.strip().lower()
    if key not in SAMPLES:
        raise InvalidInput(f"unknown sample {name!r}: use one of {', '.join(SAMPLES)}")
    return SAMPLES[key]


def load(name: str) -> pl.DataFrame:
    """The sample table called ``name`` (a fresh DataFrame each call)."""
    return _get(name).build()


def default_qi(name: str) -> tuple[str, ...]:
    """Default quasi-identifier columns of sample ``name``."""
    return _get(name).qi


def default_sensitive(name: str) -> tuple[str, ...]:
    """Default sensitive columns of sample ``name``."""
    return _get(name).sensitive


def hierarchies(name: str) -> dict[str, Hierarchy]:
    """Generalization hierarchies for sample ``name`` (empty if it has none)."""
    build = _get(name).hierarchies
    return build() if build is not None else {}
