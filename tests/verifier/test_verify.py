"""The verifier on hand-made and random released tables."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.errors import InvalidInput
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.verifier import verify
from tests.models import naive

QI = ["zip", "age", "sex"]


def released(seed: int = 0, n: int = 60) -> pl.DataFrame:
    """A random released table with stars and missing values in the QIs."""
    rng = np.random.default_rng(seed)
    pick = lambda xs: [xs[i] for i in rng.integers(0, len(xs), n)]  # noqa: E731
    return pl.DataFrame({
        "zip": pick(["980**", "97***", "*", None]),
        "age": pick(["3*", "4*", "*"]),
        "sex": pick(["M", "F", "*"]),
        "disease": pick(["flu", "cancer", "ulcer", None]),
        "salary": rng.integers(1, 5, n).tolist(),
    })


MODELS = [KAnonymity(3), LDiversity(2), DistinctLDiversity(2), EntropyLDiversity(2),
          RecursiveCLDiversity(3, 2), TCloseness(0.3), TCloseness(0.25, OrderedDistance()),
          PSensitiveKAnonymity(2, 3)]


def test_row_order_and_index_do_not_matter() -> None:
    df = released(1)
    base = verify(df, QI, ["disease", "salary"], MODELS).as_dict()
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(df.height)
        assert verify(df[perm], QI, ["disease", "salary"], MODELS).as_dict() == base
    pdf = df.to_pandas()
    pdf.index = np.random.default_rng(9).permutation(len(pdf)) * 7 + 100
    assert verify(pdf, QI, ["disease", "salary"], MODELS).as_dict() == base
    assert verify(pdf.sort_index(), QI, ["disease", "salary"], MODELS).as_dict() == base


def test_missing_values_are_values_of_their_own() -> None:
    df = pl.DataFrame({"a": ["x", "x", None, None, None], "s": ["p", None, "p", "q", None]})
    r = verify(df, "a", "s", [KAnonymity(3), DistinctLDiversity(2)])
    assert r.n == 5 and r.classes == 2
    k = r.check("3-anonymity")
    assert not k.passed and k.worst == 2 and k.violating_rows == 2
    assert k.examples[0].qi == (("a", "x"),)
    d = r.check("distinct 2-diversity")
    assert d.passed and d.worst == 2  # {p, missing} and {p, q, missing}


def test_star_is_an_ordinary_value_and_counted() -> None:
    df = pl.DataFrame({"a": ["*", "*", "1", "1", "*"], "b": ["*", "*", "*", "2", "3"],
                       "s": [1, 2, 3, 4, 5]})
    r = verify(df, ["a", "b"], None, [KAnonymity(1)], star="*")
    assert (r.stars, r.suppressed_records, r.fully_suppressed_records) == (6, 4, 2)
    assert r.classes == 4  # (*,*) x2, (1,*), (1,2), (*,3)
    assert verify(df, ["a", "b"], None, KAnonymity(1), star="#").stars == 0


def test_multiple_sensitive_columns_are_each_checked() -> None:
    df = pl.DataFrame({"q": ["a"] * 4 + ["b"] * 4, "s1": list("xyxyxyxy"),
                       "s2": list("xxxxyyyy")})
    r = verify(df, ["q"], ["s1", "s2"], [AllOf(KAnonymity(4), LDiversity(2))])
    assert [(c.name, c.sensitive, c.passed) for c in r.checks] == [
        ("4-anonymity", None, True), ("2-diversity", "s1", True), ("2-diversity", "s2", False)]
    assert not r.passed
    assert r.check("2-diversity", "s2").violating_classes == 2


def test_single_valued_numeric_sensitive_attribute() -> None:
    df = pl.DataFrame({"q": ["a", "a", "b", "b", "b"], "s": [7, 7, 7, 7, 7]})
    r = verify(df, "q", "s", [TCloseness(0, OrderedDistance()), TCloseness(0), LDiversity(2),
                              EntropyLDiversity(2), RecursiveCLDiversity(2, 2)])
    assert r.check("0-closeness (ordered distance)").passed
    assert r.check("0-closeness (ordered distance)").worst == 0
    for name in ("2-diversity", "entropy 2-diversity", "recursive (2, 2)-diversity"):
        c = r.check(name)
        assert not c.passed and c.violating_classes == 2 and c.violating_rows == 5
    json.dumps(r.as_dict(), allow_nan=False)


@pytest.mark.parametrize("sep", [";", ",", "\t"])
def test_csv_and_parquet_paths(tmp_path: Path, sep: str) -> None:
    df = released(3)
    want = verify(df.with_columns(pl.col("salary").cast(pl.Int64)), QI, ["disease", "salary"],
                  MODELS).as_dict()
    path = tmp_path / "release.csv"
    df.write_csv(path, separator=sep)
    assert verify(path, QI, ["disease", "salary"], MODELS).as_dict() == want
    assert verify(str(path), ",".join(QI), "disease,salary", MODELS).as_dict() == want
    pq = tmp_path / "release.parquet"
    df.write_parquet(pq)
    assert verify(pq, QI, ["disease", "salary"], MODELS).as_dict() == want


def test_csv_keeps_released_text(tmp_path: Path) -> None:
    """"39" and "39.0" are different released values; a numeric sensitive column is read as
    numbers only when no two texts merge."""
    path = tmp_path / "t.csv"
    path.write_text("age;s\n39;1\n39.0;2\n39;10\n")
    r = verify(path, "age", "s", [KAnonymity(2), TCloseness(1, OrderedDistance())])
    assert r.classes == 2
    path.write_text("age;s\n39;1\n39;01\n")
    assert verify(path, "age", "s", [DistinctLDiversity(2)]).passed


@pytest.mark.parametrize(("values", "numeric"), [
    (["3", "-2", None, "10"], True),
    (["2.5", "3", "1e3"], False),  # "1e3" reads back as "1000.0"
    (["2.5", "-0.25", None], True),
    (["x", "3", "4"], False),  # the first value is text: decided there
    ([None, "3", "x"], False),  # text after numbers: the full pass decides
    (["3", "03"], False),
])
def test_csv_sensitive_column_is_numbers_only_when_every_value_reads_back(
        tmp_path: Path, values: list[str | None], numeric: bool) -> None:
    from starmin.verifier._input import read

    path = tmp_path / "t.csv"
    pl.DataFrame({"q": ["a"] * len(values), "s": values}).write_csv(path)
    col = read(path, ("s",))["s"]
    assert col.dtype.is_numeric() == numeric
    assert col.cast(pl.String).to_list() == values if numeric else col.to_list() == values


def test_pandas_and_pyarrow_inputs() -> None:
    df = released(4)
    want = verify(df, QI, ["disease", "salary"], MODELS).as_dict()
    assert verify(df.to_pandas(), QI, ["disease", "salary"], MODELS).as_dict() == want
    assert verify(df.to_arrow(), QI, ["disease", "salary"], MODELS).as_dict() == want
    assert verify(df.lazy(), QI, ["disease", "salary"], MODELS).as_dict() == want


@pytest.mark.parametrize("call, words", [
    (lambda df: verify(df, ["nope"], None, KAnonymity(2)), "unknown column 'nope'"),
    (lambda df: verify(df, QI, ["nope"], LDiversity(2)), "unknown column 'nope'"),
    (lambda df: verify(df.head(0), QI, None, KAnonymity(2)), "no rows"),
    (lambda df: verify(df, QI, ["zip"], LDiversity(2)), "both as quasi-identifier"),
    (lambda df: verify(df, QI, None, LDiversity(2)), "sensitive=['COLUMN']"),
    (lambda df: verify(df, [], None, KAnonymity(2)), "no quasi-identifier"),
    (lambda df: verify(df, ["zip", "zip"], None, KAnonymity(2)), "named twice"),
    (lambda df: verify(df, QI, None, []), "no privacy model"),
    (lambda df: verify(df, QI, None, ["k=2"]), "not a privacy model"),  # type: ignore[list-item]
    (lambda df: verify({"a": [1]}, ["a"], None, KAnonymity(2)), "cannot verify a dict"),
    (lambda df: verify("/nonexistent/x.csv", QI, None, KAnonymity(2)), "does not exist"),
])
def test_bad_input_names_the_fix(call: object, words: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        call(released(0))  # type: ignore[operator]
    assert words in str(exc.value)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_column_names_checked_before_the_table_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    path = tmp_path / f"t.{suffix}"
    df = pl.DataFrame({"a": ["1", "2"], "b": ["x", "y"]})
    df.write_csv(path) if suffix == "csv" else df.write_parquet(path)

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole table was read")

    monkeypatch.setattr(pl, "read_csv", no_read)
    monkeypatch.setattr(pl, "read_parquet", no_read)
    for qi, sa, words in ((["a", "zzz"], None, "unknown column 'zzz'"),
                          (["a"], ["B"], "did you mean 'b'"),
                          (["a", "a"], None, "named twice"),
                          (["a"], ["a"], "both as quasi-identifier")):
        with pytest.raises(InvalidInput, match=words):
            verify(path, qi, sa, LDiversity(2) if sa else KAnonymity(2))


def test_report_summary_and_examples() -> None:
    sizes = [1, 1, 2, 3, 5, 12, 120]
    q = [f"c{i}" for i, s in enumerate(sizes) for _ in range(s)]
    df = pl.DataFrame({"q": q, "s": [i % 2 for i in range(len(q))]})
    r = verify(df, "q", "s", [KAnonymity(5), RecursiveCLDiversity(2, 2)])
    d = r.as_dict()
    json.dumps(d, allow_nan=False)
    assert d["class_sizes"] == {"min": 1, "median": 3.0, "max": 120, "buckets": {
        "1": 2, "2-4": 2, "5-9": 1, "10-19": 1, "20-49": 0, "50-99": 0, "100-999": 1,
        "1000+": 0}}
    k = r.check("5-anonymity")
    assert (k.violating_classes, k.violating_rows, k.worst) == (4, 7, 1.0)
    assert [e.size for e in k.examples] == [1, 1, 2, 3]
    rec = d["models"][1]
    assert rec["worst"] == "inf" and rec["examples"][0]["measure"] == "inf"


# -- random tables: verifier == naive grouping + naive definitions -----------------------------

def _naive_classes(df: pl.DataFrame, qi: list[str], s: str) -> list[list[int]]:
    values = sorted(set(df[s].to_list()), key=lambda v: (v is None, v))
    classes: dict[tuple[object, ...], list[int]] = defaultdict(lambda: [0] * len(values))
    for row in df.iter_rows(named=True):
        classes[tuple(row[c] for c in qi)][values.index(row[s])] += 1
    return list(classes.values())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 80), st.integers(1, 4), st.integers(2, 5))
def test_verifier_agrees_with_naive_definitions(seed: int, n: int, l: int, k: int) -> None:
    df = released(seed, n)
    rows = _naive_classes(df, QI, "salary")
    overall = [sum(col) for col in zip(*rows, strict=True)]
    t = naive.emd_ordered(rows[0], overall)
    models = [KAnonymity(k), LDiversity(l), EntropyLDiversity(l), TCloseness(t, OrderedDistance())]
    r = verify(df, QI, "salary", models)
    want = {
        models[0].name: [sum(c) >= k for c in rows],
        models[1].name: [naive.l_frequency(c, l) for c in rows],
        models[2].name: [naive.l_entropy(c, l) for c in rows],
        models[3].name: [naive.emd_ordered(c, overall) <= t for c in rows],
    }
    assert r.classes == len(rows) and r.n == n
    for name, oks in want.items():
        c = r.check(name)
        assert c.violating_classes == oks.count(False), name
        assert c.passed == all(oks)
    assert r.check(models[3].name).worst == pytest.approx(
        max(float(naive.emd_ordered(c, overall)) for c in rows))
