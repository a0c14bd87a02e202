"""The papers' worked examples, built literally from the released tables in the papers and
checked by the independent verifier.

Liang & Yuan (shared/papers/liang-yuan-t-closeness.md): Table 2 (Sec. 1, a 3-anonymous
partition; its cost 5*3 + 6*4 + 5*3 = 54 is stated in Sec. 2), Table 3 (Sec. 1, "a 2-diverse
partition"; Sec. 2.1: its first group has SA distribution (0.5, 0.5, 0) and EMD 0.4 from the
whole table's (0.3, 0.3, 0.4) in the equal-distance space, so it is not a 0.3-closeness
partition) and Table 5 (Sec. 2.1, "a 0.3-closeness partition ... even a 0.1-closeness
partition").

Xiao, Yi, Tao (shared/papers/xiao-yi-tao-l-diversity.md): Table 2 (Sec. 1, 2-anonymous; "both
tuples in the first QI-group of Table 2 have HIV") and Table 3 (Sec. 1, "a 2-diverse
generalization"; Sec. 3: "in Table 3, the amount of information loss is 8 (stars) in Problem 1,
but 4 (tuples) in Problem 2").
"""

from __future__ import annotations

import polars as pl
import pytest

from starmin.models import KAnonymity, LDiversity, TCloseness
from starmin.verifier import verify

VI, HD, CA = "Viral Infection", "Heart Disease", "Cancer"
LY_COLS = ["Zipcode", "Age", "Education", "Disease"]

# Liang & Yuan Table 2, rows 1-10 as printed
LY_TABLE_2 = [
    ("98***", "3*", "*", VI), ("98***", "3*", "*", HD), ("98***", "3*", "*", HD),
    ("9****", "**", "Bachelor", CA), ("9****", "**", "Bachelor", VI),
    ("9****", "**", "Bachelor", VI), ("9****", "**", "Bachelor", HD),
    ("970**", "**", "*", CA), ("970**", "**", "*", CA), ("970**", "**", "*", CA),
]
# Liang & Yuan Table 3, rows in the printed order (IDs 1, 2, 3, 5, 8, 9, 4, 6, 7, 10)
LY_TABLE_3 = [
    ("98***", "3*", "*", VI), ("98***", "3*", "*", HD),
    ("9****", "**", "*", HD), ("9****", "**", "*", VI), ("9****", "**", "*", CA),
    ("9****", "**", "*", CA),
    ("97***", "**", "Bachelor", CA), ("97***", "**", "Bachelor", VI),
    ("9****", "**", "Bachelor", HD), ("9****", "**", "Bachelor", CA),
]
# Liang & Yuan Table 5, rows in the printed order (IDs 1, 2, 4, 3, 5, 8, 9, 6, 7, 10)
LY_TABLE_5 = [
    ("9****", "**", "*", VI), ("9****", "**", "*", HD), ("9****", "**", "*", CA),
    ("9****", "**", "*", HD), ("9****", "**", "*", VI), ("9****", "**", "*", CA),
    ("9****", "**", "*", CA),
    ("9****", "**", "Bachelor", VI), ("9****", "**", "Bachelor", HD),
    ("9****", "**", "Bachelor", CA),
]


