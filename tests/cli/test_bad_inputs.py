"""Bad input on the command line: one line ``starmin: <problem> ... <fix>`` on stderr, exit 2,
no traceback, nothing written; the file and the line are named where known. Every class runs
through ``anonymize``, ``verify`` and ``info`` (``verify`` has its own reader)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from starmin.cli.main import main

GOOD = b"a,b,c\n1,x,p\n2,y,q\n3,z,r\n1,x,q\n"

# name -> (file name, bytes, words the message must hold); "{path}" is the file's path
BAD_FILES: dict[str, tuple[str, bytes | None, tuple[str, ...]]] = {
    "missing": ("nope.csv", None, ("{path}", "does not exist")),
    "directory": ("folder.csv", None, ("{path}", "is a directory")),
    "empty": ("empty.csv", b"", ("{path}", "is empty")),
    "blank lines only": ("blank.csv", b"\n\n  \n", ("{path}", "is empty")),
    "too many fields": ("many.csv", b"a,b,c\n1,x,p\n2,y,q,EXTRA\n3,z,r\n",
                        ("{path} line 3", "4 fields", "header has 3")),
    "too few fields": ("few.csv", b"a,b,c\n1,x,p\n2,y,q\n3,z\n",
                       ("{path} line 4", "2 fields", "header has 3")),
    "too few after a quoted newline": ("qfew.csv", b'a,b,c\n1,"x\ny",p\n2,y\n',
                                       ("{path} line 4", "2 fields")),
    "too few beside a quoted separator": ("qsep.csv", b'a,b,c\n1,"x,1",p\n2,"y,q"\n',
                                          ("{path} line 3", "2 fields")),
    "too many fields on the first record": ("first.csv", b"a,b,c\n1,x,p,4\n2,y,q\n",
                                            ("{path} line 2", "4 fields")),
    "unclosed quote in the last field": ("lastq.csv", b'a,b,c\n1,x,"p\n2,y,q\n',
                                         ("{path} line 2", "never closed")),
    "unclosed quote": ("quote.csv", b'a,b,c\n1,x,p\n2,"y,q\n3,z,r\n',
                       ("{path} line 3", "quote", "never closed")),
    "latin-1": ("latin.csv", b"a,b,c\n1,x,p\n2,\xe9t\xe9,q\n", ("{path} line 3", "UTF-8")),
    "binary": ("bin.csv", b"\x7fELF\x02\x01\x01\x00\x00\x00" * 20, ("{path}", "binary")),
    "gzip": ("zipped.csv", b"\x1f\x8b\x08\x00" + b"\x00" * 20, ("{path}",)),
    "utf-16": ("wide.csv", "a,b,c\n1,x,p\n".encode("utf-16"), ("{path}", "UTF-",)),
    "parquet named csv": ("real.csv", b"PAR1" + b"\x00" * 20, ("{path}", "Parquet")),
    "csv named parquet": ("fake.parquet", GOOD, ("{path}", "not a Parquet file")),
    "damaged parquet": ("broken.parquet", b"PAR1" + b"\x00" * 40, ("{path}", "Parquet")),
    "duplicate header": ("dup.csv", b"a,b,a\n1,x,p\n", ("{path}", "two columns named 'a'")),
}


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run the CLI in an empty folder; return (exit code, stderr) after checking that stderr
    is one ``starmin:`` line without a traceback and that no file or folder appeared."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def go(*argv: str, inputs: tuple[Path, ...] = ()) -> tuple[int, str]:
        before = sorted(p.name for p in work.iterdir())
        try:
            code = main(["-q", *argv])
        except SystemExit as exc:  # argparse's errors exit (through Parser.error: one line)
            code = int(exc.code or 0)
        err = capsys.readouterr().err
        assert err.startswith("starmin: ") and err.count("\n") == 1, err
        assert "Traceback" not in err
        assert sorted(p.name for p in work.iterdir()) == before, "a file appeared"
        return code, err.strip()

    return go


def _make(work: Path, name: str, data: bytes | None) -> Path:
    path = work / name
    if name == "folder.csv":
        path.mkdir()
    elif data is not None:
        path.write_bytes(data)
    return path


@pytest.mark.parametrize("command", ["anonymize", "verify", "info"])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file(run, tmp_path: Path, command: str, case: str) -> None:  # type: ignore[no-untyped-def]
    name, data, words = BAD_FILES[case]
    path = _make(tmp_path / "work", name, data)
    extra = ["-o", str(tmp_path / "work" / "out" / "r.csv")] if command == "anonymize" else []
    model = ["--k", "2"] if command != "info" else []
    code, err = run(command, str(path), "--qi", "a,b", *model, *extra)
    assert code == 2
    for w in words:
        assert w.format(path=path) in err, err


@pytest.mark.parametrize("command", ["anonymize", "verify"])
def test_blank_lines_are_skipped(run, tmp_path: Path, command: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "blank.csv"
    path.write_bytes(b"a,b\n\n1,x\n,\n\n1,x\n,\n\n\n")  # two (1, x), two missing, four blank
    out = tmp_path / "r.csv"
    extra = ["-o", str(out)] if command == "anonymize" else []
    assert main(["-q", command, str(path), "--qi", "a,b", "--k", "2", *extra]) == 0
    if command == "anonymize":
        assert pl.read_csv(out).height == 4


def test_quoted_values_read_as_written(tmp_path: Path) -> None:
    from starmin.io.tables import read_table
    from starmin.verifier._input import read

    path = tmp_path / "quoted.csv"
    path.write_bytes(b'a,b,c\n1,"x,1",p\n2,"y ""q"", r",q\n3,"z\nw",r\n')
    want = [("x,1", "p"), ('y "q", r', "q"), ("z\nw", "r")]
    assert read_table(path).select("b", "c").rows() == want
    assert read(path, ()).select("b", "c").rows() == want


def _parquet_with(tmp_path: Path, column: pl.Series) -> Path:
    path = tmp_path / "nested.parquet"
    pl.DataFrame({"q": column, "s": ["x", "y"] * 3, "o": [1] * 6}).write_parquet(path)
    return path


@pytest.mark.parametrize("command", ["anonymize", "verify", "info"])
@pytest.mark.parametrize(("column", "word"), [
    (pl.Series([[1], [2]] * 3), "nested"),
    (pl.Series([{"a": 1}, {"a": 2}] * 3), "nested"),
    (pl.Series([b"x", b"y"] * 3), "bytes"),
])
@pytest.mark.parametrize("role", ["--qi", "--sensitive"])
def test_nested_or_binary_column(run, tmp_path: Path, command: str, column: pl.Series,
                                 word: str, role: str) -> None:  # type: ignore[no-untyped-def]
    path = _parquet_with(tmp_path, column)
    roles = ["--qi", "q"] if role == "--qi" else ["--qi", "o", "--sensitive", "q"]
    # a Parquet release could hold such a column: the refusal is the input check's
    model = {"anonymize": ["--k", "2", "-o", str(tmp_path / "work" / "r.parquet")],
             "verify": ["--k", "2"], "info": []}[command]
    code, err = run(command, str(path), *roles, *model)
    assert code == 2
    assert "column 'q'" in err and word in err


@pytest.mark.parametrize(("args", "words"), [
    (["--qi", "a", "--k", "0"], ("--k 0", "--k 5")),
    (["--qi", "a", "--k", "2.5"], ("--k", "2.5")),
    (["--qi", "a", "--k", "99"], ("--k 99", "larger than the table", "--k 4")),
    (["--qi", "a", "--l", "2"], ("sensitive column", "none was given", "--sensitive COLUMN")),
    (["--qi", "a", "--sensitive", "c", "--t", "-0.1"], ("--t -0.1", "--t 0.2")),
    (["--qi", "a", "--sensitive", "c", "--t", "1.5"], ("--t 1.5",)),
    (["--qi", "a", "--sensitive", "c", "--t", "nan"], ("--t nan",)),
    (["--qi", "a", "--sensitive", "c", "--t", "inf"], ("--t inf",)),
    (["--qi", "a", "--sensitive", "c", "--l", "-2"], ("--l -2",)),
    (["--qi", "a", "--sensitive", "c", "--l", "nan"], ("--l nan",)),
    (["--qi", "a", "--sensitive", "c", "--l", "2", "--c", "-1", "--l-kind", "recursive"],
     ("--c -1",)),
    (["--qi", "a", "--sensitive", "c", "--l", "2", "--c", "3"], ("--c 3", "--l-kind recursive")),
    (["--qi", "a", "--sensitive", "c", "--l", "2", "--l-kind", "recursive"], ("--c",)),
    (["--qi", "a", "--sensitive", "c", "--p", "2"], ("--p 2", "--k")),
    (["--qi", "a", "--sensitive", "c", "--t", "0.2", "--distance", "hierarchical"],
     ("--sa-hierarchy FILE",)),
    (["--qi", "a", "--sensitive", "c", "--t", "0.2", "--distance", "matrix"],
     ("--distance-matrix FILE",)),
    (["--qi", "a", "--k", "2", "--sa-hierarchy", "h.csv"], ("--sa-hierarchy", "hierarchical")),
    (["--qi", "a", "--k", "2", "--distance", "ordered"], ("--distance ordered", "--t")),
    (["--qi", "a", "--k", "2", "--distance", "nope"], ("--distance", "nope")),
    (["--qi", "", "--k", "2"], ("--qi",)),
    (["--qi", "a,a", "--k", "2"], ("'a'", "twice", "--qi")),
    (["--qi", "a", "--sensitive", "a", "--l", "2"], ("'a'", "quasi-identifier and as sensitive")),
    (["--qi", "A", "--k", "2"], ("unknown column 'A'", "did you mean 'a'")),
    (["--qi", "zzz", "--k", "2"], ("unknown column 'zzz'", "a, b, c")),
    (["--qi", "a", "--k", "2", "--method", "brute-forse"], ("--method brute-forse",
                                                            "'brute-force'")),
    (["--qi", "a", "--k", "2", "--seed", "x"], ("--seed", "'x'")),
    (["--qi", "a", "--k", "2", "--seed", "-1"], ("--seed -1",)),
    (["--qi", "a", "--k", "2", "--bogus"], ("--bogus",)),
    (["--qi", "a", "--k", "2", "--option", "start"], ("--option 'start'", "NAME=VALUE")),
    (["--qi", "a", "--k", "2", "--option", "=3"], ("NAME=VALUE",)),
    (["--qi", "a", "--k", "2", "--option", "start=levels"], ("['start']", "--method NAME")),
    (["--qi", "a", "--k", "2", "--option", "budget=-1"], ("budget=-1", "budget=16")),
    (["--qi", "a", "--k", "2", "--option", "budget=lots"], ("budget='lots'",)),
    (["--qi", "a", "--k", "2", "--option", "seed=3"], ("--seed",)),
    (["--qi", "a", "--k", "2", "--method", "merge-repair", "--option", "donors=1",
      "--option", "donors=2"], ("donors", "twice")),
    (["--qi", "a", "--k", "2", "--method", "merge-repair", "--option", "donnors=4"],
     ("donnors", "merge-repair", "donors")),
    (["--qi", "a", "--k", "2", "--method", "merge-repair", "--option", "donors=many"],
     ("merge-repair", "donors must be a whole number", "got 'many'", "donors=32")),
    (["--qi", "a", "--k", "2", "--method", "m-approx", "--option", "refine=no"],
     ("m-approx", "refine must be true or false", "got 'no'")),
    (["--qi", "a", "--sensitive", "c", "--l", "2", "--method", "tp", "--option",
      "cut=buckets"], ("cut", "tp", "takes none")),
    (["--qi", "a", "--k", "2", "--attributes", "--option", "x=1"], ("--attributes",)),
    (["--qi", "a"], ("no privacy model",)),
])
def test_bad_parameter(run, tmp_path: Path, args: list[str], words: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "good.csv"
    path.write_bytes(GOOD)
    code, err = run("anonymize", str(path), *args, "-o", str(tmp_path / "work" / "out" / "r.csv"))
    assert code == 2
    for w in words:
        assert w in err, err


@pytest.mark.parametrize(("data", "words"), [
    (None, ("does not exist",)),
    (b"", ("square",)),
    (b"0,x\nx,0\n", ("distance matrix",)),
    (b"0,1\n0.5,0\n", ("symmetric",)),
])
def test_bad_distance_matrix(run, tmp_path: Path, data: bytes | None,
                             words: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.csv"
    good.write_bytes(GOOD)
    matrix = tmp_path / "m.csv"
    if data is not None:
        matrix.write_bytes(data)
    code, err = run("anonymize", str(good), "--qi", "a", "--sensitive", "c", "--t", "0.5",
                    "--distance", "matrix", "--distance-matrix", str(matrix))
    assert code == 2
    for w in words:
        assert w in err, err


@pytest.mark.parametrize(("make", "words"), [
    (lambda p: p.mkdir(), ("is not a file",)),
    (lambda p: p.write_bytes(b"\xff\xfe\x00\x01"), ("UTF-8",)),
    (lambda p: p.write_bytes(b"p;*\n"), ("no row for", )),
])
def test_bad_sa_hierarchy(run, tmp_path: Path, make, words: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.csv"
    good.write_bytes(GOOD)
    h = tmp_path / "h.csv"
    make(h)
    code, err = run("anonymize", str(good), "--qi", "a", "--sensitive", "c", "--t", "0.5",
                    "--distance", "hierarchical", "--sa-hierarchy", str(h))
    assert code == 2
    for w in words:
        assert w in err, err


@pytest.mark.parametrize("command", ["verify", "anonymize", "info"])
def test_unknown_column_of_a_damaged_file(run, tmp_path: Path, command: str) -> None:  # type: ignore[no-untyped-def]
    # the column names are checked first, from the header (before the rows are read)
    path = tmp_path / "many.csv"
    path.write_bytes(b"a,b,c\n1,x,p\n2,y,q,EXTRA\n")
    extra = {"verify": ["--k", "2"], "info": [],
             "anonymize": ["--k", "2", "-o", str(tmp_path / "work" / "out" / "r.csv")]}[command]
    code, err = run(command, str(path), "--qi", "a,zzz", *extra)
    assert code == 2
    assert "unknown column 'zzz'" in err, err


def test_unknown_sample(run) -> None:  # type: ignore[no-untyped-def]
    code, err = run("anonymize", "sample:nope", "--k", "2")
    assert code == 2 and "unknown sample 'nope'" in err and "census" in err


@pytest.mark.parametrize("command", ["anonymize", "verify", "info"])
@pytest.mark.parametrize(("args", "words"), [
    (["--qi", "a", "b"], ("unrecognized arguments: b", "--qi a,b", "--help")),
    (["--qi=a", "b"], ("unrecognized arguments: b", "--qi a,b")),
    (["--qi", "a", "b", "c"], ("unrecognized arguments: b, c", "--qi a,b,c")),
    (["--qi", "a,b", "--sensitive", "c", "a"], ("--sensitive c,a",)),
    (["--qi", "a,b", "--bogus"], ("unrecognized arguments: --bogus",)),
])
def test_words_no_flag_takes(run, tmp_path: Path, command: str, args: list[str],
                             words: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """Arguments no flag takes: one line naming them and the subcommand's help; after the
    value of a flag taking a list of columns, how to write the list (``--qi a,b``)."""
    path = _make(tmp_path / "work", "good.csv", GOOD)
    model = ["--k", "2"] if command != "info" else []
    extra = ["-o", str(tmp_path / "work" / "out" / "r.csv")] if command == "anonymize" else []
    code, err = run(command, str(path), *args, *model, *extra)
    assert code == 2
    for w in words:
        assert w in err, err
    assert f"see 'starmin {command} --help'" in err, err
    if "--bogus" in args:
        assert "takes one comma-separated list" not in err, err


def test_verify_and_info_parameters(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "good.csv"
    path.write_bytes(GOOD)
    code, err = run("verify", str(path), "--qi", "a", "--k", "0")
    assert code == 2 and "--k 0" in err
    code, err = run("verify", str(path), "--qi", "a", "--l", "2")
    assert code == 2 and "none was given" in err and "--sensitive COLUMN" in err
    code, err = run("info", str(path), "--qi", "a", "--k", "0")
    assert code == 2 and "--k 0" in err
    code, err = run("info", str(path), "--qi", "a", "--sensitive", "c", "--t", "-1")
    assert code == 2 and "--t -1 " in err


def test_exact_on_a_table_too_large(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """--method exact on a table no exact method takes: the problem and the fix first (one
    message, exit 2, nothing written: the fixture checks), then each exact method's
    reason."""
    out = tmp_path / "work" / "out" / "r.csv"
    code, err = run("anonymize", "sample:census", "--k", "5", "--method", "exact", "-o",
                    str(out))
    assert code == 2
    head, _, why = err.partition("Why each exact method declines: ")
    assert "no exact method solves 5-anonymity on this table (10,000 rows, 5,694 row types)" \
        in head and "use --method auto" in head, err
    assert "brute-force: " in why and "milp: " in why and "fpt-k-anonymity: " in why
