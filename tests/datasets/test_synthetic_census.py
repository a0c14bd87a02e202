"""The synthetic census: deterministic, right sizes and domains, adult-like shape, dependent."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats.contingency import association

from starmin.datasets import synthetic_census, synthetic_census_hierarchies
from starmin.datasets.sampling import BLOCK, Conditional
from starmin.errors import InvalidInput
from tests.helpers.adult import adult_csv

COLUMNS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
           "occupation", "salary-class"]
# adult.csv's domain sizes; age: adult has 72 distinct ages in 17..90, the generator uses all 74
DOMAIN = {"sex": 2, "age": 74, "race": 5, "marital-status": 7, "education": 16,
          "native-country": 41, "workclass": 7, "occupation": 14, "salary-class": 2}


@pytest.fixture(scope="module")
def big() -> pl.DataFrame:
    return synthetic_census(200_000, seed=3)


def _cramer(df: pl.DataFrame, a: str, b: str) -> float:
    x = df[a].rank("dense").to_numpy() - 1
    y = df[b].rank("dense").to_numpy() - 1
    table = np.zeros((x.max() + 1, y.max() + 1), dtype=np.int64)
    np.add.at(table, (x, y), 1)
    return float(association(table, method="cramer"))


def test_columns_dtypes_and_sizes() -> None:
    for n in (0, 1, 1000, BLOCK + 7):
        df = synthetic_census(n, seed=1)
        assert df.columns == COLUMNS and df.height == n
        assert df.schema["age"] == pl.Int64
        assert all(df.schema[c] == pl.String for c in COLUMNS if c != "age")
        assert df.null_count().sum_horizontal().item() == 0


def test_deterministic_per_seed_and_prefix_stable() -> None:
    a = synthetic_census(3 * BLOCK + 11, seed=5)
    assert a.equals(synthetic_census(3 * BLOCK + 11, seed=5))
    assert not a.equals(synthetic_census(3 * BLOCK + 11, seed=6))
    assert a.head(BLOCK + 3).equals(synthetic_census(BLOCK + 3, seed=5))
    assert synthetic_census(20, seed=0).equals(synthetic_census(5000, seed=0).head(20))


def test_categorical_output_has_the_same_values() -> None:
    s = synthetic_census(2000, seed=2)
    e = synthetic_census(2000, seed=2, categorical=True)
    assert isinstance(e.schema["occupation"], pl.Enum)
    assert e.with_columns(pl.col(c).cast(pl.String) for c in COLUMNS if c != "age").equals(s)


def test_domain_sizes(big: pl.DataFrame) -> None:
    assert {c: big[c].n_unique() for c in COLUMNS} == DOMAIN
    assert big["age"].min() == 17 and big["age"].max() == 90
    small = synthetic_census(10_000, seed=0)
    sizes = {c: small[c].n_unique() for c in COLUMNS}
    assert 28 <= sizes["native-country"] <= 41  # the long tail is only partly present
    assert 70 <= sizes["age"] <= 74
    assert all(sizes[c] == DOMAIN[c] for c in ("sex", "race", "education", "salary-class"))


def test_adult_like_marginals(big: pl.DataFrame) -> None:
    share = {c: dict(big[c].value_counts(normalize=True).rows()) for c in COLUMNS}
    assert share["sex"]["Male"] == pytest.approx(0.67, abs=0.01)
    assert share["native-country"]["United-States"] == pytest.approx(0.912, abs=0.005)
    assert share["native-country"]["Mexico"] == pytest.approx(0.021, abs=0.003)
    assert share["salary-class"][">50K"] == pytest.approx(0.25, abs=0.02)
    assert share["race"]["White"] == pytest.approx(0.85, abs=0.02)
    assert share["education"]["HS-grad"] == pytest.approx(0.33, abs=0.02)
    assert share["workclass"]["Private"] == pytest.approx(0.74, abs=0.02)
    assert share["marital-status"]["Married-civ-spouse"] == pytest.approx(0.46, abs=0.02)
    assert 34 <= big["age"].median() <= 42  # type: ignore[operator]
    assert big["age"].skew() > 0.3  # right-skewed, like working-age census data
    # long tail: the 40 foreign countries share ~9 %, the rarest well under 0.1 %
    assert min(share["native-country"].values()) < 0.001


def test_matches_adult_domain_vocabulary_sizes() -> None:
    adult = pl.read_csv(adult_csv(), separator=";")
    assert adult.columns == COLUMNS
    for c in COLUMNS:
        if c != "age":
            assert adult[c].n_unique() == DOMAIN[c]
    # similar number of distinct QI vectors at adult's size (within 25 %)
    qi = COLUMNS[:-1]
    syn = synthetic_census(adult.height, seed=0).select(qi).n_unique()
    real = adult.select(qi).n_unique()
    assert abs(syn - real) / real < 0.25


@pytest.mark.parametrize(("a", "b"), [
    ("marital-status", "age"), ("occupation", "education"), ("occupation", "sex"),
    ("salary-class", "education"), ("race", "native-country"), ("workclass", "occupation"),
    ("marital-status", "sex"), ("education", "age"), ("salary-class", "age"),
])
def test_dependencies_present(big: pl.DataFrame, a: str, b: str) -> None:
    df = big.with_columns(pl.col("age") // 10)
    assert _cramer(df, a, b) > 0.1


@pytest.mark.parametrize(("a", "b"), [("sex", "native-country"), ("race", "sex"),
                                      ("age", "native-country")])
def test_independent_pairs_stay_independent(big: pl.DataFrame, a: str, b: str) -> None:
    df = big.with_columns(pl.col("age") // 10)
    assert _cramer(df, a, b) < 0.04


def test_semantic_dependencies(big: pl.DataFrame) -> None:
    teen = big.filter(pl.col("age") < 20)
    degrees = ("Bachelors", "Masters", "Prof-school", "Doctorate")
    assert teen["education"].is_in(degrees).mean() < 0.01  # type: ignore[operator]
    assert teen["marital-status"].eq("Never-married").mean() > 0.9  # type: ignore[operator]
    old = big.filter(pl.col("age") >= 75)
    assert old["marital-status"].eq("Widowed").mean() > 0.3  # type: ignore[operator]
    rich = big.group_by("education").agg(pl.col("salary-class").eq(">50K").mean())
    rate = dict(rich.rows())
    assert rate["Doctorate"] > 0.6 > rate["HS-grad"] > rate["9th"]
    forces = big.filter(pl.col("occupation") == "Armed-Forces")["workclass"].unique().to_list()
    assert forces == ["Federal-gov"]


def test_hierarchies_cover_generated_values(big: pl.DataFrame) -> None:
    hs = synthetic_census_hierarchies()
    assert list(hs) == COLUMNS
    heights = {c: h.height for c, h in hs.items()}
    assert heights == {"sex": 2, "age": 5, "race": 3, "marital-status": 4, "education": 4,
                       "native-country": 4, "workclass": 4, "occupation": 3,
                       "salary-class": 2}
    for c, h in hs.items():
        h.check_covers(big[c])
        assert len(h) == DOMAIN[c]  # one row per possible value, none unused
        assert h.labels(h.top) == ("*",)
    assert hs["age"].ancestor(38, 1) == "35-39" and hs["age"].ancestor(38, 3) == "20-39"
    assert hs["native-country"].ancestor("Mexico", 2) == "America"


def test_bad_arguments() -> None:
    with pytest.raises(InvalidInput, match="row count"):
        synthetic_census(-1)
    with pytest.raises(InvalidInput, match="row count"):
        synthetic_census(1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="non-negative integer"):
        synthetic_census(10, seed=-3)


def test_conditional_sampler_matches_probabilities() -> None:
    probs = np.array([[0.5, 0.0, 0.5], [0.1, 0.6, 0.3], [0.0, 0.0, 1.0]])
    rng = np.random.default_rng(0)
    parent = rng.integers(0, 3, 300_000)
    got = Conditional(probs).sample(rng.random(300_000), parent)
    for p in range(3):
        freq = np.bincount(got[parent == p], minlength=3) / (parent == p).sum()
        assert np.allclose(freq, probs[p], atol=0.01)
        assert (freq[probs[p] == 0] == 0).all()  # impossible categories never drawn


def test_conditional_sampler_is_exact_inverse_cdf() -> None:
    rng = np.random.default_rng(1)
    probs = rng.random((6, 9)) * (rng.random((6, 9)) > 0.3)
    probs[:, 0] += 1e-9  # no all-zero row
    cdf = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
    parent = rng.integers(0, 6, 50_000)
    # random points plus points exactly on CDF steps and on guide-cell edges
    u = np.concatenate([rng.random(40_000), cdf[parent[40_000:45_000], 3],
                        rng.integers(0, Conditional.GUIDE, 5000) / Conditional.GUIDE])
    u = np.minimum(u, 1 - 1e-12)
    expect = np.minimum((cdf[parent] <= u[:, None]).sum(axis=1), 8)
    assert np.array_equal(Conditional(probs).sample(u, parent), expect)