def ly(rows: list[tuple[str, ...]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=LY_COLS, orient="row")


def per_digit(rows: list[tuple[str, ...]]) -> pl.DataFrame:
    """Sec. 2: "we regard each digit of Zip-code and Age as a separate QI" (m = 8)."""
    cols = ["Z1", "Z2", "Z3", "Z4", "Z5", "A1", "A2", "Education", "Disease"]
    return pl.DataFrame([(*z, *a, e, d) for z, a, e, d in rows], schema=cols, orient="row")


QI = ["Zipcode", "Age", "Education"]
QI_DIGITS = ["Z1", "Z2", "Z3", "Z4", "Z5", "A1", "A2", "Education"]


def test_liang_yuan_table_2_is_3_anonymous_with_cost_54() -> None:
    r = verify(ly(LY_TABLE_2), QI, "Disease", KAnonymity(3))
    assert r.passed and r.classes == 3 and r.check("3-anonymity").worst == 3
    assert not verify(ly(LY_TABLE_2), QI, "Disease", KAnonymity(4)).passed
    assert verify(per_digit(LY_TABLE_2), QI_DIGITS, "Disease", KAnonymity(3)).stars == 54


def test_liang_yuan_table_3_is_2_diverse_not_03_close() -> None:
    table = ly(LY_TABLE_3)
    r = verify(table, QI, "Disease", [LDiversity(2), TCloseness(0.4), TCloseness(0.3)])
    assert r.classes == 4
    assert r.check("2-diversity").passed
    assert r.check("0.4-closeness (equal distance)").passed
    close = r.check("0.3-closeness (equal distance)")
    assert not close.passed and close.violating_classes == 1
    first = close.examples[0]  # the group of IDs 1 and 2: distribution (0.5, 0.5, 0)
    assert dict(first.qi) == {"Zipcode": "98***", "Age": "3*", "Education": "*"}
    assert first.size == 2 and first.measure == pytest.approx(0.4)
    assert close.worst == pytest.approx(0.4)
    assert not verify(table, QI, "Disease", LDiversity(3)).passed


def test_liang_yuan_table_5_is_01_close() -> None:
    r = verify(ly(LY_TABLE_5), QI, "Disease", [TCloseness(0.3), TCloseness(0.1)])
    assert r.passed and r.classes == 2
    # groups (2/7, 2/7, 3/7) and (1/3, 1/3, 1/3) against (0.3, 0.3, 0.4): EMD 1/35 and 1/15
    assert r.check("0.1-closeness (equal distance)").worst == pytest.approx(1 / 15)
    assert not verify(ly(LY_TABLE_5), QI, "Disease", TCloseness(0.06)).passed


XIAO_COLS = ["Age", "Gender", "Education", "Disease"]
XIAO_TABLE_2 = [
    ("< 30", "M", "Master", "HIV"), ("< 30", "M", "Master", "HIV"),
    ("*", "M", "Bachelor", "pneumonia"), ("*", "M", "Bachelor", "bronchitis"),
    ("[30, 50]", "F", "Bachelor", "pneumonia"), ("[30, 50]", "F", "Bachelor", "bronchitis"),
    ("[30, 50]", "F", "Bachelor", "bronchitis"), ("[30, 50]", "F", "Bachelor", "pneumonia"),
    ("≥ 50", "F", "High Sch.", "dyspepsia"), ("≥ 50", "F", "High Sch.", "pneumonia"),
]
XIAO_TABLE_3 = [
    ("*", "M", "*", "HIV"), ("*", "M", "*", "HIV"), ("*", "M", "*", "pneumonia"),
    ("*", "M", "*", "bronchitis"),
    ("[30, 50]", "F", "Bachelor", "pneumonia"), ("[30, 50]", "F", "Bachelor", "bronchitis"),
    ("[30, 50]", "F", "Bachelor", "bronchitis"), ("[30, 50]", "F", "Bachelor", "pneumonia"),
    ("≥ 50", "F", "High Sch.", "dyspepsia"), ("≥ 50", "F", "High Sch.", "pneumonia"),
]


def test_xiao_table_2_is_2_anonymous_but_not_2_diverse() -> None:
    table = pl.DataFrame(XIAO_TABLE_2, schema=XIAO_COLS, orient="row")
    r = verify(table, XIAO_COLS[:3], "Disease", [KAnonymity(2), LDiversity(2)])
    assert r.check("2-anonymity").passed and r.classes == 4
    ld = r.check("2-diversity")
    assert not ld.passed and ld.violating_classes == 1
    assert dict(ld.examples[0].qi) == {"Age": "< 30", "Gender": "M", "Education": "Master"}
    assert (r.stars, r.suppressed_records) == (2, 2)


def test_xiao_table_3_has_8_stars_4_suppressed_tuples_and_is_2_diverse() -> None:
    table = pl.DataFrame(XIAO_TABLE_3, schema=XIAO_COLS, orient="row")
    r = verify(table, XIAO_COLS[:3], "Disease", LDiversity(2))
    assert r.passed and r.classes == 3
    assert r.stars == 8 and r.suppressed_records == 4 and r.fully_suppressed_records == 0
