"""The interface's server without a browser: what it refuses, limits, runs and serves."""

from __future__ import annotations

import http.client
import re
import signal
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from starmin.cli.main import main
from tests.ui.conftest import Served, serve


def cli_message(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one-line message ``starmin`` prints for ``argv`` (without ``starmin: ``)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse
        code = exc.code  # type: ignore[assignment]
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("starmin: ") and "\n" not in err, err
    return err.removeprefix("starmin: ")


def raw_request(served: Served, method: str, path: str, headers: dict[str, str],
                body: bytes = b"") -> tuple[int, bytes]:
    host, port = served.server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), int(port), timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_other_hosts_and_sites_are_refused(served: Served) -> None:
    port = served.server.server_address[1]
    # DNS rebinding: a name that resolves here but is not this server's
    status, body = raw_request(served, "GET", "/api/meta", {"Host": f"evil.example:{port}"})
    assert status == 403 and b"answers only requests to http://127.0.0.1" in body
    key = f"starmin_ui_{port}={served.app.key}"
    ok, _ = raw_request(served, "GET", "/api/meta", {"Host": f"localhost:{port}",
                                                     "Cookie": key})
    assert ok == 200
    # another site's page posting here: its Origin, or no page header
    here = {"Host": f"127.0.0.1:{port}", "X-Starmin": "1", "Cookie": key}
    status, body = raw_request(served, "POST", "/api/open",
                               {**here, "Origin": "http://evil.example"}, b"{}")
    assert status == 403 and b"http://evil.example may not act" in body
    status, body = raw_request(served, "POST", "/api/open", {"Host": f"127.0.0.1:{port}",
                                                             "Cookie": key},
                               b'{"path": "sample:census"}')
    assert status == 403 and b"X-Starmin" in body


def test_nothing_is_served_without_the_session_key(served: Served) -> None:
    port = served.server.server_address[1]
    here = {"Host": f"127.0.0.1:{port}"}
    status, body = raw_request(served, "GET", "/", here)
    assert status == 403 and b"?key=" in body and served.app.key.encode() not in body
    for path in ("/api/meta", "/runs/1/report", "/runs/1/files/release"):
        status, body = raw_request(served, "GET", path, here)
        assert status == 403 and b"without the session's key nothing is served" in body
    wrong = {**here, "Cookie": f"starmin_ui_{port}=x{served.app.key}"}
    assert raw_request(served, "GET", "/api/meta", wrong)[0] == 403
    assert raw_request(served, "GET", "/?key=nope", here)[0] == 403
    # the printed address: its key goes into a cookie, then the page
    host, _ = served.server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), port, timeout=30)
    conn.request("GET", f"/?key={served.app.key}")
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 303 and resp.getheader("Location") == "/"
    assert resp.getheader("Set-Cookie") == (f"starmin_ui_{port}={served.app.key}; Path=/; "
                                            "HttpOnly; SameSite=Strict")
    conn.close()
    assert served.call("/api/meta")[0] == 200  # with the cookie


def test_pages_load_nothing_from_elsewhere(served: Served) -> None:
    """No URL in the page, its script or style; a policy forbids loading from elsewhere."""
    static = resources.files("starmin.ui").joinpath("static")
    for name in ("index.html", "locked.html", "app.js", "app.css"):
        text = static.joinpath(name).read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//\w", text), name  # no absolute or //host URL
        assert "@import" not in text and "url(" not in text
    host, port = served.server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), int(port), timeout=30)
    conn.request("GET", "/", headers={"Cookie": f"starmin_ui_{port}={served.app.key}"})
    resp = conn.getresponse()
    assert resp.status == 200
    resp.read()
    csp = resp.getheader("Content-Security-Policy") or ""
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    conn.close()


def test_upload_limit_and_empty_files(tmp_path: Path) -> None:
    for s in serve(tmp_path / "work", max_upload=1000):
        status, body = s.call("/api/upload-check", {"name": "big.csv", "size": 5_000_000})
        assert status == 413
        assert body["error"] == ("big.csv is 5 MB, over the upload limit of 1 KB: open it by "
                                 "its path on this machine instead (nothing is copied), or "
                                 "start starmin ui with --max-upload-mb 6")
        status, body = s.call("/api/upload?name=big.csv&kind=table", raw=b"x" * 1001)
        assert status == 413 and "over the upload limit of 1 KB" in body["error"]
        status, body = s.call("/api/upload-check", {"name": "e.csv", "size": 0})
        assert status == 400 and body["error"].startswith("e.csv is empty")
        status, body = s.call("/api/upload?name=../../etc/t.csv&kind=table",
                              raw=b"a;b\n1;2\n3;4\n")
        assert status == 200 and body["n"] == 2 and body["label"] == "t.csv"
        assert Path(body["source"]).parent.parent == s.app.workdir / "uploads"
    for s in serve(tmp_path / "work"):  # a kept work folder, used again: nothing is reused
        status, body2 = s.call("/api/upload?name=t.csv&kind=table", raw=b"a;b\n5;6\n")
        assert status == 200 and body2["source"] != body["source"]
        assert Path(body["source"]).read_bytes() == b"a;b\n1;2\n3;4\n"


