"""Messages through the Python API name Python parameters (``k=0``), print values as given
(``t=-0.1``), and name the public function for an unknown keyword; the same errors on the
command line name flags (``--k 0``). Every parameter is checked before the data is read."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import starmin
from starmin.errors import InvalidInput, StarminError, command_line, param
from starmin.models import KAnonymity, LDiversity, TCloseness
from starmin.verifier import verify as check  # the independent verifier

TABLE = pl.DataFrame({"a": [1, 2, 1, 2, 3, 3], "s": ["x", "y", "z", "x", "y", "z"]})


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"k": 0}, ("k=0", "e.g. k=5")),
    ({"k": 2.5}, ("k=2.5", "whole number")),
    ({"k": "5"}, ("k='5'",)),
    ({"k": True}, ("k=True",)),
    ({"k": float("nan")}, ("k=nan",)),
    ({"k": 99}, ("k=99", "larger than the table", "k=6")),
    ({"sensitive": "s", "t": -0.1}, ("t=-0.1", "e.g. t=0.2")),
    ({"sensitive": "s", "t": 1.5}, ("t=1.5",)),
    ({"sensitive": "s", "t": float("inf")}, ("t=inf",)),
    ({"sensitive": "s", "l": 0}, ("l=0",)),
    ({"sensitive": "s", "l": 4}, ("l=3",)),
    ({"sensitive": "s", "l": 2, "l_kind": "recursive", "c": -1}, ("c=-1",)),
    ({"sensitive": "s", "l": 2, "c": 3}, ("c=3", "l_kind='recursive'")),
    ({"sensitive": "s", "l": 2, "l_kind": "nope"}, ("l_kind='nope'", "frequency")),
    ({"sensitive": "s", "p": 2}, ("p=2", "needs k")),
    ({"l": 2}, ("none was given", "sensitive='COLUMN'")),
    ({"sensitive": "s", "t": 0.2, "distance": "hierarchical"}, ("sa_hierarchy='FILE'",)),
    ({"sensitive": "s", "t": 0.2, "distance": "matrix"}, ("distance_matrix='FILE'",)),
    ({"k": 2, "distance": "ordered"}, ("distance='ordered'", "needs t")),
    ({"k": 2, "method": "nope"}, ("method='nope'",)),
    ({"k": 2, "seed": -1}, ("seed=-1",)),
    ({"k": 2, "seed": "x"}, ("seed='x'",)),
    ({"k": 2, "progress": 5}, ("progress=5", "callable")),
    ({}, ("no privacy model", "k=5")),
])
def test_api_errors_name_python_parameters(kwargs: dict[str, object],
                                           words: tuple[str, ...]) -> None:
    with pytest.raises(StarminError) as exc:  # InvalidInput, or Infeasible for k > n
        starmin.anonymize(TABLE, qi="a", **kwargs)  # type: ignore[arg-type]
    text = str(exc.value)
    for w in words:
        assert w in text, text
    assert "--" not in text, text  # no command-line flag in a Python caller's message


def test_same_errors_on_the_command_line_name_flags() -> None:
    with command_line(), pytest.raises(InvalidInput) as exc:
        starmin.anonymize(TABLE, qi="a", sensitive="s", t=-0.1)
    assert "--t -0.1" in str(exc.value) and "--t 0.2" in str(exc.value)
    with command_line(), pytest.raises(InvalidInput) as exc:
        starmin.anonymize(TABLE, qi="a", l=2, l_kind="recursive", c=3)
    assert "--l-kind recursive" not in str(exc.value)  # this one is fine: the l check fires
    assert param("k", 5) == "k=5"  # outside the block: Python again


def test_param_spelling() -> None:
    assert param("l_kind", "recursive") == "l_kind='recursive'"
    assert param("qi", ["age", "zip"]) == "qi=['age', 'zip']"
    with command_line():
        assert param("l_kind", "recursive") == "--l-kind recursive"
        assert param("qi", ["age", "zip"]) == "--qi age,zip"
        assert param("t", -0.1) == "--t -0.1"
        assert param("distance_matrix") == "--distance-matrix"


def test_models_print_values_as_given() -> None:
    with pytest.raises(InvalidInput, match=r"t=-0\.1 ") as exc:
        TCloseness(-0.1)
    assert "1/10" not in str(exc.value)
    with pytest.raises(InvalidInput, match=r"k=0 "):
        KAnonymity(0)
    with pytest.raises(InvalidInput, match=r"l=2\.5 "):
        LDiversity(2.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("model", ["k", 5, [KAnonymity(2), "x"]])
def test_model_that_is_not_a_model(model: object) -> None:
    with pytest.raises(InvalidInput, match="is not a privacy model"):
        starmin.anonymize(TABLE, qi="a", model=model)  # type: ignore[arg-type]


def test_unknown_keyword_names_the_public_function() -> None:
    with pytest.raises(TypeError, match=r"anonymize\(\) got an unexpected keyword argument "
                       r"'kk'; did you mean 'k'\?"):
        starmin.anonymize(TABLE, qi="a", kk=5)


def test_parameters_are_checked_before_the_file_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "nope.csv"
    with pytest.raises(InvalidInput, match="k=0"):
        starmin.anonymize(missing, qi="a", k=0)
    with pytest.raises(TypeError, match="anonymize"):
        starmin.anonymize(missing, qi="a", kk=0)
    with pytest.raises(InvalidInput, match="none was given"):
        starmin.anonymize(missing, qi="a", l=2)


@pytest.mark.parametrize(("qi", "words"), [
    ("", ("no quasi-identifier", "qi=['age', 'zip']")),
    (["a", "a"], ("twice in qi",)),
    (["a", 3], ("qi holds 3",)),
    (5, ("qi=5",)),
    ("A", ("did you mean 'a'",)),
])
def test_bad_qi(qi: object, words: tuple[str, ...]) -> None:
    with pytest.raises(InvalidInput) as exc:
        starmin.anonymize(TABLE, qi=qi, k=2)  # type: ignore[arg-type]
    for w in words:
        assert w in str(exc.value), str(exc.value)


@pytest.mark.parametrize("convert", [lambda df: df, lambda df: df.to_pandas(),
                                     lambda df: df.to_arrow()])
def test_nested_columns_in_memory(convert) -> None:  # type: ignore[no-untyped-def]
    df = pl.DataFrame({"q": [[1], [2]] * 3, "s": ["x", "y", "z"] * 2})
    with pytest.raises(InvalidInput, match="quasi-identifier column 'q' holds nested values"):
        starmin.anonymize(convert(df), qi="q", k=2)
    with pytest.raises(InvalidInput, match="sensitive column 's' holds nested values"):
        starmin.anonymize(convert(df.rename({"q": "s", "s": "q"})), qi="q", sensitive="s",
                          l=2)


def test_object_and_binary_columns() -> None:
    objects = pl.DataFrame({"q": pl.Series([object(), object()] * 3, dtype=pl.Object)})
    with pytest.raises(InvalidInput, match="Python objects"):
        starmin.anonymize(objects, qi="q", k=2)
    raw = pl.DataFrame({"q": [b"x", b"y"] * 3})
    with pytest.raises(InvalidInput, match="raw bytes"):
        starmin.anonymize(raw, qi="q", k=2)


def test_unconvertible_pandas_and_arrow_columns() -> None:
    mixed = pd.DataFrame({"q": [1, "a"] * 3, "s": [1, 2, 3] * 2})
    with pytest.raises(InvalidInput, match="column 'q' of the pandas table"):
        starmin.anonymize(mixed, qi="q", k=2)
    with pytest.raises(InvalidInput, match="cannot convert the pandas table"):
        check(mixed, ["q"], [], [KAnonymity(2)])
    arrow = pa.table({"q": pa.array([1, 2] * 3)})
    assert starmin.anonymize(arrow, qi="q", k=2).report["verified"] is True


def test_verifier_refuses_a_number_for_column_names() -> None:
    with pytest.raises(InvalidInput, match="list of names, got 5"):
        check(TABLE, 5, [], [KAnonymity(2)])  # type: ignore[arg-type]


def test_verifier_names_nested_columns_and_close_matches() -> None:
    df = pl.DataFrame({"q": [[1], [2]] * 3, "age": [1, 2] * 3})
    with pytest.raises(InvalidInput, match="quasi-identifier column 'q' holds nested"):
        check(df, ["q"], [], [KAnonymity(2)])
    with pytest.raises(InvalidInput, match="did you mean 'age'"):
        check(df, ["Age"], [], [KAnonymity(2)])
