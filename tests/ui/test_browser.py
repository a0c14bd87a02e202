"""``starmin ui`` driven in headless Chromium (the system's; see conftest.py): a whole run from
an uploaded file to a downloaded release that verifies, the command line's messages in the
page, and hierarchical t-closeness with an uploaded hierarchy."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import pytest

import starmin
from starmin.cli.main import main
from starmin.ui.chromium import Browser
from tests.ui.conftest import Served

QI = ("sex", "age", "race", "education")


def fresh(b: Browser, served: Served) -> None:
    b.goto(served.start_url)  # the address starmin ui prints (with the session's key)
    b.wait("document.body.dataset.ready === '1'", "the page to start")


def finished(b: Browser) -> str:
    """Wait for the run to end; its state (done, failed, cancelled)."""
    return str(b.wait("(s => ['done', 'failed', 'cancelled'].includes(s) && s)("
                      "document.querySelector('#run-state').dataset.state)", "the run to end"))


def text(b: Browser, selector: str) -> str:
    return str(b.js(f"document.querySelector({json.dumps(selector)}).textContent"))


def role(b: Browser, column: str, value: str) -> None:
    b.choose(f"select.role[data-column={json.dumps(column)}]", value)


def downloaded(b: Browser, name: str) -> Path:
    assert b.downloads is not None
    path = b.downloads / name
    for _ in range(600):  # a hang guard, not a speed check
        if path.is_file() and not list(b.downloads.glob("*.crdownload")):
            return path
        time.sleep(0.1)
    raise AssertionError(f"{name} was not downloaded: {sorted(b.downloads.iterdir())}")


@pytest.fixture(scope="module")
def census_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from starmin.datasets import synthetic_census

    p = tmp_path_factory.mktemp("in") / "census.csv"
    synthetic_census(300, seed=3).write_csv(p, separator=";")
    return p


def test_upload_run_report_download_verify(browser: Browser, served: Served,
                                           census_csv: Path, tmp_path: Path) -> None:
    b = browser
    fresh(b, served)
    b.set_files("#upload", census_csv)
    b.wait("!document.querySelector('#columns').hidden", "the uploaded table's preview")
    assert text(b, "#table-title") == "census.csv: 300 rows, 9 columns (first 12 shown)"
    assert b.js("[...document.querySelectorAll('#preview tbody tr')].length") == 12
    assert b.js("[...document.querySelectorAll('select.role')].every(s => s.value == 'ignore')")
    for c in QI:
        role(b, c, "qi")
    role(b, "occupation", "sensitive")
    role(b, "native-country", "identifier")
    b.type("#k", "3")
    b.type("#l", "2")
    b.click("#run")
    assert finished(b) == "done", text(b, "#progress-error")
    log = text(b, "#log")
    assert "aggregated n=300 rows, m=4 QIs" in log and "drawing the report page's plots" in log
    headline = text(b, "#headline")
    assert "yes — the independent verifier passed every model" in headline
    assert "3-anonymity and 2-diversity" in headline
    # the report, inside the page
    b.wait("(f => f.contentDocument && f.contentDocument.readyState === 'complete' && "
           "f.contentDocument.querySelector('h1') !== null)(document.querySelector('#report'))",
           "the report in the page")
    report_text = b.js("document.querySelector('#report').contentDocument.body.textContent")
    assert "Verified: the independent verifier re-checked every model" in report_text
    assert "Class sizes" in report_text and "census.csv" in report_text
    assert b.js("document.querySelector('#report').contentDocument"
                ".querySelectorAll('svg').length") >= 4
    # nothing was loaded from anywhere but this server
    assert b.js("performance.getEntriesByType('resource').every(e => "
                "e.name.startsWith(location.origin))")
    # the downloads: the release verifies, and is the command line's release byte for byte
    b.click("#download-release")
    release = downloaded(b, "census.anon.csv")
    b.click("#download-json")
    report = json.loads(downloaded(b, "census.anon.csv.report.json").read_text())
    assert report["verified"] is True and f"{report['stars']:,}" in headline
    verdict = starmin.verify(release, qi=",".join(QI), sensitive="occupation", k=3, l=2)
    assert verdict.passed
    assert "native-country" not in release.read_text().splitlines()[0].split(";")
    out = tmp_path / "cli.csv"
    assert main(["-q", "anonymize", str(census_csv), "--qi", ",".join(QI), "--sensitive",
                 "occupation", "--identifiers", "native-country", "--k", "3", "--l", "2",
                 "-o", str(out)]) == 0
    assert release.read_bytes() == out.read_bytes()


def cli_message(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with contextlib.suppress(SystemExit):  # argparse's errors
        main(list(argv))
    return capsys.readouterr().err.strip().removeprefix("starmin: ")


def test_bad_input_shows_the_cli_messages(browser: Browser, served: Served, tmp_path: Path,
                                          census_csv: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    b = browser
    fresh(b, served)
    limit = served.app.max_upload
    served.app.max_upload = 1000
    try:
        b.set_files("#upload", census_csv)
        b.wait("!document.querySelector('#open-error').hidden", "the upload's error")
    finally:
        served.app.max_upload = limit
    size = census_csv.stat().st_size
    assert text(b, "#open-error") == (
        f"census.csv is {size / 1000:.1f} KB, over the upload limit of 1 KB: open it by its "
        "path on this machine instead (nothing is copied), or start starmin ui with "
        "--max-upload-mb 1")
    assert b.js("document.querySelector('#columns').hidden")
    missing = str(tmp_path / "nope.csv")
    b.type("#path", missing)
    b.click("#open-path-button")
    b.wait("!document.querySelector('#open-error').hidden", "the open error")
    out = str(tmp_path / "o.csv")
    assert text(b, "#open-error") == cli_message(capsys, "anonymize", missing, "--qi", "a",
                                                 "--k", "2", "-o", out)
    b.choose("#sample", "sample:liang-yuan-table1")
    b.click("#open-sample-button")
    b.wait("!document.querySelector('#columns').hidden", "the sample's preview")
    assert b.js("document.querySelector('#open-error').hidden")
    base = ["anonymize", "sample:liang-yuan-table1", "--qi", "Zipcode,Age,Education",
            "--sensitive", "Disease", "-o", out]
    for field, value, flag in (("#t", "1.5", "--t"), ("#k", "two", "--k")):
        b.type(field, value)
        b.click("#run")
        assert finished(b) == "failed"
        assert text(b, "#progress-error") == cli_message(capsys, *base, flag, value)
        b.type(field, "")
    for i in range(3):
        b.choose(f"#role-{i}", "ignore")
    b.type("#k", "2")
    b.click("#run")
    b.wait("!document.querySelector('#run-error').hidden", "the form's error")
    assert text(b, "#run-error") == "--qi is required: name the quasi-identifier columns"


def test_hierarchical_t_closeness_with_an_uploaded_hierarchy(
        browser: Browser, served: Served, tmp_path: Path) -> None:
    b = browser
    fresh(b, served)
    h = tmp_path / "disease.csv"
    h.write_text("Viral Infection;Infectious;*\nHeart Disease;Chronic;*\nCancer;Chronic;*\n")
    b.choose("#sample", "sample:liang-yuan-table1")
    b.click("#open-sample-button")
    b.wait("!document.querySelector('#columns').hidden", "the sample's preview")
    assert b.js("document.querySelector('#sa_hierarchy').closest('[data-when]').hidden")
    b.type("#t", "0.4")
    b.choose("#distance", "hierarchical")
    assert not b.js("document.querySelector('#sa_hierarchy').closest('[data-when]').hidden")
    b.set_files("#sa_hierarchy-upload", h)
    path = b.wait("document.querySelector('#sa_hierarchy').value", "the hierarchy's upload")
    assert Path(path).name == "disease.csv" and Path(path).read_text() == h.read_text()
    b.choose("#format", "parquet")
    b.click("#run")
    assert finished(b) == "done", text(b, "#progress-error")
    assert f"--distance hierarchical --sa-hierarchy {path}" in text(b, "#command")
    assert "hierarchical" in text(b, "#headline")
    b.click("#download-release")
    release = downloaded(b, "liang-yuan-table1.anon.parquet")
    assert starmin.verify(release, qi="Zipcode,Age,Education", sensitive="Disease", t=0.4,
                          distance="hierarchical", sa_hierarchy=str(h)).passed


def test_generalization_with_an_uploaded_hierarchy_and_built_in_ones(
        browser: Browser, served: Served, tmp_path: Path) -> None:
    from starmin.datasets import load

    b = browser
    fresh(b, served)
    h = tmp_path / "age.csv"
    h.write_text("".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n"
                         for a in (32, 33, 38, 39, 45, 54, 55, 62, 65, 69)))
    b.choose("#sample", "sample:liang-yuan-table1")
    b.click("#open-sample-button")
    b.wait("!document.querySelector('#columns').hidden", "the sample's preview")
    fields = "[...document.querySelectorAll('#hierarchy-list input.hierarchy')]"
    assert b.js(f"{fields}.map(e => e.dataset.column).join()") == "Zipcode,Age,Education"
    role(b, "Education", "ignore")  # the list follows the roles
    assert b.js(f"{fields}.map(e => e.dataset.column).join()") == "Zipcode,Age"
    b.set_files("#hierarchy-1-upload", h)
    path = b.wait("document.querySelector('#hierarchy-1').value", "the hierarchy's upload")
    assert Path(path).read_text() == h.read_text()
    role(b, "Age", "ignore")
    assert b.js(f"{fields}.map(e => e.dataset.column).join()") == "Zipcode"
    role(b, "Age", "qi")  # the uploaded file is kept
    assert b.js("document.querySelector('#hierarchy-1').value") == path
    role(b, "Education", "qi")
    b.click("#generalize")
    b.choose("#objective", "loss")
    b.type("#k", "2")
    b.click("#run")
    assert finished(b) == "done", text(b, "#progress-error")
    assert f"--hierarchy Age={path} --generalize --objective loss" in text(b, "#command")
    b.click("#download-release")
    release = downloaded(b, "liang-yuan-table1.anon.csv")
    original = tmp_path / "original.parquet"  # the sample's types (Zipcode is text)
    load("liang-yuan-table1").write_parquet(original)
    files = {"Age": str(h)}
    for column in ("Zipcode", "Education"):  # the built-ins --generalize used, as files
        files[column] = str(tmp_path / f"{column}.csv")
        assert main(["hierarchy", column, "--from", str(original), "-o", files[column]]) == 0
    report = starmin.verify(release, qi="Zipcode,Age,Education", sensitive="Disease", k=2,
                            original=str(original), hierarchies=files)
    assert report.passed and report.cells is not None and report.cells.passed
    assert set(report.cells.hierarchies) == {"Zipcode", "Age", "Education"}
    assert report.cells.generalized > 0  # the loss objective releases groups, not only *


def test_a_page_opened_again_follows_the_run_and_cancels_it(browser: Browser,
                                                            served: Served) -> None:
    b = browser
    fresh(b, served)
    b.click("#open-sample-button")  # the first sample: census, 10,000 rows
    b.wait("!document.querySelector('#columns').hidden", "the sample's preview")
    b.type("#k", "5")
    b.click("#run")
    command = b.wait("document.querySelector('#command').textContent", "the run's command")
    fresh(b, served)  # reloaded while the run goes on: the page shows it again
    b.wait("document.querySelector('#log').textContent.includes('aggregated')",
           "the run's first progress line")
    assert text(b, "#command") == command and text(b, "#run-state") == "running"
    b.click("#cancel")
    assert finished(b) == "cancelled"
    assert text(b, "#progress-error") == "cancelled: nothing was written"
    assert b.js("document.querySelector('#result').hidden")
    assert b.js("document.querySelector('#cancel').hidden")
    assert not b.js("document.querySelector('#run').disabled")  # ready for the next run
