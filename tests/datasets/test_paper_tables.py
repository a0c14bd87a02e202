"""The papers' example tables, checked cell by cell and against the releases printed beside them.

Liang & Yuan: Table 1 (the data), Table 2 (3-anonymous partition, 54 stars with one QI per
digit), Table 3 (2-diverse partition). Xiao, Yi & Tao: Table 1 (the data), Table 2
(2-anonymous, 4 QI-groups), Table 3 (2-diverse, 3 QI-groups).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from starmin.data import RowTypes
from starmin.datasets import liang_yuan_table1, liang_yuan_table1_digits, xiao_table1
from starmin.transform.plan import STAR, group_cost, suppressor


def _codes(df: pl.DataFrame, cols: list[str]) -> tuple[np.ndarray, list[tuple[object, ...]]]:
    """``(n, m)`` codes into each column's sorted distinct values, and those values."""
    enc = [np.unique(df[c].to_numpy(), return_inverse=True) for c in cols]
    return np.stack([inv for _, inv in enc], axis=1), [tuple(u) for u, _ in enc]


def test_liang_yuan_table1_literal_cells() -> None:
    t = liang_yuan_table1()
    assert t.columns == ["Zipcode", "Age", "Education", "Disease"]
    assert t.schema["Zipcode"] == pl.String and t.schema["Age"] == pl.Int64
    assert t.height == 10
    # spot checks, (row ID as printed, column) -> printed cell
    assert t.row(0) == ("98765", 38, "Bachelor", "Viral Infection")
    assert t["Zipcode"][1] == "98654" and t["Education"][1] == "Doctorate"
    assert t["Age"][2] == 32 and t["Disease"][2] == "Heart Disease"
    assert t.row(4) == ("96689", 45, "Bachelor", "Viral Infection")
    assert t["Zipcode"][7] == "97017" and t["Age"][7] == 69
    assert t.row(9) == ("97009", 62, "Bachelor", "Cancer")
    assert t["Disease"].value_counts().sort("Disease").rows() == [
        ("Cancer", 4), ("Heart Disease", 3), ("Viral Infection", 3)]


def test_liang_yuan_digits_split_every_digit() -> None:
    d = liang_yuan_table1_digits()
    t = liang_yuan_table1()
    assert d.columns == ["z1", "z2", "z3", "z4", "z5", "a1", "a2", "Education", "Disease"]
    for i in range(10):
        row = d.row(i)
        assert "".join(row[:5]) == t["Zipcode"][i]
        assert int("".join(row[5:7])) == t["Age"][i]
        assert row[7:] == t.row(i)[2:]


def _render(sup: np.ndarray, domains: list[tuple[object, ...]]) -> tuple[str, str, str]:
    """A digit-level suppressor in the papers' printed form ('98***', '3*', '*')."""
    cells = ["*" if c == STAR else str(domains[j][c]) for j, c in enumerate(sup)]
    return "".join(cells[:5]), "".join(cells[5:7]), cells[7]


def test_liang_yuan_table2_and_table3_reproduced() -> None:
    d = liang_yuan_table1_digits()
    codes, domains = _codes(d, d.columns[:8])
    # Table 2: groups {1,2,3}, {4,5,6,7}, {8,9,10} (printed row IDs)
    table2 = {(1, 2, 3): ("98***", "3*", "*"), (4, 5, 6, 7): ("9****", "**", "Bachelor"),
              (8, 9, 10): ("970**", "**", "*")}
    cost = 0
    for ids, printed in table2.items():
        rows = codes[[i - 1 for i in ids]]
        assert _render(suppressor(rows), domains) == printed
        cost += group_cost(rows, len(ids))
    assert cost == 54  # Sec. 2: one QI per digit
    # Table 3 (2-diverse): groups {1,2}, {3,5,8,9}, {4,6}, {7,10}
    table3 = {(1, 2): ("98***", "3*", "*"), (3, 5, 8, 9): ("9****", "**", "*"),
              (4, 6): ("97***", "**", "Bachelor"), (7, 10): ("9****", "**", "Bachelor")}
    disease = d["Disease"].to_list()
    for ids, printed in table3.items():
        assert _render(suppressor(codes[[i - 1 for i in ids]]), domains) == printed
        values = [disease[i - 1] for i in ids]
        assert max(values.count(v) for v in values) * 2 <= len(values)


def test_xiao_table1_literal_cells() -> None:
    t = xiao_table1()
    assert t.columns == ["Age", "Gender", "Education", "Disease"]
    assert t.height == 10
    assert t.row(0) == ("< 30", "M", "Master", "HIV")           # Adam
    assert t.row(2) == ("< 30", "M", "Bachelor", "pneumonia")   # Calvin
    assert t.row(3) == ("[30, 50]", "M", "Bachelor", "bronchitis")  # Danny
    assert t.row(6) == ("[30, 50]", "F", "Bachelor", "bronchitis")  # Ginny
    assert t.row(8) == ("≥ 50", "F", "High Sch.", "dyspepsia")  # Ivy
    assert t["Disease"][9] == "pneumonia"                         # Jane
    # Sec. 5.2's example: the distinct QI vectors are {1,2}, {3}, {4}, {5..8}, {9,10}
    rt = RowTypes.from_arrays(_codes(t, ["Age", "Gender", "Education"])[0])
    assert sorted(rt.sizes.tolist()) == [1, 1, 2, 2, 4]


def test_xiao_tables_2_and_3_star_counts() -> None:
    t = xiao_table1()
    codes, _ = _codes(t, ["Age", "Gender", "Education"])
    disease = t["Disease"].to_list()

    def stars(groups: list[list[int]]) -> int:
        return sum(group_cost(codes[[i - 1 for i in g]], len(g)) for g in groups)

    # Table 2 (2-anonymous): only tuples 3 and 4 have their Age suppressed
    assert stars([[1, 2], [3, 4], [5, 6, 7, 8], [9, 10]]) == 2
    # Table 3 (2-diverse): tuples 1-4 lose Age and Education
    table3 = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]
    assert stars(table3) == 8
    for g in table3:
        values = [disease[i - 1] for i in g]
        assert max(values.count(v) for v in values) * 2 <= len(values)
