"""Where a release goes (issue 7, parts 1-2): every output problem is refused before any work
with one line and exit 2; the release and its report are written as a pair or not at all; Ctrl-C
and SIGTERM leave nothing behind; files get the umask's permissions; no traceback ever."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import starmin.api
from starmin.cli.main import main

QI = "sex,age,race,marital-status,education"


@pytest.fixture
def no_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the pipeline starts: output checks must come before any work."""
    def boom(*a: Any, **kw: Any) -> Any:
        raise AssertionError("anonymize ran although the output was bad")

    monkeypatch.setattr(starmin.api, "anonymize", boom)


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _run_bad(args: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    assert main(["-q", "anonymize", *args]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("starmin: ") and err.count("\n") == 1, err
    assert "Traceback" not in err + captured.out
    for w in words:
        assert w in err, (w, err)
    return err


@pytest.mark.parametrize(("name", "words"), [
    ("r.txt", ("'.txt'", ".csv", ".parquet")),
    ("r.json", ("'.json'", ".csv")),
    ("release", ("no suffix", ".csv")),
])
def test_unknown_suffix(census_csv: Path, tmp_path: Path, no_solve: None,
                        capsys: pytest.CaptureFixture[str], name: str,
                        words: tuple[str, ...]) -> None:
    before = _files(tmp_path)
    _run_bad([str(census_csv), "--qi", QI, "--k", "5", "-o", str(tmp_path / name)],
             capsys, *words)
    assert _files(tmp_path) == before


def test_output_is_a_folder(census_csv: Path, tmp_path: Path, no_solve: None,
                            capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "rel.csv"
    d.mkdir()
    _run_bad([str(census_csv), "--qi", QI, "--k", "5", "-o", str(d)], capsys,
             "is a folder", "file name")
    assert _files(tmp_path) == {"rel.csv"}


def test_report_path_is_a_folder(census_csv: Path, tmp_path: Path, no_solve: None,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "rel.csv.report.json").mkdir()
    _run_bad([str(census_csv), "--qi", QI, "--k", "5", "-o", str(tmp_path / "rel.csv")],
             capsys, "report", "is a folder")
    assert _files(tmp_path) == {"rel.csv.report.json"}


def test_unwritable_folder(census_csv: Path, tmp_path: Path, no_solve: None,
                           capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() == 0:  # root writes anywhere chmod allows: /proc refuses new files
        target = Path("/proc/starmin-test/rel.csv")
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked / "sub" / "rel.csv"
    _run_bad([str(census_csv), "--qi", QI, "--k", "5", "-o", str(target)], capsys,
             "cannot write to the folder", "-o")
    assert not target.parent.exists()


def test_parent_is_a_file(census_csv: Path, tmp_path: Path, no_solve: None,
                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("x")
    _run_bad([str(census_csv), "--qi", QI, "--k", "5", "-o", str(tmp_path / "f" / "r.csv")],
             capsys, "is a file")
    assert _files(tmp_path) == {"f"}


def test_nested_columns_to_csv(tmp_path: Path, no_solve: None,
                               capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.parquet"
    pl.DataFrame({"a": [1, 2] * 4, "tags": [[1], [2, 3]] * 4}).write_parquet(src)
    _run_bad([str(src), "--qi", "a", "--k", "2", "-o", str(tmp_path / "o.csv")], capsys,
             "'tags'", "CSV", ".parquet", "--identifiers tags")
    assert _files(tmp_path) == {"in.parquet"}


def test_nested_columns_to_parquet_are_kept(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pl.DataFrame({"a": [1, 2] * 4, "tags": [[1], [2, 3]] * 4}).write_parquet(src)
    out = tmp_path / "o.parquet"
    assert main(["-q", "anonymize", str(src), "--qi", "a", "--k", "2", "-o", str(out)]) == 0
    assert pl.read_parquet(out)["tags"].to_list() == [[1], [2, 3]] * 4


def test_input_identifiers_drop_nested_columns(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pl.DataFrame({"a": [1, 2] * 4, "tags": [[1], [2, 3]] * 4}).write_parquet(src)
    out = tmp_path / "o.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "a", "--k", "2", "--identifiers",
                 "tags", "-o", str(out)]) == 0
    assert pl.read_csv(out).columns == ["a"]


# ---- the pair ---------------------------------------------------------------------------------

def test_pair_written_with_umask_permissions(census_csv: Path, tmp_path: Path) -> None:
    for mask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
        out = tmp_path / f"m{mask:o}" / "rel.csv"
        old = os.umask(mask)
        try:
            assert main(["-q", "anonymize", str(census_csv), "--qi", "sex,age", "--k", "3",
                         "-o", str(out)]) == 0
        finally:
            os.umask(old)
        for p in (out, Path(f"{out}.report.json"), Path(f"{out}.report.html")):
            assert p.stat().st_mode & 0o777 == mode, (oct(mask), p)
        assert _files(out.parent) == {"rel.csv", "rel.csv.report.json",
                                      "rel.csv.report.html"}  # no temporaries


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_neither_file_when_a_rename_fails(census_csv: Path, tmp_path: Path, fail_at: int,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import starmin.io.output as output

    real = os.replace
    calls = {"n": 0}

    def flaky(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise PermissionError(13, "Permission denied", str(dst))
        real(src, dst)

    monkeypatch.setattr(output.os, "replace", flaky)
    out = tmp_path / "new" / "rel.csv"
    err = _run_bad([str(census_csv), "--qi", "sex,age", "--k", "3", "-o", str(out)], capsys,
                   "Permission denied")
    assert "rel.csv" in err
    assert _files(tmp_path) == set()  # the folder the run created is gone too


def test_report_failure_leaves_no_release(census_csv: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    def full(self: Path, *a: Any, **kw: Any) -> int:
        raise OSError(28, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    out = tmp_path / "rel.csv"
    _run_bad([str(census_csv), "--qi", "sex,age", "--k", "3", "-o", str(out)], capsys,
             "No space left on device")
    assert _files(tmp_path) == set()


def test_interrupt_while_writing(census_csv: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(self: pl.DataFrame, *a: Any, **kw: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pl.DataFrame, "write_csv", interrupted)
    out = tmp_path / "a" / "b" / "rel.csv"
    assert main(["-q", "anonymize", str(census_csv), "--qi", "sex,age", "--k", "3",
                 "-o", str(out)]) == 130
    assert capsys.readouterr().err == "starmin: interrupted\n"
    assert _files(tmp_path) == set()


def test_an_unexpected_error_is_one_line_exit_3(census_csv: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    def bug(*a: Any, **kw: Any) -> Any:
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(starmin.api, "anonymize", bug)
    monkeypatch.delenv("STARMIN_DEBUG", raising=False)
    assert main(["-q", "anonymize", str(census_csv), "--qi", "sex", "--k", "2",
                 "-o", str(tmp_path / "o.csv")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (RuntimeError: something broke)" in err
    assert "STARMIN_DEBUG=1" in err
    monkeypatch.setenv("STARMIN_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["-q", "anonymize", str(census_csv), "--qi", "sex", "--k", "2",
              "-o", str(tmp_path / "o.csv")])


def test_quiet_after_the_subcommand(census_csv: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rel.csv"
    assert main(["anonymize", str(census_csv), "--qi", "sex,age", "--k", "3", "-o", str(out),
                 "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["anonymize", str(census_csv), "--qi", "sex,age", "--k", "3", "-o",
                 str(tmp_path / "r2.csv")]) == 0
    assert "aggregated" in capsys.readouterr().err  # progress without -q


# ---- signals in a real process ----------------------------------------------------------------

@pytest.fixture(scope="module")
def big_csv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from starmin.datasets import synthetic_census

    p = tmp_path_factory.mktemp("big") / "big.csv"
    synthetic_census(200_000, seed=11).write_csv(p)
    yield p


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_mid_run_leaves_nothing(big_csv: Path, tmp_path: Path, sig: int) -> None:
    """Started for real, interrupted once the solve has begun: exit 130, the last line says
    "interrupted", no file and no folder appeared."""
    out = tmp_path / "o" / "rel.csv"
    proc = subprocess.Popen(
        [sys.executable, "-m", "starmin.cli.main", "anonymize", str(big_csv), "--qi",
         "sex,age,race,marital-status,education,native-country,workclass", "--k", "5",
         "-o", str(out)], stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stderr is not None
    lines = []
    try:
        for line in proc.stderr:  # progress lines; the solve starts after aggregation
            lines.append(line)
            if "aggregated" in line:
                proc.send_signal(sig)
                break
        rest = proc.stderr.read()
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    assert code == 130, (lines, rest)
    assert rest.strip().splitlines()[-1] == "starmin: interrupted"
    assert "Traceback" not in rest
    assert _files(tmp_path) == set()


@pytest.mark.parametrize("args", [["--k", "5"], ["--t", "0.3"], []])
def test_info_on_a_sample(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """info has no --l/--p flags: the sample's defaults must not look for them."""
    assert main(["-q", "info", "sample:census", *args]) == 0
    out = capsys.readouterr().out
    assert out.startswith("n = 10000 rows")
    assert ("occupation" in out) == (args != ["--k", "5"])  # the sensitive column when used


def test_verify_reads_a_pipe_separated_release_that_anonymize_wrote(tmp_path: Path) -> None:
    """The release keeps the input's separator; `starmin verify` reads it with the same sniffer
    (it used to know only ; , and tab, and called a `|` release's header one unknown column)."""
    src = tmp_path / "t.csv"
    src.write_text("age|zip|dis\n" + "".join(f"{20 + i % 4}|{'ab'[i % 2]}|{'xyz'[i % 3]}\n"
                                           for i in range(60)))
    out = tmp_path / "o.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "age,zip", "--sensitive", "dis",
                 "--k", "3", "-o", str(out)]) == 0
    assert out.read_text().splitlines()[0] == "age|zip|dis"
    assert main(["-q", "verify", str(out), "--qi", "age,zip", "--sensitive", "dis",
                 "--k", "3"]) == 0


def test_interrupt_surfacing_as_another_exception_is_still_an_interrupt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signal's KeyboardInterrupt raised inside a native callback can reach the CLI as
    another exception (seen once under load: SIGTERM mid-run gave no exit 130). Once a signal
    was noted, the run ends as interrupted, not as an internal error; the note is cleared."""
    import starmin.cli.main as cli

    def boom(*a: Any, **k: Any) -> Any:
        cli._SIGNALLED.append(signal.SIGTERM)
        raise RuntimeError("error in a solver callback")

    monkeypatch.setattr(starmin.api, "anonymize", boom)
    out = tmp_path / "r.csv"
    assert main(["anonymize", "sample:census", "--qi", "sex,age", "--k", "2",
                 "-o", str(out)]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "starmin: interrupted"
    assert not cli._SIGNALLED and not out.exists()

    def plain(*a: Any, **k: Any) -> Any:
        raise RuntimeError("error in a solver callback")

    monkeypatch.setattr(starmin.api, "anonymize", plain)
    assert main(["anonymize", "sample:census", "--qi", "sex,age", "--k", "2",
                 "-o", str(out)]) == 3  # without a signal the same error is internal


@pytest.mark.parametrize("quiet", [False, True])
def test_a_swallowed_interrupt_still_ends_the_run_before_anything_is_written(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        quiet: bool) -> None:
    """A signal whose ``KeyboardInterrupt`` Python swallowed ("Exception ignored in ...", seen
    once in a fresh-clone run: SIGINT right after aggregation, the run went on and wrote its
    files, exit 0) still ends the run: the next progress line, or at the latest the moment
    before writing, raises it; exit 130, no file."""
    import starmin.cli.main as cli

    real = starmin.api.anonymize

    def swallowed(*a: Any, **k: Any) -> Any:
        cli._SIGNALLED.append(signal.SIGINT)  # the handler ran; its exception got lost
        return real(*a, **k)

    monkeypatch.setattr(starmin.api, "anonymize", swallowed)
    out = tmp_path / "o" / "r.csv"
    args = ["anonymize", "sample:census", "--qi", "sex,age", "--k", "2", "-o", str(out)]
    assert main(["-q", *args] if quiet else args) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "starmin: interrupted"
    assert not cli._SIGNALLED and _files(tmp_path) == set()
    monkeypatch.setattr(starmin.api, "anonymize", real)
    assert main(["-q", *args]) == 0 and out.exists()


def test_solver_chatter_stays_off_stdout(census_csv: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch,
                                         capfd: pytest.CaptureFixture[str]) -> None:
    """stdout holds the summary only: what a native solver prints to descriptor 1 while the
    release is computed (SciPy's HiGHS has a debug ``printf`` on a rare MILP path) goes to
    stderr, C-buffered or not, and stdout works again for the summary."""
    import ctypes

    real = starmin.api.anonymize

    def chatty(*a: Any, **kw: Any) -> Any:
        ctypes.CDLL(None).printf(b"native chatter\n")  # C stdio, buffered
        os.write(1, b"raw chatter\n")
        print("python chatter")
        return real(*a, **kw)

    monkeypatch.setattr(starmin.api, "anonymize", chatty)
    out = tmp_path / "r.csv"
    assert main(["-q", "anonymize", str(census_csv), "--qi", QI, "--k", "2",
                 "-o", str(out)]) == 0
    captured = capfd.readouterr()
    for line in ("native chatter", "raw chatter", "python chatter"):
        assert line not in captured.out
    assert "stars" in captured.out and str(out) in captured.out  # the summary
    for line in ("native chatter", "raw chatter", "python chatter"):
        assert line in captured.err
