"""The command line: the main job, verify's exit codes, info, and bad input (exit 2, nothing
written)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl
import pytest

from starmin.cli.main import main

QI = "sex,age,race,marital-status,education"


def test_main_job_on_bundled_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "census-k5.csv"
    assert main(["anonymize", "sample:census", "--k", "5", "-o", str(out)]) == 0
    report = json.loads(Path(f"{out}.report.json").read_text())
    for key in ("stars", "suppressed_records", "lower_bound", "method", "guarantee", "verified"):
        assert key in report
    assert report["verified"] is True
    assert report["stars"] >= report["lower_bound"] > 0
    printed = capsys.readouterr().out
    assert f"{report['stars']} (" in printed and "verified   yes" in printed
    released = pl.read_csv(out)
    assert released.height == 10_000
    # the verifier CLI agrees: 5-anonymous (exit 0), not 10000-anonymous (exit 1)
    qi = ",".join(report["input"]["qi"])
    assert main(["verify", str(out), "--qi", qi, "--k", "5"]) == 0
    assert main(["verify", str(out), "--qi", qi, "--k", "10000"]) == 1


def test_anonymize_csv_keeps_separator_and_does_not_touch_input(
        census_csv: Path, tmp_path: Path) -> None:
    before = hashlib.sha256(census_csv.read_bytes()).hexdigest()
    out = tmp_path / "rel.csv"
    code = main(["-q", "anonymize", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                 "--l", "2", "-o", str(out)])
    assert code == 0
    assert hashlib.sha256(census_csv.read_bytes()).hexdigest() == before
    assert out.read_text().splitlines()[0].count(";") == 8
    assert main(["verify", str(out), "--qi", QI, "--sensitive", "occupation", "--l", "2"]) == 0
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert report["guarantee"]["kind"] in {"exact", "fpt", "ratio", "bound", "heuristic"}
    assert report["guarantee"]["statement"]


def test_parquet_output(census_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "rel.parquet"
    assert main(["-q", "anonymize", str(census_csv), "--qi", "sex,age", "--k", "3",
                 "-o", str(out)]) == 0
    assert pl.read_parquet(out).height == 3000


def test_info(census_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--k", "2", "--k", "5"]) == 0
    text = capsys.readouterr().out
    assert "n = 3000 rows, m = 5 QIs" in text and "k = 5: optimum >=" in text


def test_info_t_closeness_bound(census_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                 "--k", "2", "--t", "0.2"]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("t = 0.2")]
    assert line and int(line[0].split(">=")[1].split()[0]) > 0
    floor = int(line[0].split("holds >=")[1].split()[0])  # the fewest rows of a close class
    assert floor > 1
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--t", "0.2"]) == 2
    assert "--t needs a sensitive column" in capsys.readouterr().err
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                 "--t", "1.5"]) == 2


def test_info_l_diversity_bounds(census_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``info --l``: one line per l with the diversity bounds; the frequency line carries the
    charge LP, a larger l never a smaller bound, distinct never above frequency."""
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                 "--k", "2", "--l", "2", "--l", "3"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("l = ")]
    assert len(lines) == 2 and "(2-diversity)" in lines[0] and "l_charges" in lines[0]
    freq = [int(x.split(">=")[1].split()[0]) for x in lines]
    assert 0 < freq[0] <= freq[1]
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                 "--k", "2", "--l", "3", "--l-kind", "distinct"]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("l = 3")]
    assert line and "distinct 3-diversity" in line[0]
    assert 0 < int(line[0].split(">=")[1].split()[0]) <= freq[1]
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--l", "2"]) == 2
    assert "--l needs a sensitive column" in capsys.readouterr().err
    assert main(["-q", "info", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                 "--l", "3", "--l-kind", "recursive"]) == 2
    assert "--c" in capsys.readouterr().err


