"""``starmin anonymize --attributes``: whole QI columns suppressed, the fewest possible."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from starmin.cli.main import main


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """24 rows: (sex, band) pairs each 6 times, zip unique per row: 6-anonymity needs zip
    suppressed and nothing else; 7-anonymity needs band suppressed too (sex: 12 + 12)."""
    p = tmp_path / "t.csv"
    rows = [f"{10000 + i},{'fm'[i % 2]},{'ab'[(i // 2) % 2]},{'xyz'[i % 3]}" for i in range(24)]
    p.write_text("zip,sex,band,disease\n" + "\n".join(rows) + "\n")
    return p


def test_attributes_releases_the_fewest_whole_columns(
        table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "r.csv"
    code = main(["-q", "anonymize", str(table), "--qi", "zip,sex,band", "--sensitive",
                 "disease", "--k", "6", "--attributes", "-o", str(out)])
    assert code == 0
    released = pl.read_csv(out, infer_schema_length=0)
    assert released["zip"].unique().to_list() == ["*"]
    assert sorted(released["sex"].unique().to_list()) == ["f", "m"]
    assert released["disease"].to_list() == pl.read_csv(table)["disease"].to_list()
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert report["method"] == "attributes" and report["verified"] is True
    assert report["certificate"]["suppressed_columns"] == ["zip"]
    assert report["certificate"]["optimal"] is True
    assert report["stars"] == 24
    printed = " ".join(capsys.readouterr().out.split())  # the summary wraps long lines
    assert "1 of 3 (zip)" in printed and "optimal in the number of columns" in printed
    assert main(["-q", "verify", str(out), "--qi", "zip,sex,band", "--k", "6"]) == 0
    assert main(["-q", "verify", str(out), "--qi", "zip,sex,band", "--k", "7"]) == 1


def test_attributes_with_another_model(table: Path, tmp_path: Path) -> None:
    out = tmp_path / "r7.csv"
    assert main(["-q", "anonymize", str(table), "--qi", "zip,sex,band", "--k", "7",
                 "--attributes", "-o", str(out)]) == 0
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert report["certificate"]["suppressed_columns"] == ["zip", "band"]
    out = tmp_path / "rl.csv"
    assert main(["-q", "anonymize", str(table), "--qi", "zip,sex,band", "--sensitive",
                 "disease", "--l", "3", "--attributes", "-o", str(out)]) == 0
    assert main(["-q", "verify", str(out), "--qi", "zip,sex,band", "--sensitive", "disease",
                 "--l", "3"]) == 0


def test_attributes_refuses_a_method_and_infeasible_models(
        table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bad.csv"
    code = main(["-q", "anonymize", str(table), "--qi", "zip,sex", "--k", "2",
                 "--attributes", "--method", "m-approx", "-o", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert "--attributes" in err and "--method m-approx" in err and "Traceback" not in err
    assert main(["-q", "anonymize", str(table), "--qi", "zip,sex", "--k", "25",
                 "--attributes", "-o", str(out)]) == 2
    assert not out.exists() and not Path(f"{out}.report.json").exists()


def test_help_mentions_attributes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["anonymize", "--help"])
    assert "--attributes" in capsys.readouterr().out
