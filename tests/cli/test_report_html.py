"""``OUT.report.html`` beside every release and ``starmin report`` (issue 12, part 2): the page
is written with the release and its JSON report, all or none; re-rendering the JSON gives the
same bytes; bad report files are one line and exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import starmin
from starmin.cli.main import main
from tests.report.conftest import HOSTILE, hostile_table
from tests.report.test_html import assert_self_contained


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _one_line_error(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith("starmin: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for w in words:
        assert w in err, (w, err)
    return err


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rel") / "rel.csv"
    assert main(["-q", "anonymize", "sample:census", "--qi", "sex,age,race", "--sensitive",
                 "occupation", "--k", "3", "--l", "2", "-o", str(out)]) == 0
    return out


def test_the_page_is_written_beside_the_release(released: Path) -> None:
    assert _files(released.parent) == {"rel.csv", "rel.csv.report.json", "rel.csv.report.html"}
    page = Path(f"{released}.report.html").read_text(encoding="utf-8")
    report = json.loads(Path(f"{released}.report.json").read_text())
    assert_self_contained(page)
    assert f"{report['stars']:,} suppressed cells" in page
    assert f"at least {report['lower_bound']:,} stars" in page
    assert report["model"] in page and "Verified" in page
    assert report["report_version"] == 3 and report["distributions"]["columns"]


def test_same_run_twice_same_page(released: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.csv"
    assert main(["-q", "anonymize", "sample:census", "--qi", "sex,age,race", "--sensitive",
                 "occupation", "--k", "3", "--l", "2", "-o", str(again)]) == 0
    assert Path(f"{again}.report.html").read_bytes() == \
        Path(f"{released}.report.html").read_bytes()


def test_report_command_renders_the_same_bytes(released: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    page = Path(f"{released}.report.html").read_bytes()
    out = tmp_path / "sub" / ".." / "page.html"
    (tmp_path / "sub").mkdir()
    assert main(["report", f"{released}.report.json", "-o", str(out)]) == 0
    assert out.read_bytes() == page
    assert capsys.readouterr().out.strip() == f"written {out}"
    # default: beside the JSON, OUT.report.json -> OUT.report.html
    copy = tmp_path / "copy.csv.report.json"
    copy.write_bytes(Path(f"{released}.report.json").read_bytes())
    assert main(["-q", "report", str(copy)]) == 0
    assert (tmp_path / "copy.csv.report.html").read_bytes() == page
    assert _files(tmp_path) == {"sub", "page.html", "copy.csv.report.json",
                                "copy.csv.report.html"}


def test_api_write_gives_the_same_triple(tmp_path: Path) -> None:
    release = starmin.anonymize(hostile_table(), qi=[HOSTILE, "age"], sensitive="dis", k=3)
    out = release.write(tmp_path / "r.parquet")
    assert _files(tmp_path) == {"r.parquet", "r.parquet.report.json", "r.parquet.report.html"}
    page = Path(f"{out}.report.html").read_text(encoding="utf-8")
    assert_self_contained(page)
    assert "&lt;script&gt;" in page
    assert main(["-q", "report", f"{out}.report.json", "-o", str(tmp_path / "x.html")]) == 0
    assert (tmp_path / "x.html").read_text(encoding="utf-8") == page


def test_hostile_column_name_through_the_cli(tmp_path: Path) -> None:
    # no double quote in the name: polars reads a CSV header's "" as two quotes
    name = "<script>alert('q')</script> & 'zip'"
    src = tmp_path / "in.csv"
    hostile_table().rename({HOSTILE: name}).write_csv(src)
    out = tmp_path / "o.csv"
    assert main(["-q", "anonymize", str(src), "--qi", f"{name},age", "--sensitive", "dis",
                 "--k", "3", "-o", str(out)]) == 0
    page = Path(f"{out}.report.html").read_text(encoding="utf-8")
    assert_self_contained(page)
    assert name not in page and "&lt;script&gt;alert(" in page


# ---- nothing left behind ----------------------------------------------------------------------

def test_a_failing_page_leaves_no_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import starmin.report.html as html

    def boom(*a: Any, **kw: Any) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html, "render", boom)
    out = tmp_path / "new" / "rel.csv"
    assert main(["-q", "anonymize", "sample:census", "--qi", "sex,age", "--k", "3",
                 "-o", str(out)]) == 2
    _one_line_error(capsys, "No space left on device")
    assert _files(tmp_path) == set()


def test_a_failing_rename_of_the_page_leaves_nothing(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    import starmin.io.output as output

    real = os.replace

    def flaky(src: Any, dst: Any) -> None:
        if str(dst).endswith(".report.html"):  # the last of the three
            raise PermissionError(13, "Permission denied", str(dst))
        real(src, dst)

    monkeypatch.setattr(output.os, "replace", flaky)
    out = tmp_path / "new" / "rel.csv"
    assert main(["-q", "anonymize", "sample:census", "--qi", "sex,age", "--k", "3",
                 "-o", str(out)]) == 2
    _one_line_error(capsys, "Permission denied", "rel.csv.report.html")
    assert _files(tmp_path) == set()


def test_html_path_that_is_a_folder_is_refused_before_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import starmin.api

    def never(*a: Any, **kw: Any) -> Any:
        raise AssertionError("anonymize ran although the output was bad")

    monkeypatch.setattr(starmin.api, "anonymize", never)
    (tmp_path / "rel.csv.report.html").mkdir()
    assert main(["-q", "anonymize", "sample:census", "--qi", "sex", "--k", "2",
                 "-o", str(tmp_path / "rel.csv")]) == 2
    _one_line_error(capsys, "rel.csv.report.html", "is a folder")
    assert _files(tmp_path) == {"rel.csv.report.html"}


def test_the_page_may_not_be_the_input(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.csv.report.html"
    src.write_text("a,b\n1,2\n")
    assert main(["-q", "anonymize", str(src), "--qi", "a", "--k", "1", "-o",
                 str(tmp_path / "t.csv")]) == 2
    _one_line_error(capsys, "is the input file")
    assert src.read_text() == "a,b\n1,2\n"


# ---- starmin report: bad input ---------------------------------------------------------------

@pytest.mark.parametrize(("content", "words"), [
    ("{not json", ("is not JSON", "line 1")),
    ('{"stars": 3}', ("has no 'input'", "OUT.report.json")),
    ("[1, 2]", ("not a JSON object",)),
    (b"\xff\xfe\x00", ("not a text file",)),
])
def test_bad_report_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          content: str | bytes, words: tuple[str, ...]) -> None:
    p = tmp_path / "r.report.json"
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    assert main(["report", str(p)]) == 2
    _one_line_error(capsys, *words)
    assert _files(tmp_path) == {"r.report.json"}


def test_report_command_paths(released: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing.report.json")]) == 2
    _one_line_error(capsys, "no such file")
    assert main(["report", str(tmp_path)]) == 2
    _one_line_error(capsys, "is a folder")
    rep = f"{released}.report.json"
    assert main(["report", rep, "-o", str(tmp_path / "page.txt")]) == 2
    _one_line_error(capsys, ".html")
    assert main(["report", rep, "-o", str(tmp_path / "nowhere" / "page.html")]) == 2
    _one_line_error(capsys, "does not exist")
    (tmp_path / "d.html").mkdir()
    assert main(["report", rep, "-o", str(tmp_path / "d.html")]) == 2
    _one_line_error(capsys, "is a folder")
    assert _files(tmp_path) == {"d.html"}
