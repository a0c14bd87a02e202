"""Worked-example tables printed in the papers, as literal data.

These are the inputs of the papers' worked examples (their Tables 2-5 are releases of them),
so tests can reproduce the printed numbers exactly.
"""

from __future__ import annotations

import polars as pl

_LY_ROWS = (
    # (Zipcode, Age, Education, Disease) -- Liang & Yuan, Table 1, rows 1..10 in printed order
    ("98765", 38, "Bachelor", "Viral Infection"),
    ("98654", 39, "Doctorate", "Heart Disease"),
    ("98543", 32, "Master", "Heart Disease"),
    ("97654", 65, "Bachelor", "Cancer"),
    ("96689", 45, "Bachelor", "Viral Infection"),
    ("97427", 33, "Bachelor", "Viral Infection"),
    ("96552", 54, "Bachelor", "Heart Disease"),
    ("97017", 69, "Doctorate", "Cancer"),
    ("97023", 55, "Master", "Cancer"),
    ("97009", 62, "Bachelor", "Cancer"),
)

_XIAO_ROWS = (
    # (Age, Gender, Education, Disease) -- Xiao, Yi & Tao, Table 1, tuples 1..10 (Adam..Jane)
    ("< 30", "M", "Master", "HIV"),
    ("< 30", "M", "Master", "HIV"),
    ("< 30", "M", "Bachelor", "pneumonia"),
    ("[30, 50]", "M", "Bachelor", "bronchitis"),
    ("[30, 50]", "F", "Bachelor", "pneumonia"),
    ("[30, 50]", "F", "Bachelor", "bronchitis"),
    ("[30, 50]", "F", "Bachelor", "bronchitis"),
    ("[30, 50]", "F", "Bachelor", "pneumonia"),
    ("≥ 50", "F", "High Sch.", "dyspepsia"),
    ("≥ 50", "F", "High Sch.", "pneumonia"),
)


def liang_yuan_table1() -> pl.DataFrame:
    """Liang & Yuan's Table 1, "The raw microdata table" (Sec. 1), 10 rows in printed order.

    Columns: ``Zipcode`` (String, e.g. ``"98765"``), ``Age`` (Int64), ``Education``,
    ``Disease`` (the sensitive attribute). The printed ID column is not part of the table.

    References
    ----------
    H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related
    Problems", Table 1; Table 2 (a 3-anonymous partition of it, 54 stars when each digit is a
    QI), Table 3 (a 2-diverse partition).
    """
    return pl.DataFrame(
        [list(r) for r in _LY_ROWS],
        schema={"Zipcode": pl.String, "Age": pl.Int64, "Education": pl.String,
                "Disease": pl.String},
        orient="row",
    )


def liang_yuan_table1_digits() -> pl.DataFrame:
    """Liang & Yuan's Table 1 with each digit of Zipcode and Age a separate QI column.

    Sec. 2: "we regard each digit of Zip-code and Age as a separate QI". Columns ``z1..z5``
    (Zipcode digits), ``a1, a2`` (Age digits), all single-character Strings, then
    ``Education`` and ``Disease``. Under this reading Table 2 costs 54 stars.
    """
    t = liang_yuan_table1()
    zip_digits = [pl.col("Zipcode").str.slice(i, 1).alias(f"z{i + 1}") for i in range(5)]
    age = pl.col("Age").cast(pl.String).str.zfill(2)
    age_digits = [age.str.slice(i, 1).alias(f"a{i + 1}") for i in range(2)]
    return t.select(*zip_digits, *age_digits, "Education", "Disease")


def xiao_table1() -> pl.DataFrame:
    """Xiao, Yi & Tao's Table 1, "The microdata", 10 tuples in printed order (Adam..Jane).

    Columns: ``Age``, ``Gender``, ``Education``, ``Disease`` (sensitive), all Strings. The
    Name column is omitted: the paper says Name "is not part of the table" and serves only
    for tuple referencing. Age is already coarsened in the paper: the printed values are
    ``"< 30"``, ``"[30, 50]"`` and ``"≥ 50"`` (Table 1 prints the closed ``[30, 50]``; the
    paper's Table 5 and Sec. 2 write ``[30, 50)``, which is what it means, but the table is
    kept as printed). Education values are ``"Master"``, ``"Bachelor"``, ``"High Sch."``.
    The table has five distinct QI vectors, {1,2}, {3}, {4}, {5..8}, {9,10} (the
    Sec. 5.2 example lists these five groups while saying "4 QI-groups").

    References
    ----------
    X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity",
    EDBT 2010, Table 1; Tables 2-3 (2-anonymous and 2-diverse releases of it).
    """
    return pl.DataFrame(
        [list(r) for r in _XIAO_ROWS],
        schema={"Age": pl.String, "Gender": pl.String, "Education": pl.String,
                "Disease": pl.String},
        orient="row",
    )
