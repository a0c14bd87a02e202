"""A seeded synthetic census generator with adult-like columns, skew and dependencies.

Columns (the nine columns of the UCI/ARX "adult" table, same names and order): ``sex``,
``age`` (Int64, 17..90), ``race``, ``marital-status``, ``education``, ``native-country``,
``workclass``, ``occupation``, ``salary-class``. Domain sizes are 2, 74, 5, 7, 16, 41, 7, 14
and 2; rare values (a country of rank 40, ``Armed-Forces``, ``Married-AF-spouse``,
``Without-pay``) appear only in larger tables, as in real data.

The generative model is a small Bayesian network (parameters in
:mod:`starmin.datasets.census_params`)::

    sex         ~ P(sex)
    age         ~ P(age)                                     (5-year bands, right-skewed)
    country     ~ P(country)                                 (91 % home, Zipf tail)
    race        ~ P(race | sub-region of country)
    education   ~ P(education | age group)                   (no degrees at 17-19)
    marital     ~ P(marital | age group, sex)
    occupation  ~ P(occupation | education group, sex)
    workclass   ~ P(workclass | occupation)
    salary      ~ Bernoulli(sigmoid(education + age + sex + marital + occupation effects))

Rows are independent and block-seeded (:mod:`starmin.datasets.sampling`): the same seed
gives the same table, and a smaller ``n`` gives a prefix of a larger one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.datasets import census_params as P
from starmin.datasets.sampling import (
    BLOCK,
    Codes,
    Conditional,
    FloatArray,
    block_uniforms,
    check_n,
    generate,
    to_frame,
)
from starmin.transform.hierarchy import Hierarchy

COLUMNS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
           "occupation", "salary-class")
_STREAM = 1


@dataclass(frozen=True)
class _Model:
    countries: tuple[str, ...]
    sex: Conditional
    age: Conditional
    country: Conditional
    race: Conditional
    education: Conditional
    marital: Conditional
    occupation: Conditional
    workclass: Conditional
    country_region: Codes          # (41,) race-region row per country
    age_group: Codes               # (AGE_MAX + 1,) age group of each age
    education_group: Codes         # (16,)
    salary_terms: tuple[FloatArray, ...]


def _age_pmf() -> FloatArray:
    pmf = np.zeros(P.AGE_MAX - P.AGE_MIN + 1)
    for lo, hi, w in P.AGE_BANDS:
        pmf[lo - P.AGE_MIN:hi - P.AGE_MIN + 1] = w / (hi - lo + 1)
    return pmf


def _age_groups() -> Codes:
    ages = np.arange(P.AGE_MAX + 1)
    return np.searchsorted(np.array(P.AGE_GROUP_STARTS), ages, side="right").clip(1) - 1


@lru_cache(maxsize=1)
def _model() -> _Model:
    countries = (P.HOME, *P.FOREIGN_RANK)
    ranks = np.arange(1, len(P.FOREIGN_RANK) + 1)
    tail = (1.0 - P.P_HOME) * (1.0 / ranks) / (1.0 / ranks).sum()
    regions = list(P.RACE_BY_REGION)
    country_region = np.array([0] + [regions.index(P.COUNTRY_REGIONS[c][0])
                                     for c in P.FOREIGN_RANK])
    edu = np.array(P.EDUCATION_BY_AGE) * np.array(P.P_EDUCATION)          # (9, 16)
    men = np.array(P.MARITAL_BY_AGE)                                       # (9, 7)
    marital = np.stack([men, men * np.array(P.MARITAL_FEMALE)], axis=1)    # (9, 2, 7)
    occ = (np.array(P.OCCUPATION_BY_EDUCATION)[:, None, :]
           * np.array(P.OCCUPATION_SEX)[None, :, :])                      # (5, 2, 14)
    salary = (np.array(P.SALARY_EDUCATION), np.array(P.SALARY_AGE), np.array(P.SALARY_SEX),
              np.array(P.SALARY_MARITAL), np.array(P.SALARY_OCCUPATION))
    return _Model(
        countries=countries,
        sex=Conditional(P.P_SEX),
        age=Conditional(_age_pmf()),
        country=Conditional(np.concatenate([[P.P_HOME], tail])),
        race=Conditional(list(P.RACE_BY_REGION.values())),
        education=Conditional(edu),
        marital=Conditional(marital.reshape(-1, len(P.MARITAL))),
        occupation=Conditional(occ.reshape(-1, len(P.OCCUPATION))),
        workclass=Conditional(P.WORKCLASS_BY_OCCUPATION),
        country_region=country_region,
        age_group=_age_groups(),
        education_group=np.array(P.EDUCATION_GROUP),
        salary_terms=salary,
    )


def _draw(u: FloatArray) -> dict[str, NDArray[np.integer]]:
    """Codes of every column for uniforms ``u`` of shape ``(9, rows)``."""
    M = _model()
    sex = M.sex.sample(u[0])
    age = M.age.sample(u[1]) + P.AGE_MIN
    ag = M.age_group[age]                                                   # (rows,) 0..8
    country = M.country.sample(u[2])
    race = M.race.sample(u[3], M.country_region[country])
    edu = M.education.sample(u[4], ag)
    marital = M.marital.sample(u[5], ag * 2 + sex)
    occ = M.occupation.sample(u[6], M.education_group[edu] * 2 + sex)
    work = M.workclass.sample(u[7], occ)
    t_edu, t_age, t_sex, t_mar, t_occ = M.salary_terms
    logit = (P.SALARY_INTERCEPT + t_edu[edu] + t_age[ag] + t_sex[sex] + t_mar[marital]
             + t_occ[occ])
    salary = (u[8] < 1.0 / (1.0 + np.exp(-logit))).astype(np.int64)
    return {"sex": sex, "age": age, "race": race, "marital-status": marital,
            "education": edu, "native-country": country, "workclass": work,
            "occupation": occ, "salary-class": salary}


def synthetic_census(n: int, seed: int = 0, *, categorical: bool = False) -> pl.DataFrame:
    """An adult-like synthetic census table of ``n`` rows.

    Heuristic data generator (no guarantee beyond the documented model). Deterministic per
    ``seed``; row ``i`` depends only on ``(seed, i)``. ``O(n log K)`` time, vectorized in
    chunks of about 1M rows; peak extra memory about 80 MB plus the output (String columns,
    or ``Enum`` columns with ``categorical=True``). See ``docs/datasets.md`` for the model,
    timings and how it compares to the real adult table.
    """
    check_n(n, seed)
    dtypes = {c: np.uint8 for c in COLUMNS}
    codes = generate(n, seed, _STREAM, 9, dtypes, _draw)
    return to_frame(codes, _labels(), categorical)


def synthetic_census_block(block: int, n: int, seed: int = 0) -> pl.DataFrame:
    """Rows ``block * BLOCK`` up to ``min((block + 1) * BLOCK, n)`` of
    ``synthetic_census(n, seed)`` (:data:`starmin.datasets.sampling.BLOCK` rows), generated
    alone: each block has its own seed, so a distributed generator (bench/spark_scale.py makes
    the table on Spark's executors) gives the same table block by block."""
    check_n(n, seed)
    rows = max(0, min(BLOCK, n - block * BLOCK))
    u = block_uniforms(seed, _STREAM, 9, block, rows)
    codes = {c: v.astype(np.uint8) for c, v in _draw(u).items()} if rows else \
        {c: np.zeros(0, dtype=np.uint8) for c in COLUMNS}
    return to_frame({c: codes[c] for c in COLUMNS}, _labels())


def _labels() -> dict[str, tuple[str, ...] | None]:
    M = _model()
    return {"sex": P.SEX, "age": None, "race": P.RACE, "marital-status": P.MARITAL,
            "education": P.EDUCATION, "native-country": M.countries,
            "workclass": P.WORKCLASS, "occupation": P.OCCUPATION, "salary-class": P.SALARY}


# -- hierarchies ---------------------------------------------------------------------------

_RACE_H = {"White": "White"}
_MARITAL_H = {
    "Married-civ-spouse": ("Spouse-present", "Ever-married"),
    "Married-AF-spouse": ("Spouse-present", "Ever-married"),
    "Married-spouse-absent": ("Spouse-absent", "Ever-married"),
    "Separated": ("Spouse-absent", "Ever-married"),
    "Divorced": ("Formerly-married", "Ever-married"),
    "Widowed": ("Formerly-married", "Ever-married"),
    "Never-married": ("Never-married", "Never-married"),
}
_EDUCATION_H = (  # (level 1, level 2) per EDUCATION code
    *[("Elementary", "Below-HS")] * 4, *[("Some-high-school", "Below-HS")] * 4,
    ("HS-grad", "HS-or-college"), ("College-no-degree", "HS-or-college"),
    ("Associate", "HS-or-college"), ("Associate", "HS-or-college"),
    ("Bachelors", "Degree"), *[("Graduate", "Degree")] * 3,
)
_WORKCLASS_H = {
    "Private": ("Private", "Paid"), "Self-emp-not-inc": ("Self-employed", "Paid"),
    "Self-emp-inc": ("Self-employed", "Paid"), "Local-gov": ("Government", "Paid"),
    "State-gov": ("Government", "Paid"), "Federal-gov": ("Government", "Paid"),
    "Without-pay": ("Unpaid", "Unpaid"),
}
_OCCUPATION_H = {
    "White-collar": ("Prof-specialty", "Exec-managerial", "Tech-support", "Adm-clerical",
                     "Sales"),
    "Blue-collar": ("Craft-repair", "Machine-op-inspct", "Transport-moving",
                    "Handlers-cleaners", "Farming-fishing"),
    "Service": ("Other-service", "Protective-serv", "Priv-house-serv"),
    "Military": ("Armed-Forces",),
}


def age_bands(ages: range, widths: tuple[int, ...] = (5, 10, 20), name: str = "age") -> Hierarchy:
    """Integer ages generalised to aligned bands ``lo-hi`` of each width, then ``*``.

    Bands are aligned at multiples of their width, so with widths that divide each other the
    levels are consistent (each band lies in one band of the next level).
    """
    def band(a: int, w: int) -> str:
        lo = a // w * w
        return f"{lo}-{lo + w - 1}"

    return Hierarchy.from_rows([(a, *(band(a, w) for w in widths), "*") for a in ages], name)


def synthetic_census_hierarchies() -> dict[str, Hierarchy]:
    """Generalization hierarchies for every column of :func:`synthetic_census`.

    Heights (levels incl. the value): sex 2, age 5 (5-, 10-, 20-year bands, ``*``), race 3
    (White / Non-White), marital-status 4, education 4, native-country 4 (sub-region,
    continent), workclass 4, occupation 3 (white-collar / blue-collar / service / military),
    salary-class 2. Each covers every value the generator can produce.
    """
    M = _model()
    occ_group = {o: g for g, occs in _OCCUPATION_H.items() for o in occs}
    rows: dict[str, list[tuple[str, ...]]] = {
        "sex": [(v, "*") for v in P.SEX],
        "race": [(v, _RACE_H.get(v, "Non-White"), "*") for v in P.RACE],
        "marital-status": [(v, *_MARITAL_H[v], "*") for v in P.MARITAL],
        "education": [(v, *g, "*") for v, g in zip(P.EDUCATION, _EDUCATION_H, strict=True)],
        "native-country": [(c, *P.COUNTRY_REGIONS[c], "*") for c in M.countries],
        "workclass": [(v, *_WORKCLASS_H[v], "*") for v in P.WORKCLASS],
        "occupation": [(v, occ_group[v], "*") for v in P.OCCUPATION],
        "salary-class": [(v, "*") for v in P.SALARY],
    }
    out = {name: Hierarchy.from_rows(r, name) for name, r in rows.items()}
    out["age"] = age_bands(range(P.AGE_MIN, P.AGE_MAX + 1))
    return {c: out[c] for c in COLUMNS}
