"""Hierarchies in, validated: --hierarchy COL=FILE, --generalize, starmin hierarchy, and the
Python argument; suppression-only releases are unchanged by default."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.cli.main import main
from starmin.errors import InvalidInput
from starmin.transform.hierarchy import Hierarchy

QI = "age,zip,sex"


def table(n: int = 240, seed: int = 5) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    zips = ["02138", "02139", "02141", "02142", "10001", "10002"]
    z = rng.integers(0, len(zips), n)
    return pl.DataFrame({  # ages go with zips, so a class by zip shares an age interval
        "id": range(n),
        "age": 20 + 8 * z + rng.integers(0, 8, n),
        "zip": [zips[i] for i in z],
        "sex": [("M", "F")[i] for i in rng.integers(0, 2, n)],
        "dis": [("flu", "hiv", "cold")[i] for i in rng.integers(0, 3, n)],
    })


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("h") / "people.csv"
    table().write_csv(p, separator=";")
    return p


@pytest.fixture(scope="module")
def zip_file(data: Path) -> Path:
    p = data.parent / "zip.csv"
    assert main(["-q", "hierarchy", "zip", "--from", str(data), "-o", str(p)]) == 0
    return p


def anonymize(data: Path, out: Path, *extra: str) -> int:
    return main(["-q", "anonymize", str(data), "--qi", QI, "--identifiers", "id", "--k", "4",
                 "--method", "m-approx", "-o", str(out), *extra])


def test_default_is_suppression_only_and_unchanged(data: Path, tmp_path: Path) -> None:
    plain, flat = tmp_path / "plain.csv", tmp_path / "flat.csv"
    assert anonymize(data, plain) == 0
    # a flat hierarchy given by hand is suppression too: the same bytes
    sex = tmp_path / "sex.csv"
    sex.write_text("M;*\nF;*\n")
    assert anonymize(data, flat, "--hierarchy", f"sex={sex}") == 0
    assert plain.read_bytes() == flat.read_bytes()
    report = json.loads(Path(f"{plain}.report.json").read_text())
    assert "cells" not in report["verification"]  # no hierarchy: no cell check


def test_starmin_hierarchy_writes_the_built_in(data: Path, zip_file: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert zip_file.read_text().splitlines() == [
        "02138;0213*;021**;*", "02139;0213*;021**;*", "02141;0214*;021**;*",
        "02142;0214*;021**;*", "10001;1000*;100**;*", "10002;1000*;100**;*"]
    assert main(["-q", "hierarchy", "age", "--from", str(data), "--kind", "flat"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "20;*"
    assert main(["-q", "hierarchy", "nope", "--from", str(data)]) == 2


def test_generalized_release_verifies_against_the_hierarchies(
        data: Path, zip_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "gen.csv"
    assert anonymize(data, out, "--hierarchy", f"zip={zip_file}", "--generalize") == 0
    rel = pl.read_csv(out, separator=";", infer_schema=False)
    assert rel["age"].str.contains("-").any()  # some ages released as an interval
    report = json.loads(Path(f"{out}.report.json").read_text())
    gen = report["certificate"]["generalization"]
    assert gen["generalized_cells"] > 0 and gen["stars"] < gen["stars_before"]
    assert report["verification"]["cells"]["violating_cells"] == 0
    assert report["verification"]["cells"]["generalized_cells"] == gen["generalized_cells"]
    # the same hierarchies written out let `starmin verify` check every cell
    age = tmp_path / "age.csv"
    assert main(["-q", "hierarchy", "age", "--from", str(data), "-o", str(age)]) == 0
    base = ["verify", str(out), "--qi", QI, "--k", "4", "--original", str(data)]
    assert main([*base, "--hierarchy", f"zip={zip_file}", "--hierarchy", f"age={age}"]) == 0
    assert main(base) == 1  # without the hierarchies a group label is a violation
    # --generalize alone builds the same hierarchies: the same release
    again = tmp_path / "again.csv"
    assert anonymize(data, again, "--generalize") == 0
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("02138;0213*;*\n02139;0213*;*\n", ("hierarchy for column 'zip'", "bad.csv",
                                            "has no row for 4 values", "'02141'", "add a line")),
        ("02138;0213*;*\n02138;0213*;*\n", ("'02138' appears on lines 1 and 2", "bad.csv",
                                            "keep exactly one line per value")),
        ("02138;0213*;*\n02139;0213*;+\n", ("'0213*' (level 1) has two parents", "line 1",
                                            "line 2", "bad.csv")),
        ("02138;0213*;*\n02139;*\n", ("line 2 of the hierarchy", "bad.csv", "has 2 fields",
                                      "line 1 has 3", "same number of levels")),
        ("02138;a;*\n02139;b;ALL\n", ("more than one top", "line 1 ends in '*'",
                                      "line 2 ends in 'ALL'", "bad.csv")),
    ],
)
def test_bad_hierarchy_files_are_one_clear_error(
        data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
        words: tuple[str, ...]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    out = tmp_path / "x.csv"
    assert anonymize(data, out, "--hierarchy", f"zip={bad}") == 2
    err = capsys.readouterr().err
    assert err.startswith("starmin: ") and err.count("\n") == 1
    for w in words:
        assert w in err, (w, err)
    assert not out.exists()


def test_flag_errors(data: Path, tmp_path: Path, zip_file: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.csv"
    assert anonymize(data, out, "--objective", "loss") == 2  # with --method m-approx
    assert ("method 'm-approx' minimizes stars only, not --objective loss: use a method that "
            "can (dgh-k-anonymity, dgh-p-sensitive, full-domain, recode), or --method auto"
            ) in capsys.readouterr().err
    assert anonymize(data, out, "--hierarchy", f"dis={zip_file}") == 2
    assert "column 'dis', which is not a quasi-identifier" in capsys.readouterr().err
    assert anonymize(data, out, "--hierarchy", f"zip={zip_file}", "--hierarchy",
                     f"zip={zip_file}") == 2
    assert "--hierarchy is given twice for column 'zip'" in capsys.readouterr().err
    assert not out.exists()


def test_info_shows_the_hierarchies(data: Path, zip_file: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-q", "info", str(data), "--qi", QI, "--k", "4", "--hierarchy",
                 f"zip={zip_file}"]) == 0
    text = capsys.readouterr().out
    assert f"zip                      6 values; hierarchy {zip_file}: height 3, 5 groups over " \
           "6 values" in text
    assert "age                      48 values\n" in text  # no hierarchy: suppression only


def test_python_argument(zip_file: Path) -> None:
    df = table()
    rel = starmin.anonymize(df, QI, identifiers="id", k=4, method="m-approx",
                            hierarchies={"zip": Hierarchy.read(zip_file, name="zip")})
    rel2 = starmin.anonymize(df, QI, identifiers="id", k=4, method="m-approx",
                             hierarchies={"zip": str(zip_file)})
    assert rel.frame.equals(rel2.frame)
    assert rel.verification.cells is not None and rel.verification.cells.passed
    assert rel.verification.cells.hierarchies == ("zip",)
    gen = starmin.anonymize(df, QI, identifiers="id", k=4, method="m-approx", generalize=True)
    assert gen.plan.certificate["generalization"]["generalized_cells"] > 0
    assert gen.verification.cells is not None and gen.verification.cells.hierarchies == (
        "age", "zip")
    with pytest.raises(InvalidInput, match="'m-approx' minimizes stars only, not "
                       "objective='loss'"):
        starmin.anonymize(df, QI, k=4, objective="loss", method="m-approx")
    with pytest.raises(InvalidInput, match="must map QI columns to hierarchy files"):
        starmin.anonymize(df, QI, k=4, hierarchies=["zip.csv"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="generalize='yes' must be True or False"):
        starmin.anonymize(df, QI, k=4, generalize="yes")  # type: ignore[arg-type]
