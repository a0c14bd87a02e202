"""Built-in hierarchies: intervals for numbers, masks for fixed-width codes, flat otherwise."""

from __future__ import annotations

import datetime as dt
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.errors import InvalidInput
from starmin.transform.builtin import builtin, kind_of
from starmin.transform.hierarchy import Hierarchy
from starmin.transform.nodes import column_hierarchy


def test_kinds() -> None:
    assert kind_of([1, 5, 9]) == "intervals"
    assert kind_of([0.5, 2, None]) == "intervals"
    assert kind_of(["02138", "02139", None]) == "mask"
    assert kind_of([dt.date(2020, 1, 2), dt.date(2021, 3, 4)]) == "mask"
    assert kind_of(["Male", "Female"]) == "flat"
    assert kind_of(["ab", "cd"]) == "flat"  # same width but no digit: a category
    assert kind_of([True, False]) == "flat"
    assert kind_of([7, None]) == "flat"  # a single value


def test_integer_intervals_literal() -> None:
    # 8 values over 20..41: at most 4 intervals at the finest level -> width 21 / 4 = 5.25 ->
    # the next 1, 2, 5 x 10^e is 10; then 20 (2 nodes); 40 would hold all: the root
    h = builtin([20, 23, 29, 30, 34, 35, 39, 41, None], "age")
    assert h.rows == (
        ("20", "20-29", "20-39", "*"), ("23", "20-29", "20-39", "*"),
        ("29", "20-29", "20-39", "*"), ("30", "30-39", "20-39", "*"),
        ("34", "30-39", "20-39", "*"), ("35", "30-39", "20-39", "*"),
        ("39", "30-39", "20-39", "*"), ("41", "40-49", "40-59", "*"),
        ("", "*", "*", "*"))
    assert h.source == "built-in intervals"
    h.check_tree()


def test_negative_and_float_intervals_literal() -> None:
    h = builtin([-12, -3, 4, 8, 15, 40], "x")
    assert h.rows == (("-12", "[-20, 0[", "[-80, 0[", "*"), ("-3", "[-20, 0[", "[-80, 0[", "*"),
                      ("4", "0-19", "0-79", "*"), ("8", "0-19", "0-79", "*"),
                      ("15", "0-19", "0-79", "*"), ("40", "40-59", "0-79", "*"))
    h = builtin([0.05, 0.12, 0.3, 0.31, 0.7, 0.95], "p")  # 0.9 / 3 = 0.3 -> width 0.5
    assert h.rows == (("0.05", "[0, 0.5[", "*"), ("0.12", "[0, 0.5[", "*"),
                      ("0.3", "[0, 0.5[", "*"), ("0.31", "[0, 0.5[", "*"),
                      ("0.7", "[0.5, 1[", "*"), ("0.95", "[0.5, 1[", "*"))


def test_mask_literal() -> None:
    h = builtin(["02138", "02139", "02141", "10001", None], "zip")
    # 0213* merges two zips; 021** merges three; 02*** / 0**** merge nothing more: skipped
    assert h.rows == (("02138", "0213*", "021**", "*"), ("02139", "0213*", "021**", "*"),
                      ("02141", "0214*", "021**", "*"), ("10001", "1000*", "100**", "*"),
                      ("", "*", "*", "*"))
    # dates as text: one level merges the first two; the next one that merges puts all three
    # under '202*-**-**', a single node: that is the root
    assert builtin([dt.date(2020, 1, 2), dt.date(2020, 1, 9), dt.date(2021, 3, 4)]).rows == (
        ("2020-01-02", "2020-01-0*", "*"), ("2020-01-09", "2020-01-0*", "*"),
        ("2021-03-04", "2021-03-0*", "*"))


def test_flat_and_forced_kinds() -> None:
    assert builtin(["b", "a", None]).rows == (("a", "*"), ("b", "*"), ("", "*"))
    assert builtin([1, 2, 3], kind="flat").rows == (("1", "*"), ("2", "*"), ("3", "*"))
    assert builtin([12, 13, 22], kind="mask").rows[0] == ("12", "1*", "*")
    with pytest.raises(InvalidInput, match=r"column 'c' holds 'x', not a number"):
        builtin(["x", "y"], "c", kind="intervals")
    with pytest.raises(InvalidInput, match=r"does not hold codes of one width"):
        builtin(["abc", "de"], "c", kind="mask")
    with pytest.raises(InvalidInput, match="unknown hierarchy kind 'tree'"):
        builtin([1, 2], kind="tree")


def test_built_ins_round_trip_through_arx_csv() -> None:
    h = builtin([17, 25, 33, 48, 61, 90, None], "age")
    assert Hierarchy.parse(h.to_csv()).rows == h.rows


@settings(max_examples=60, deadline=None)
@given(st.one_of(
    st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=60, unique=True),
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=60, unique=True),
    st.lists(st.text("0123456789", min_size=5, max_size=5), min_size=1, max_size=60,
             unique=True)),
    st.booleans())
def test_built_ins_are_trees_covering_their_values(values: list[object], missing: bool) -> None:
    domain = [*values, None] if missing else values
    h = builtin(domain, "c")
    h.check_tree()
    c = column_hierarchy(h, tuple(domain), "c")
    assert c.card == len(domain) and c.domain == len(domain)
    # each level merges: fewer nodes than the level below
    counts = [len(set(c.up[lv].tolist())) for lv in range(c.height + 1)]
    assert all(a > b for a, b in pairwise(counts)) or counts[0] == 1
