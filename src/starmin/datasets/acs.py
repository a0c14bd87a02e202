"""Synthetic SAL / OCC tables shaped like Xiao, Yi & Tao's ACS data sets (their Table 6).

Xiao et al. (Sec. 6.1) use two 600k-row extracts of the American Community Survey with the
same seven QI attributes (the text says "6 QI attributes" but lists seven, and later "SAL has
7 quasi-identifiers") and one sensitive attribute: *Income* (SAL) or *Occupation* (OCC).
Their Table 6 gives the domain sizes, which this generator reproduces:

=========  ===  ======  ====  =======  =====  =========  ====  ======  ==========
column     age  gender  race  marital  birth  education  work  income  occupation
size        79       2     9        6     56         17     9      50          50
=========  ===  ======  ====  =======  =====  =========  ====  ======  ==========

Everything else (labels, probabilities, dependencies) is this module's own synthetic design:
ages 17..95; 51 US states + DC (two-letter codes) and 5 abroad regions as birth places;
income as the lower bound in dollars of one of 50 brackets of $5,000 (the last is open);
occupations ``OCC-01`` .. ``OCC-50`` ordered by a latent skill level. Both sensitive columns
are always drawn, so SAL and OCC with the same seed share their QI columns, as in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.datasets.census import age_bands
from starmin.datasets.sampling import Codes, Conditional, FloatArray, check_n, generate, to_frame
from starmin.errors import InvalidInput
from starmin.transform.hierarchy import Hierarchy

QI = ("age", "gender", "race", "marital-status", "birth-place", "education", "work-class")
DOMAIN_SIZES = {"age": 79, "gender": 2, "race": 9, "marital-status": 6, "birth-place": 56,
                "education": 17, "work-class": 9, "income": 50, "occupation": 50}
_STREAM = 2
AGE_MIN, AGE_MAX = 17, 95

GENDER = ("Male", "Female")
# states by rough population rank (weight of rank r is 1 / r**0.8), then census region
STATES = ("CA", "TX", "FL", "NY", "PA", "IL", "OH", "GA", "NC", "MI", "NJ", "VA", "WA", "AZ",
          "MA", "TN", "IN", "MO", "MD", "WI", "CO", "MN", "SC", "AL", "LA", "KY", "OR", "OK",
          "CT", "UT", "IA", "NV", "AR", "MS", "KS", "NM", "NE", "ID", "WV", "HI", "NH", "ME",
          "MT", "RI", "DE", "SD", "ND", "AK", "DC", "VT", "WY")
REGIONS = {
    "Northeast": "CT ME MA NH RI VT NJ NY PA",
    "Midwest": "IL IN MI OH WI IA KS MN MO NE ND SD",
    "South": "DE FL GA MD NC SC VA DC WV AL KY MS TN AR LA OK TX",
    "West": "AZ CO ID MT NV NM UT WY AK CA HI OR WA",
}
ABROAD = {"Puerto-Rico": 0.5, "Latin-America": 6.0, "Asia": 4.5, "Europe": 2.0,
          "Other-abroad": 1.0}  # percent of rows; the states share the rest
RACE = ("White", "Black", "American-Indian", "Alaska-Native", "Native-unspecified", "Asian",
        "Pacific-Islander", "Other", "Two-or-more")
# race | birth group: US, Puerto-Rico, Latin-America, Asia, Europe, Other-abroad
RACE_BY_BIRTH = ((75, 13, 0.8, 0.1, 0.2, 3, 0.2, 4, 3.7), (60, 10, 0.2, 0, 0.1, 0.2, 0.1, 20, 9.4),
                 (55, 4, 0.8, 0, 0.3, 0.5, 0.1, 33, 6.3), (6, 0.5, 0.1, 0, 0, 88, 1, 1.5, 2.9),
                 (93, 1.5, 0.1, 0, 0, 1, 0.1, 2, 2.3), (40, 35, 0.2, 0, 0, 10, 5, 5, 4.8))
MARITAL = ("Married", "Married-spouse-absent", "Widowed", "Divorced", "Separated",
           "Never-married")
AGE_GROUP_STARTS = (17, 20, 25, 35, 55, 75)
# marital | age group, for men; women multiply by MARITAL_FEMALE
MARITAL_BY_AGE = ((1, 0.3, 0, 0.1, 0.1, 98.5), (12, 1, 0.05, 1, 0.8, 85), (48, 2, 0.2, 6, 2, 42),
                  (62, 2, 1, 15, 2.5, 17.5), (64, 1.5, 8, 16, 2, 8.5), (55, 1, 34, 6, 1, 3))
MARITAL_FEMALE = (0.9, 0.9, 3.0, 1.3, 1.4, 0.9)
EDUCATION = ("No-schooling", "Nursery-4th", "5th-6th", "7th-8th", "9th", "10th", "11th",
             "12th-no-diploma", "HS-grad", "GED", "Some-college-<1y", "Some-college-1y+",
             "Associate", "Bachelors", "Masters", "Professional", "Doctorate")
P_EDUCATION = (1.2, 1.0, 1.5, 1.8, 1.5, 2.0, 2.5, 1.5, 22, 4, 6, 14, 8.5, 19, 8, 2.2, 1.5)
EDUCATION_GROUP = (0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 4, 5, 5, 5)
# education multipliers per age group (rows follow AGE_GROUP_STARTS)
EDUCATION_BY_AGE = ((0.3, 0.3, 0.3, 0.5, 3, 6, 10, 6, 1.2, 0.6, 1.5, 0.5, 0.02, 0, 0, 0, 0),
                    (0.5, 0.5, 0.6, 0.6, 0.8, 1, 1, 1.2, 1, 1, 1.8, 1.8, 0.8, 0.6, 0.15, 0.05,
                     0.02),
                    (0.8, 0.8, 0.8, 0.7, 0.9, 0.9, 0.9, 1, 1, 1, 1, 1, 1.1, 1.2, 1.1, 1, 0.8),
                    *[(1,) * 17],
                    (1.5, 1.5, 1.6, 1.8, 1.3, 1.2, 1.1, 1, 1.1, 1, 0.8, 0.9, 0.8, 0.8, 0.9, 1.1,
                     1.2),
                    (2.5, 2.5, 3, 4, 2, 1.5, 1.3, 1, 1.2, 0.8, 0.6, 0.7, 0.5, 0.6, 0.7, 0.9, 0.9))
WORK_CLASS = ("Private-for-profit", "Private-non-profit", "Local-gov", "State-gov",
              "Federal-gov", "Self-emp-not-inc", "Self-emp-inc", "Unpaid-family", "Not-working")
# work class | education group
WORK_BY_EDUCATION = ((55, 4, 3, 2, 1, 7, 2, 0.6, 25.4), (62, 6, 5, 3, 2, 7, 3, 0.4, 11.6),
                     (60, 8, 7, 4, 3, 7, 3, 0.3, 7.7), (58, 10, 8, 5, 3, 7, 3, 0.3, 5.7),
                     (56, 11, 9, 5, 4, 7, 4, 0.2, 3.8), (40, 17, 13, 8, 5, 8, 5, 0.2, 3.8))
INCOME_BRACKET = 5_000
# log-income = INCOME_BASE + effects + 0.75 * N(0, 1); bracket = income // 5000, capped at 49
INCOME_BASE = 10.2
INCOME_EDUCATION = (-0.5, -0.2, 0.0, 0.15, 0.35, 0.7)
INCOME_AGE = (-1.3, -0.6, 0.0, 0.25, 0.1, -0.3)
INCOME_GENDER = (0.12, -0.12)
INCOME_WORK = (0.0, -0.05, 0.0, 0.0, 0.15, -0.1, 0.3, -1.5, -1.8)


@dataclass(frozen=True)
class _Model:
    birth_labels: tuple[str, ...]
    birth_group: Codes                  # (56,) race row of each birth place
    age: Conditional
    gender: Conditional
    birth: Conditional
    race: Conditional
    marital: Conditional
    education: Conditional
    work: Conditional
    occupation: Conditional
    age_group: Codes                    # (AGE_MAX + 1,)


def _occupation_probs() -> NDArray[np.float64]:
    """``(6 * 2, 50)``: P(occupation | education group, gender), a fixed smooth design."""
    j = np.arange(50)
    skill = j / 49                                     # latent skill level of each occupation
    popularity = 1.0 / (1.0 + (j * 7 % 50) / 10.0)
    female_share = 0.5 + 0.35 * np.sin(j * 1.7)
    centre = np.array([0.12, 0.3, 0.45, 0.55, 0.72, 0.88])[:, None]
    fit = np.exp(-((skill[None, :] - centre) ** 2) / (2 * 0.2**2)) * popularity  # (6, 50)
    both = np.stack([fit * (1 - female_share), fit * female_share], axis=1)     # (6, 2, 50)
    return both.reshape(12, 50)


@lru_cache(maxsize=1)
def _model() -> _Model:
    ages = np.arange(AGE_MIN, AGE_MAX + 1)
    age_pmf = np.where(ages < 25, 1.4, np.where(ages < 65, 1.6, 1.0)) \
        * np.where(ages < 80, 1.0, np.exp(-(ages - 80) / 6))
    states = 1.0 / np.arange(1, len(STATES) + 1) ** 0.8
    states *= (100 - sum(ABROAD.values())) / states.sum()
    group = np.concatenate([np.zeros(len(STATES), np.int64), np.arange(1, 6)])
    marital = np.stack([np.array(MARITAL_BY_AGE),
                        np.array(MARITAL_BY_AGE) * np.array(MARITAL_FEMALE)], axis=1)
    age_group = np.searchsorted(np.array(AGE_GROUP_STARTS), np.arange(AGE_MAX + 1),
                                side="right").clip(1) - 1
    return _Model(
        birth_labels=(*STATES, *ABROAD), birth_group=group,
        age=Conditional(age_pmf), gender=Conditional((0.51, 0.49)),
        birth=Conditional(np.concatenate([states, list(ABROAD.values())])),
        race=Conditional(RACE_BY_BIRTH),
        marital=Conditional(marital.reshape(-1, len(MARITAL))),
        education=Conditional(np.array(EDUCATION_BY_AGE) * np.array(P_EDUCATION)),
        work=Conditional(WORK_BY_EDUCATION),
        occupation=Conditional(_occupation_probs()),
        age_group=age_group,
    )


def _draw(u: FloatArray) -> dict[str, NDArray[np.integer]]:
    """Codes of every column for uniforms ``u`` of shape ``(9, rows)``."""
    from scipy.special import ndtri  # scipy loads only when rows are drawn

    M = _model()
    gender = M.gender.sample(u[0])
    age = M.age.sample(u[1]) + AGE_MIN
    ag = M.age_group[age]
    birth = M.birth.sample(u[2])
    race = M.race.sample(u[3], M.birth_group[birth])
    marital = M.marital.sample(u[4], ag * 2 + gender)
    edu = M.education.sample(u[5], ag)
    eg = np.array(EDUCATION_GROUP)[edu]
    work = M.work.sample(u[6], eg)
    occ = M.occupation.sample(u[7], eg * 2 + gender)
    log_income = (INCOME_BASE + np.array(INCOME_EDUCATION)[eg] + np.array(INCOME_AGE)[ag]
                  + np.array(INCOME_GENDER)[gender] + np.array(INCOME_WORK)[work]
                  + 0.75 * ndtri(np.clip(u[8], 1e-12, 1 - 1e-12)))
    income = np.minimum(np.exp(log_income) // INCOME_BRACKET, 49).astype(np.int64)
    return {"age": age, "gender": gender, "race": race, "marital-status": marital,
            "birth-place": birth, "education": edu, "work-class": work, "income": income,
            "occupation": occ}


def synthetic_acs(n: int, seed: int = 0,
                  sensitive: Literal["occupation", "income"] = "occupation", *,
                  categorical: bool = False) -> pl.DataFrame:
    """A synthetic OCC (``sensitive="occupation"``) or SAL (``"income"``) table of ``n`` rows.

    Heuristic data generator with the attribute domain sizes of Xiao et al.'s Table 6.
    Columns: the seven QIs :data:`QI` then the sensitive column. ``age`` and ``income``
    (dollars, bracket lower bound) are Int64, the rest String (``Enum`` if ``categorical``).
    Deterministic per ``seed``; row ``i`` depends only on ``(seed, i)``. ``O(n)`` vectorized.

    References
    ----------
    X. Xiao, K. Yi and Y. Tao, EDBT 2010, Sec. 6.1 and Table 6 (SAL-d and OCC-d projections).
    """
    if sensitive not in ("occupation", "income"):
        raise InvalidInput(f"sensitive={sensitive!r} is unknown: use 'occupation' or 'income'")
    check_n(n, seed)
    cols = {c: (np.uint8 if c != "income" else np.int64) for c in DOMAIN_SIZES}
    codes = generate(n, seed, _STREAM, 9, cols, _draw)
    M = _model()
    labels = {"age": None, "gender": GENDER, "race": RACE, "marital-status": MARITAL,
              "birth-place": M.birth_labels, "education": EDUCATION, "work-class": WORK_CLASS,
              "income": None, "occupation": tuple(f"OCC-{j + 1:02d}" for j in range(50))}
    codes["income"] = codes["income"] * INCOME_BRACKET
    keep = {c: codes[c] for c in (*QI, sensitive)}
    return to_frame(keep, {c: labels[c] for c in keep}, categorical)


def synthetic_acs_hierarchies() -> dict[str, Hierarchy]:
    """Generalization hierarchies for the QI columns of :func:`synthetic_acs`."""
    M = _model()
    region = {s: r for r, states in REGIONS.items() for s in states.split()}
    race_group = ("White", "Black", "Native", "Native", "Native", "Asian-PI", "Asian-PI",
                  "Other-or-mixed", "Other-or-mixed")
    marital_group = ("Married", "Married", "Formerly-married", "Formerly-married",
                     "Formerly-married", "Never-married")
    edu_names = ("Below-HS", "HS-or-GED", "Some-college", "Associate", "Bachelors", "Graduate")
    edu_top = ("No-degree", "No-degree", "No-degree", "Degree", "Degree", "Degree")
    work_group = ("Private", "Private", "Government", "Government", "Government",
                  "Self-employed", "Self-employed", "Not-paid", "Not-paid")
    rows: dict[str, list[tuple[str, ...]]] = {
        "gender": [(g, "*") for g in GENDER],
        "race": [(r, g, "*") for r, g in zip(RACE, race_group, strict=True)],
        "marital-status": [(m, g, "*") for m, g in zip(MARITAL, marital_group, strict=True)],
        "birth-place": [(b, region.get(b, "Abroad"), "US" if b in region else "Abroad", "*")
                        for b in M.birth_labels],
        "education": [(e, edu_names[g], edu_top[g], "*")
                      for e, g in zip(EDUCATION, EDUCATION_GROUP, strict=True)],
        "work-class": [(w, g, "*") for w, g in zip(WORK_CLASS, work_group, strict=True)],
    }
    out = {c: Hierarchy.from_rows(r, c) for c, r in rows.items()}
    out["age"] = age_bands(range(AGE_MIN, AGE_MAX + 1))
    return {c: out[c] for c in QI}