def test_info_says_infeasible_l(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An l no release satisfies gets "infeasible" and the reason, not a bound (it printed
    bounds above the table's number of QI cells)."""
    src = tmp_path / "t.csv"
    src.write_text("q,s\n" + "".join(f"{i % 3},{v}\n" for i, v in
                                       enumerate(["flu"] * 3 + ["cold"] * 3 + ["hiv"] * 2)))
    for kind in ("frequency", "distinct", "entropy"):
        assert main(["-q", "info", str(src), "--qi", "q", "--sensitive", "s", "--k", "2",
                     "--l", "2", "--l", "4", "--l-kind", kind]) == 0
        lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("l = ")]
        assert len(lines) == 2 and ">=" in lines[0]
        assert "infeasible" in lines[1] and "only 3 distinct values" in lines[1]
    assert main(["-q", "info", str(src), "--qi", "q", "--sensitive", "s", "--k", "2",
                 "--l", "3"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("l = 3") and "infeasible" in line and "3/8 > 1/3" in line


def test_help_states_guarantees(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["anonymize", "--help"])
    text = capsys.readouterr().out
    for word in ("brute-force", "exact", "m-approx", "ratio", "heuristic"):
        assert word in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--qi", "sex,nope", "--k", "2"], "unknown column 'nope'"),
        (["--qi", "sex,sex", "--k", "2"], "twice"),
        (["--qi", "sex", "--sensitive", "sex", "--l", "2"], "as quasi-identifier and as sens"),
        (["--qi", "sex", "--k", "999999"], "larger than the table"),
        (["--qi", "sex", "--sensitive", "occupation", "--t", "1.5"], "t must be"),
        (["--qi", "sex", "--sensitive", "sex-of", "--k", "2"], "unknown column"),
        (["--qi", "sex", "--sensitive", "salary-class", "--l", "5"], "l"),
        (["--qi", "sex", "--sensitive", "salary-class", "--l", "2"], "no l-diverse release"),
        (["--qi", "sex"], "no privacy model"),
    ],
)
def test_bad_input_exit_2_and_nothing_written(
        census_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        args: list[str], message: str) -> None:
    out = tmp_path / "x.csv"
    assert main(["-q", "anonymize", str(census_csv), *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("starmin: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_bad_hierarchy_and_metric(census_csv: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    h = tmp_path / "h.csv"
    h.write_text("<=50K;*\n")  # '>50K' is missing
    code = main(["-q", "anonymize", str(census_csv), "--qi", "sex", "--sensitive",
                 "salary-class", "--t", "0.3", "--distance", "hierarchical", "--sa-hierarchy",
                 str(h), "-o", str(tmp_path / "o.csv")])
    assert code == 2 and ">50K" in capsys.readouterr().err
    d = tmp_path / "d.csv"
    d.write_text("0,1\n0.5,0\n")  # not symmetric
    code = main(["-q", "anonymize", str(census_csv), "--qi", "sex", "--sensitive",
                 "salary-class", "--t", "0.3", "--distance", "matrix", "--distance-matrix",
                 str(d), "-o", str(tmp_path / "o.csv")])
    assert code == 2 and "symmetric" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_verify_bad_input_exit_2(census_csv: Path) -> None:
    assert main(["verify", str(census_csv), "--qi", "nope", "--k", "2"]) == 2


def test_release_failing_verification_is_not_written(
        census_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A wrong algorithm (here: one that releases every row unchanged) is caught by the
    independent verifier; nothing is written and the exit status is 1."""
    import numpy as np

    from starmin.algorithms import registry
    from starmin.algorithms.base import Algorithm, fixed_work
    from starmin.transform.plan import Guarantee, ReleasePlan

    def identity(rt, model, **_):  # type: ignore[no-untyped-def]
        ti, ki = np.nonzero(rt.counts)
        return ReleasePlan(rt.codes, ti, ti, ki, rt.counts[ti, ki], "broken",
                           Guarantee("heuristic", "claims anything"))

    broken = Algorithm("broken", "releases the input", Guarantee("heuristic", "none"),
                       identity, lambda model, rt: None, auto=fixed_work(lambda m, rt: 0.0))
    # the only algorithm, so --method auto's portfolio releases its plan
    monkeypatch.setattr(registry, "algorithms", lambda: {"broken": broken})
    out = tmp_path / "x.csv"
    code = main(["-q", "anonymize", str(census_csv), "--qi", QI, "--k", "5", "-o", str(out)])
    assert code == 1
    assert "failed independent verification" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_verify_compares_csv_values_as_written(tmp_path: Path) -> None:
    # "02138" and "2138" are different released values: two classes of sizes 2 and 1
    p = tmp_path / "rel.csv"
    p.write_text("zip,s\n02138,x\n2138,y\n02138,x\n")
    assert main(["-q", "verify", str(p), "--qi", "zip", "--k", "2"]) == 1
    assert main(["-q", "verify", str(p), "--qi", "zip", "--k", "1"]) == 0


def test_verify_refuses_a_repeated_header(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "rel.csv"
    p.write_text("a,a,s\n1,2,x\n")
    assert main(["-q", "verify", str(p), "--qi", "a", "--k", "1"]) == 2
    assert "two columns named 'a'" in capsys.readouterr().err


def test_anonymize_never_overwrites_its_input(census_csv: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.csv"
    src.write_bytes(census_csv.read_bytes())
    before = src.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(src)
    for out in (src, tmp_path / "x" / ".." / "in.csv", link):
        assert main(["-q", "anonymize", str(src), "--qi", "sex,age", "--k", "3",
                     "-o", str(out)]) == 2
        assert "is the input file" in capsys.readouterr().err
    assert src.read_bytes() == before
    assert not (tmp_path / "in.csv.report.json").exists()


def test_infeasible_model_names_the_sensitive_column(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.csv"
    p.write_text("q,a,b\n" + "".join(f"{i % 3},{i % 4},{'u' if i % 5 else 'v'}\n"
                                     for i in range(40)))
    assert main(["-q", "anonymize", str(p), "--qi", "q", "--sensitive", "a,b", "--l", "2",
                 "-o", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "sensitive column 'b'" in err and "no l-diverse release exists" in err


def test_auto_prints_each_method_it_ran_and_repeats_its_release(
        census_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--method auto (the default): one progress line per method run, with its stars; the
    report lists them; the same command gives the same release bytes and portfolio."""
    runs = []
    for name in ("a.csv", "b.csv"):
        out = tmp_path / name
        assert main(["anonymize", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                     "--l", "2", "-o", str(out)]) == 0
        err = capsys.readouterr().err
        report = json.loads(Path(f"{out}.report.json").read_text())
        runs.append((out.read_bytes(), report))
        ran = [t for t in report["portfolio"] if t["status"] in ("released", "tried")]
        assert len(ran) >= 2 and report["stars"] == min(t["stars"] for t in ran)
        for t in ran:
            assert f"auto: {t['method']} ({t['guarantee']}" in err
            assert f"{t['stars']:,} stars" in err
    (a, ra), (b, rb) = runs
    assert a == b and ra["certificate"] == rb["certificate"]
    strip = [[{k: v for k, v in t.items() if k != "seconds"} for t in r["portfolio"]]
             for r in (ra, rb)]
    assert strip[0] == strip[1]
    # a named method runs alone
    out = tmp_path / "named.csv"
    assert main(["-q", "anonymize", str(census_csv), "--qi", QI, "--sensitive", "occupation",
                 "--l", "2", "--method", "tp+", "-o", str(out)]) == 0
    named = json.loads(Path(f"{out}.report.json").read_text())
    assert named["method"] == "tp+" and named["portfolio"] is None


@pytest.mark.parametrize(("k", "code"), [(1000, 0), (1001, 1)])
def test_verify_program_flushes_its_verdict_before_it_exits(tmp_path: Path, k: int,
                                                            code: int) -> None:
    # run as a program, `starmin verify` ends without Python's shutdown: the whole verdict
    # must still reach a pipe, with the exit status
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered stdout
    path = tmp_path / "t.csv"
    path.write_text("a,s\n" + "x,1\nx,2\ny,1\ny,2\n" * 500)
    proc = subprocess.run([sys.executable, "-m", "starmin.cli.main", "verify", str(path),
                           "--qi", "a", "--sensitive", "s", "--k", str(k), "--json"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == code, proc.stderr
    verdict = json.loads(proc.stdout)
    assert verdict["passed"] is (code == 0) and verdict["n"] == 2000
    assert proc.stderr == ""


def test_anonymize_program_writes_everything_before_it_exits(tmp_path: Path) -> None:
    # run as a program, `starmin anonymize` (local engine) ends without Python's shutdown:
    # the summary must still reach a pipe, every file must be complete, the status 0
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered stdout
    path = tmp_path / "t.csv"
    rows = [f"{a},{z},{s}" for a in range(30) for z in range(4) for s in range(3)]
    path.write_text("age,zip,s\n" + "\n".join(rows * 5) + "\n")
    out = tmp_path / "rel.csv"
    proc = subprocess.run([sys.executable, "-m", "starmin.cli.main", "anonymize", str(path),
                           "--qi", "age,zip", "--sensitive", "s", "--k", "5", "--l", "2",
                           "-q", "-o", str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert report["verified"] is True
    assert "verified   yes" in proc.stdout and proc.stdout.rstrip().endswith(
        f"{out}.report.html")
    assert pl.read_csv(out).height == len(rows) * 5
    assert Path(f"{out}.report.html").read_text().rstrip().endswith("</html>")
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temps


def test_methods_list_keeps_names_and_statements_apart(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """Every method's name is followed by a space, however long the name
    ('two-diversity-simplex' once ran into its statement)."""
    from starmin.algorithms import registry

    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    for name, a in registry.algorithms().items():
        assert f"  {name} " in out and f"{name}{a.guarantee.kind}:" not in out, name
