"""``starmin generate``: the table and its optimum JSON, same arguments same bytes, anonymize
reaches the recorded optimum, bad input (exit 2, nothing written), --help without solvers."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from starmin.cli.main import main


def test_generate_then_anonymize_reaches_the_optimum(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x6.csv"
    argv = ["generate", "xiao-lemma3", "--size", "3", "--seed", "4", "-o", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "optimum 45 stars (exact)" in printed  # 3n(d - 1) = 3 * 3 * 5
    meta = json.loads(Path(f"{out}.optimum.json").read_text(encoding="utf-8"))
    assert meta["family"] == "xiao-lemma3" and meta["seed"] == 4 and meta["planted"] is True
    assert meta["model"] == {"l": 3} and meta["sensitive"] == ["B"]
    assert meta["optimum"]["stars"] == 45 and meta["optimum"]["status"] == "exact"
    assert "Lemma 3" in meta["reference"]
    # the printed command releases the table; brute force reaches the recorded optimum
    command = printed.split("release it with: starmin ")[1].strip()
    rel = tmp_path / "rel.csv"
    assert main([*shlex.split(command), "--method", "brute-force", "-o", str(rel), "-q"]) == 0
    report = json.loads(Path(f"{rel}.report.json").read_text())
    assert report["stars"] == 45
    # same arguments, same bytes
    first = out.read_bytes(), Path(f"{out}.optimum.json").read_bytes()
    assert main(argv) == 0
    assert (out.read_bytes(), Path(f"{out}.optimum.json").read_bytes()) == first


def test_generate_matrix_distance_writes_three_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t7.csv"
    assert main(["generate", "liang-yuan-thm7", "--size", "1", "--t", "0.45", "-o",
                 str(out)]) == 0
    assert Path(f"{out}.distance.csv").read_text() == \
        "0,1,1,0.5\n1,0,1,0.5\n1,1,0,0.5\n0.5,0.5,0.5,0\n"
    meta = json.loads(Path(f"{out}.optimum.json").read_text(encoding="utf-8"))
    assert meta["rows"] == 30  # 3n / (1 - 2t)
    assert meta["anonymize_flags"].endswith(
        f"--t 0.45 --distance matrix --distance-matrix {out}.distance.csv")
    command = capsys.readouterr().out.split("release it with: starmin ")[1].strip()
    rel = tmp_path / "rel.csv"
    assert main([*shlex.split(command), "-q", "-o", str(rel)]) == 0
    assert main(["verify", str(rel), *shlex.split(meta["anonymize_flags"])]) == 0


def test_generate_unplanted_says_unknown(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mw.csv"
    assert main(["generate", "meyerson-williams-thm3.1", "--size", "7", "--edges", "6",
                 "--no-plant", "--model", "l-diversity", "-o", str(out)]) == 0
    assert "optimum unknown (>= 35 stars)" in capsys.readouterr().out  # n(m - 1), m = 6
    meta = json.loads(Path(f"{out}.optimum.json").read_text(encoding="utf-8"))
    assert meta["optimum"]["stars"] == "unknown" and meta["witness"] is None
    assert meta["model"] == {"l": 3} and meta["parameters"]["model"] == "l-diversity"


@pytest.mark.parametrize(("argv", "message"), [
    (["liang-yuan-thm8", "--size", "4"], "unknown family 'liang-yuan-thm8'"),
    (["liang-yuan-thm6", "--size", "4", "--k", "3"], "--k 3: not a parameter of "
     "liang-yuan-thm6 (it takes --edges, --t)"),
    (["liang-yuan-thm6", "--size", "4", "--t", "0.5"], "--t 0.5 is out of range"),
    (["liang-yuan-thm3", "--size", "8", "--density", "0.2"], "--density 0.2: liang-yuan-thm3 "
     "uses it only with --no-plant"),
    (["liang-yuan-thm3", "--size", "8", "--model", "x"], "--model x is out of range"),
    (["bredereck-prop1", "--size", "6"], "--size 6 is out of range"),
])
def test_generate_bad_input_exit_2_nothing_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        message: str) -> None:
    out = tmp_path / "x.csv"
    assert main(["generate", *argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("starmin: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_generate_refuses_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "liang-yuan-thm3", "--size", "4", "-o",
                 str(tmp_path / "x.parquet")]) == 2
    assert "written as CSV" in capsys.readouterr().err


def test_generate_help_lists_families_and_loads_no_solver() -> None:
    code = ("import json, sys\nfrom starmin.cli.main import main\ntry:\n"
            "    main(['generate', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    top = {m.partition(".")[0] for m in json.loads(out.stderr.strip().splitlines()[-1])}
    assert not top & {"scipy", "ortools"}  # (starmin.datasets itself loads polars)
    for name in ("liang-yuan-thm3", "liang-yuan-thm7", "xiao-lemma3",
                 "meyerson-williams-thm3.2", "bredereck-thm1"):
        assert name in out.stdout
