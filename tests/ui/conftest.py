"""Fixtures of the interface's tests: a server on a free 127.0.0.1 port, headless Chromium.

The browser is the system's Chromium (Debian package ``chromium``), driven over the DevTools
protocol on a pipe (:mod:`starmin.ui.chromium`): nothing is downloaded. Without it the browser
tests skip, naming what to install; with ``STARMIN_REQUIRE_BROWSER=1`` (set by ``.ci/run``,
which installs it) they fail instead.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from starmin.ui.chromium import Browser, find_chromium
from starmin.ui.server import App, Server, make_server

REQUIRE_BROWSER = "STARMIN_REQUIRE_BROWSER"


class Served:
    """A running server, its app and a small HTTP client speaking as the page does."""

    def __init__(self, app: App, server: Server) -> None:
        self.app, self.server, self.url = app, server, server.url
        self.start_url = server.start_url

    def call(self, path: str, body: Any = None, *, raw: bytes | None = None,
             headers: dict[str, str] | None = None, page: bool = True
             ) -> tuple[int, Any]:
        """``GET`` (no body) or ``POST`` ``path``; the status and the decoded JSON."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        h = {"X-Starmin": "1"} if page and data is not None else {}
        if page:  # the session's key, as the browser keeps it once the page is opened
            h["Cookie"] = f"starmin_ui_{self.server.server_address[1]}={self.app.key}"
        h.update(headers or {})
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, headers=h,
                                     method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, _decode(resp.read(), resp.headers)
        except urllib.error.HTTPError as exc:
            return exc.code, _decode(exc.read(), exc.headers)


def _decode(body: bytes, headers: Any) -> Any:
    if "json" in headers.get("Content-Type", ""):
        return json.loads(body)
    return body


def serve(workdir: Path, **kw: Any) -> Iterator[Served]:
    app = App(workdir, **kw)
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(app, server)
    finally:
        server.shutdown()
        server.server_close()
        app.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serve(tmp_path_factory.mktemp("ui-work"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if find_chromium() is None:
        why = ("needs headless Chromium: install the Debian package chromium "
               "(apt-get install chromium), or set STARMIN_CHROMIUM to its path")
        if os.environ.get(REQUIRE_BROWSER, "") not in ("", "0"):
            pytest.fail(f"{why} [{REQUIRE_BROWSER}={os.environ[REQUIRE_BROWSER]}: a failure, "
                        "not a skip]", pytrace=False)
        pytest.skip(why)
    with Browser(timeout=90) as b:
        b.downloads_to(tmp_path_factory.mktemp("downloads"))
        yield b
