"""The local engine: aggregation, missing values, plan application, atomic output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from starmin.data import Schema
from starmin.data.csv_file import sniff_separator
from starmin.engines.local import LocalEngine
from starmin.errors import InvalidInput
from starmin.io.output import check_output, write_table_pair
from starmin.io.tables import read_table
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

G = Guarantee("heuristic", "test plan")


def table() -> pl.DataFrame:
    return pl.DataFrame({
        "id": [1, 2, 3, 4, 5, 6, 7],
        "age": [30, 30, 41, None, 30, 41, None],
        "zip": ["a", "a", "b", "b", None, "b", "b"],
        "dis": ["flu", "hiv", "flu", None, "flu", "flu", None],
        "note": list("ABCDEFG"),
    })


def encode(df: pl.DataFrame | None = None):
    return LocalEngine().to_row_types(
        table() if df is None else df, Schema.of("age,zip", "dis", identifiers="id"))


def test_row_types_match_group_by_and_keep_missing_values() -> None:
    enc = encode()
    rt = enc.row_types
    assert rt.n == 7 and rt.m == 2
    # decoded row types with their counts equal polars' own group-by (nulls are a value)
    got = {}
    for i in range(rt.t_in):
        vec = tuple(rt.domains[j][rt.codes[i, j]] for j in range(rt.m))
        got[vec] = int(rt.sizes[i])
    want = {(r["age"], r["zip"]): r["len"]
            for r in table().group_by(["age", "zip"]).len().iter_rows(named=True)}
    assert got == want
    assert rt.domains[0][-1] is None and rt.sensitive_domains[0][-1] is None
    assert int(rt.counts.sum(axis=0)[len(rt.sensitive_domains[0]) - 1]) == 2  # two missing SAs


def test_codes_follow_natural_order() -> None:
    rt = encode().row_types
    assert list(rt.domains[0]) == [30, 41, None]
    assert list(rt.domains[1]) == ["a", "b", None]


def suppress_all_plan(rt) -> ReleasePlan:
    ti, ki = np.nonzero(rt.counts)
    outputs = np.full((1, rt.m), STAR, dtype=np.int32)
    return ReleasePlan(outputs, np.zeros(len(ti)), ti, ki, rt.counts[ti, ki], "all-stars", G)


def identity_plan(rt) -> ReleasePlan:
    ti, ki = np.nonzero(rt.counts)
    return ReleasePlan(rt.codes, ti, ti, ki, rt.counts[ti, ki], "identity", G)


def test_identity_plan_reproduces_qi_values_and_order() -> None:
    enc = encode()
    out = LocalEngine().apply_plan(enc, identity_plan(enc.row_types))
    assert "id" not in out.columns
    assert out["note"].to_list() == list("ABCDEFG")
    assert out["age"].to_list() == ["30", "30", "41", None, "30", "41", None]
    assert out["zip"].to_list() == table()["zip"].to_list()
    assert out["dis"].to_list() == table()["dis"].to_list()


def test_split_plan_is_deterministic_per_seed_and_respects_counts() -> None:
    df = pl.DataFrame({"q": [1] * 50 + [2] * 50, "s": ["x", "y"] * 50, "r": range(100)})
    enc = LocalEngine().to_row_types(df, Schema.of("q", "s"))
    rt = enc.row_types
    # half of every (type, key) class is suppressed, half kept
    ti, ki = np.nonzero(rt.counts)
    c = rt.counts[ti, ki]
    outputs = np.vstack([rt.codes, np.full((1, 1), STAR)])
    plan = ReleasePlan(outputs, np.concatenate([ti, np.full(len(ti), rt.t_in)]),
                       np.concatenate([ti, ti]), np.concatenate([ki, ki]),
                       np.concatenate([c - c // 2, c // 2]), "split", G)
    a = LocalEngine().apply_plan(enc, plan, seed=1)
    b = LocalEngine().apply_plan(enc, plan, seed=1)
    other = LocalEngine().apply_plan(enc, plan, seed=2)
    assert a.equals(b)
    assert not a.equals(other)
    assert a.filter(pl.col("q") == "*").height == 4 * 12
    assert a.group_by(["q", "s"]).len().sort(["q", "s"])["len"].to_list() == [
        24, 24, 13, 13, 13, 13]
    assert a["r"].to_list() == list(range(100))


def test_all_stars_plan() -> None:
    enc = encode()
    out = LocalEngine().apply_plan(enc, suppress_all_plan(enc.row_types))
    assert set(out["age"].to_list()) == {"*"} and set(out["zip"].to_list()) == {"*"}


def test_hierarchy_nodes_are_written_as_their_labels() -> None:
    from dataclasses import replace

    from starmin.transform.hierarchy import Hierarchy
    from starmin.transform.nodes import resolve

    enc = encode()
    rt = enc.row_types  # age 30, 41, missing; zip a, b, missing
    age = Hierarchy.parse("30;30-39;*\n41;40-49;*\n;unknown;*\n", name="age")
    zips = Hierarchy.parse("a;ab;*\nb;ab;*\n;*;*\n", name="zip")
    got = resolve(rt, {"age": age, "zip": zips}, False)
    assert got is not None
    rt = rt.with_hierarchies(got.hierarchies)
    enc = replace(enc, row_types=rt)
    # every row type released at level 1 of age; zip 'a'/'b' -> 'ab', missing zip -> *
    outputs = np.array([[rt.dgh[0].up[1, a], rt.dgh[1].up[1, z]] for a, z in rt.codes])
    ti, ki = np.nonzero(rt.counts)
    plan = ReleasePlan(outputs, ti, ti, ki, rt.counts[ti, ki], "levels", G)
    out = LocalEngine().apply_plan(enc, plan)
    assert out["age"].to_list() == ["30-39", "30-39", "40-49", "unknown", "30-39", "40-49",
                                    "unknown"]
    assert out["zip"].to_list() == ["ab", "ab", "ab", "ab", "*", "ab", "ab"]
    assert out["note"].to_list() == list("ABCDEFG")


def test_bad_plan_is_refused() -> None:
    enc = encode()
    rt = enc.row_types
    ti, ki = np.nonzero(rt.counts)
    wrong = ReleasePlan(rt.codes[::-1], ti, ti, ki, rt.counts[ti, ki], "wrong", G)
    with pytest.raises(ValueError, match="generalize"):
        LocalEngine().apply_plan(enc, wrong)
    short = ReleasePlan(rt.codes, ti[1:], ti[1:], ki[1:], rt.counts[ti, ki][1:], "short", G)
    with pytest.raises(ValueError, match="exactly once"):
        LocalEngine().apply_plan(enc, short)


@pytest.mark.parametrize(
    ("df", "schema", "match"),
    [
        (table(), Schema.of("age,nope", "dis"), "unknown column 'nope'"),
        (table().head(0), Schema.of("age", "dis"), "no rows"),
        (table().with_columns(pl.lit("*").alias("zip")), Schema.of("zip", "dis"), "'\\*'"),
    ],
)
def test_bad_tables(df: pl.DataFrame, schema: Schema, match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        LocalEngine().to_row_types(df, schema)


@pytest.mark.parametrize(("qi", "sens", "match"), [
    ("age,age", None, "twice"), ("age", "age", "as quasi-identifier and as sensitive"),
    ("", None, "no quasi-identifier")])
def test_bad_schemas(qi: str, sens: str | None, match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        Schema.of(qi, sens)


def test_csv_separator_sniffing_and_duplicate_header(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_text("a;b;c\r\n1;x,y;3\r\n4;z;6\r\n")
    assert sniff_separator(p) == ";"
    assert read_table(p).columns == ["a", "b", "c"]
    d = tmp_path / "d.csv"
    d.write_text("a,b,a\n1,2,3\n")
    with pytest.raises(InvalidInput, match="two columns named 'a'"):
        read_table(d)
    with pytest.raises(InvalidInput, match="does not exist"):
        read_table(tmp_path / "missing.csv")


def test_atomic_write_leaves_nothing_on_failure(tmp_path: Path) -> None:
    class Boom(pl.DataFrame):
        def write_csv(self, *a, **k):  # type: ignore[override]
            raise RuntimeError("disk full")

    target = check_output(tmp_path / "out.csv")
    with pytest.raises(RuntimeError):
        write_table_pair(Boom({"a": [1]}), target, {})
    assert list(tmp_path.iterdir()) == []
    write_table_pair(pl.DataFrame({"a": [1]}), target, {})
    assert target.path.read_text() == "a\n1\n"


def test_pandas_and_arrow_inputs_convert() -> None:
    df = table()
    for src in (df.to_pandas(), df.to_arrow()):  # pandas, pyarrow: test extras
        assert read_table(src).shape == df.shape


def test_too_many_sensitive_values_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    from starmin.cli.main import main
    from starmin.engines import local

    rng = np.random.default_rng(0)
    df = pl.DataFrame({"q": rng.integers(0, 50, 400), "s": np.arange(400)})  # all distinct
    monkeypatch.setattr(local, "MAX_COUNT_CELLS", 1000)
    with pytest.raises(InvalidInput, match=r"distinct values .* Coarsen the sensitive"):
        LocalEngine().to_row_types(df, Schema.of(["q"], "s"))
    src = tmp_path / "t.csv"
    df.write_csv(src)
    out = tmp_path / "out.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "q", "--sensitive", "s", "--l", "2",
                 "-o", str(out)]) == 2
    assert not out.exists() and not (tmp_path / "out.csv.report.json").exists()
    # the verifier needs no such matrix: every class holds distinct values, so it is 2-diverse
    assert main(["-q", "verify", str(src), "--qi", "q", "--sensitive", "s", "--l", "2"]) == 0


def test_nan_in_a_csv_is_a_value_of_its_own(tmp_path: Path) -> None:
    from starmin.cli.main import main

    # "NaN" read as a float would be the engine's missing value, one class with the empty
    # field: released as empty (a changed cell) and 2-anonymous only to the engine, while the
    # verifier reads the file as text and sees two classes of one row. It stays text.
    src = tmp_path / "t.csv"
    src.write_text("a,b\n1.5,x\n1.5,x\nNaN,x\n,x\n")
    df = read_table(src)
    assert df["a"].dtype == pl.String and df["a"].to_list() == ["1.5", "1.5", "NaN", None]
    out = tmp_path / "out.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "a,b", "--k", "2", "-o", str(out)]) == 0
    assert out.read_text().splitlines() == ["a,b", "1.5,x", "1.5,x", "*,x", "*,x"]
    assert main(["-q", "verify", str(out), "--qi", "a,b", "--k", "2",
                 "--original", str(src)]) == 0
    sa = tmp_path / "s.csv"  # as a sensitive value too: NaN, 1.5 and missing, three values
    sa.write_text("a,s\nx,NaN\nx,1.5\ny,NaN\ny,\n")
    assert main(["-q", "anonymize", str(sa), "--qi", "a", "--sensitive", "s", "--l", "2",
                 "-o", str(out)]) == 0
    assert out.read_text().splitlines() == ["a,s", "x,NaN", "x,1.5", "y,NaN", "y,"]
    # a quoted "" is the empty string, not the missing value (the writer writes them so)
    sa.write_text('a,s\nx,""\nx,\ny,""\ny,\n')
    assert read_table(sa)["s"].to_list() == ["", None, "", None]
    assert main(["-q", "anonymize", str(sa), "--qi", "a", "--sensitive", "s", "--l", "2",
                 "-o", str(out)]) == 0
    assert out.read_text() == sa.read_text()


def test_column_names_polars_reads_as_patterns(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # "*" and "^b$" are a wildcard and a pattern to polars: as another column they are kept
    # as they are; given a role they are refused in one message (they crashed: exit 3)
    from starmin.cli.main import main

    src = tmp_path / "t.csv"
    src.write_text("a,^b$,*,s\n1,2,3,p\n1,2,5,q\n1,4,3,p\n1,4,5,q\n")
    out = tmp_path / "out.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "a", "--k", "2", "-o", str(out)]) == 0
    assert out.read_text() == src.read_text()
    assert main(["-q", "verify", str(out), "--qi", "a", "--k", "2",
                 "--original", str(src)]) == 0
    for qi, sa in (("a,*", "s"), ("^b$", "s"), ("a", "*")):
        capsys.readouterr()
        assert main(["-q", "anonymize", str(src), "--qi", qi, "--sensitive", sa, "--k", "2",
                     "-o", str(out)]) == 2
        assert "cannot be given a role" in capsys.readouterr().err
        assert main(["-q", "verify", str(src), "--qi", qi, "--sensitive", sa, "--k", "2"]) == 2
        assert "cannot be checked" in capsys.readouterr().err


@pytest.mark.parametrize(("content", "words"), [
    (b"a,b\xff\n1,2\n1,2\n", "line 1 (the header) is not UTF-8 text (byte 0xff)"),
    (b"a,b\r1,2\r1,2\r", "carriage return alone (old Mac line endings)")])
def test_a_bad_header_or_line_ending_is_named(tmp_path: Path, content: bytes, words: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # a bad byte in the header was replaced by U+FFFD and written into the release; a file
    # with CR line endings was "a header but no records"
    from starmin.cli.main import main

    src = tmp_path / "t.csv"
    src.write_bytes(content)
    out = tmp_path / "out.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "a", "--k", "2", "-o", str(out)]) == 2
    assert words in capsys.readouterr().err and not out.exists()
    assert main(["-q", "verify", str(src), "--qi", "a", "--k", "2"]) == 2
    assert words in capsys.readouterr().err


def test_csv_values_are_kept_as_written(tmp_path: Path) -> None:
    # leading zeros, a trailing zero and a late "?" (after any schema-inference window)
    rows = ["zip;age;score;s"] + [f"0{2100 + i % 7};{20 + i % 40};{i % 5}.5;x"
                                 for i in range(120_000)]
    rows += ["02138;?;3.10;y"]
    p = tmp_path / "t.csv"
    p.write_text("\n".join(rows) + "\n")
    df = read_table(p)
    assert df["zip"].dtype == pl.String and df["zip"][0] == "02100"
    assert df["age"].dtype == pl.String and df["age"][-1] == "?"
    assert df["score"].dtype == pl.String and df["score"][-1] == "3.10"
    q = tmp_path / "n.csv"
    q.write_text("a,b,c\n1,2.5,\n-3,-0.25,x\n")
    df = read_table(q)
    assert df.schema == pl.Schema({"a": pl.Int64, "b": pl.Float64, "c": pl.String})
    assert df["c"].to_list() == [None, "x"]  # an empty field is a missing value


def test_float32_and_boolean_values_are_released_as_written(tmp_path: Path) -> None:
    # A float32 0.1 was released as Python's text of its exact value, 0.10000000149011612, a
    # hierarchy line "0.1;..." did not match it, and a truth value was released as "True"
    # where the CSV writer writes "true"
    import starmin
    from starmin.cli.main import main
    from starmin.transform.hierarchy import Hierarchy

    df = pl.DataFrame({"a": pl.Series([0.1, 0.1, 0.2, 0.2, 0.3, 1e-7, None, None],
                                      dtype=pl.Float32),
                       "b": [True, True, False, False, True, True, None, None],
                       "s": ["x", "y", "x", "y", "z", "x", "y", "x"]})
    rel = starmin.anonymize(df, ["a", "b"], "s", k=2)
    assert rel.table["a"].to_list() == ["0.1", "0.1", "0.2", "0.2", "*", "*", None, None]
    assert rel.table["b"].to_list() == ["true", "true", "false", "false", "true", "true", None,
                                        None]
    src = tmp_path / "t.parquet"
    df.write_parquet(src)
    out = tmp_path / "out.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "a,b", "--sensitive", "s", "--k", "2",
                 "-o", str(out)]) == 0
    assert out.read_text().splitlines() == [
        "a,b,s", "0.1,true,x", "0.1,true,y", "0.2,false,x", "0.2,false,y", "*,true,z",
        "*,true,x", ",,y", ",,x"]
    assert main(["-q", "verify", str(out), "--qi", "a,b", "--sensitive", "s", "--k", "2",
                 "--original", str(src)]) == 0
    # the verifier reads a float32 original by its shortest text too: a released exact value
    # is a changed cell
    bad = tmp_path / "bad.csv"
    bad.write_text(out.read_text().replace("0.1,", "0.10000000149011612,"))
    assert main(["-q", "verify", str(bad), "--qi", "a,b", "--sensitive", "s", "--k", "2",
                 "--original", str(src)]) == 1
    h = Hierarchy.parse("0.1;low;*\n0.2;low;*\n0.3;high;*\n", separator=";", name="a")
    three = pl.DataFrame({"a": pl.Series([0.1, 0.2, 0.3, 0.3], dtype=pl.Float32),
                          "s": ["x", "y", "x", "y"]})
    rel = starmin.anonymize(three, ["a"], "s", k=2, hierarchies={"a": h})
    assert rel.table["a"].to_list() == ["low", "low", "0.3", "0.3"]