def test_open_errors_are_the_cli_messages(served: Served, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3\n")
    for path in (str(tmp_path / "missing.csv"), str(ragged), str(tmp_path)):
        status, body = served.call("/api/open", {"path": path})
        assert status == 400
        assert body["error"] == cli_message(capsys, "anonymize", path, "--qi", "a", "--k", "2",
                                            "-o", str(tmp_path / "o.csv"))


def test_run_cancel_and_one_at_a_time(served: Served) -> None:
    # census-100k: a run of over 10 s (its first progress line comes after 0.3 s), so the
    # cancel lands mid-run even on a loaded machine; on the 10,000-row census a run could
    # write its release before the signal arrived, and end `done`
    _, t = served.call("/api/open", {"path": "sample:census-100k"})
    form = {"table": t["id"], "roles": t["roles"], "k": "5", "format": "csv"}
    status, run = served.call("/api/run", form)
    assert status == 200
    status, body = served.call("/api/run", form)
    assert status == 409 and body["error"] == (f"run {run['id']} is still going: wait for it "
                                               "to end or cancel it (one run at a time)")
    r = served.app.runs[run["id"]]
    for _ in range(600):  # until the CLI works (its SIGTERM handler is in place)
        if r.status()["lines"] or r.wait(0.1):
            break
    _, c = served.call(f"/api/runs/{run['id']}/cancel", {})
    assert c["cancelled"] is True
    assert r.wait(60)
    _, s = served.call(f"/api/runs/{run['id']}")
    assert s["state"] == "cancelled" and s["exit"] == 130 and s["files"] == []
    assert s["error"] == "cancelled: nothing was written"
    assert list(r.folder.iterdir()) == []  # the CLI removed its temporary files
    status, body = served.call(f"/runs/{run['id']}/files/release")
    assert status == 404 and "wrote no files" in body["error"]


def test_run_equals_the_command_line(served: Served, tmp_path: Path) -> None:
    """A run from the page writes the bytes `starmin anonymize` writes with the same
    arguments (hierarchical t-closeness with a sensitive hierarchy file)."""
    h = tmp_path / "disease.csv"
    h.write_text("Viral Infection;Infectious;*\nHeart Disease;Chronic;*\nCancer;Chronic;*\n")
    _, t = served.call("/api/open", {"path": "sample:liang-yuan-table1"})
    form = {"table": t["id"], "roles": t["roles"], "t": "0.4", "distance": "hierarchical",
            "sa_hierarchy": str(h), "k": "2", "format": "csv"}
    _, run = served.call("/api/run", form)
    assert run["command"].startswith("starmin anonymize sample:liang-yuan-table1 --qi "
                                     "Zipcode,Age,Education --sensitive Disease --k 2 --t 0.4 "
                                     f"--distance hierarchical --sa-hierarchy {h} ")
    assert served.app.runs[run["id"]].wait(120)
    _, s = served.call(f"/api/runs/{run['id']}")
    assert s["state"] == "done", s
    assert s["result"]["verified"] is True and "hierarchical" in s["result"]["model"]
    assert any("stars" in line for line in s["lines"])
    out = tmp_path / "cli.csv"
    assert main(["-q", "anonymize", "sample:liang-yuan-table1", "--qi", "Zipcode,Age,Education",
                 "--sensitive", "Disease", "--k", "2", "--t", "0.4", "--distance",
                 "hierarchical", "--sa-hierarchy", str(h), "-o", str(out)]) == 0
    status, release = served.call(f"/runs/{run['id']}/files/release")
    assert status == 200 and release == out.read_bytes()
    status, page = served.call(f"/runs/{run['id']}/report")
    assert status == 200 and page == Path(f"{out}.report.html").read_bytes()


def test_ui_command_warns_off_loopback_and_stops_on_sigterm(tmp_path: Path) -> None:
    for host, warned in (("127.0.0.1", False), ("0.0.0.0", True)):
        proc = subprocess.Popen([sys.executable, "-m", "starmin.cli.main", "ui", "--port", "0",
                                 "--host", host, "--workdir", str(tmp_path / host)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert re.match(r"starmin ui: serving http://127\.0\.0\.1:\d+/\?key=[\w-]{32} ",
                            first), first
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert ("warning: listening on 0.0.0.0, not only on this machine" in err) is warned
        assert "starmin ui: stopped" in err


def test_ui_command_bad_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_message(capsys, "ui", "--port", "70000") == (
        "--port 70000 is not a port: give 1 to 65535, or 0 for any free port")


def test_meta_lists_each_methods_options(served: Served) -> None:
    """The page's method note shows the options the method takes (``--option``)."""
    from starmin.algorithms.registry import algorithms

    status, meta = served.call("/api/meta")
    assert status == 200
    by_name = {m["name"]: m["options"] for m in meta["methods"]}
    assert by_name["auto"] == ["budget"] and by_name["exact"] == []
    for name, a in algorithms().items():
        assert by_name[name] == list(a.options)
    assert "start" in by_name["merge-repair"] and by_name["tp"] == []
