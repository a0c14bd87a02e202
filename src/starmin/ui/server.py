"""``starmin ui``: the local web interface's HTTP server (standard library only).

One server is one session: it holds the tables the page opened and the runs it started, in a
work folder (a new temporary folder, removed when the server stops, unless ``--workdir``
names one to keep). One run at a time; the page polls its progress.

Security. The server listens on 127.0.0.1 unless ``--host`` names another address (then a
warning is printed: the traffic is plain HTTP, readable on the network). Nothing but
the page's script and style is served without the session's key: the address printed at the
start carries it once (``/?key=...``) and the browser keeps it in a cookie for this port
(HttpOnly, SameSite=Strict), so other users of the machine and other sites get nothing. On a
loopback address the server answers only requests whose ``Host`` is that address or
``localhost`` (no DNS rebinding), and every ``POST`` must carry the page's ``X-Starmin``
header and, when the browser sends an ``Origin``, come from the page's own origin. Every page
is served with a Content-Security-Policy that lets it load nothing from anywhere but this
server (the report page: nothing at all), so the data never leaves the machine: there is no
external script, style, font or image, and no call out.

Routes: ``GET /?key=KEY`` keeps the key and goes to ``GET /``, the page; ``/static/*`` its
script and style; ``GET /api/meta`` methods, models' choices, samples, the upload limit, the
run going; ``POST /api/open`` a path or ``sample:NAME``; ``POST /api/upload-check`` and
``POST /api/upload?name=...&kind=table|file`` an upload (raw body); ``POST /api/run`` the
form; ``GET /api/runs/ID?from=N`` progress and result; ``POST /api/runs/ID/cancel``;
``GET /runs/ID/report`` the HTML report; ``GET /runs/ID/files/KIND`` a download
(``release``, ``report.json``, ``report.html``).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from starmin.errors import InvalidInput, StarminError, command_line

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_MAX_UPLOAD_MB = 200
"""The upload limit (MB, 10^6 bytes); a larger file is opened by its path instead."""
MAX_JSON = 1 << 20
"""Largest JSON request body (the form)."""

APP_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
           "connect-src 'self'; frame-src 'self'; font-src 'none'; object-src 'none'; "
           "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
REPORT_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
              "base-uri 'none'; form-action 'none'; frame-ancestors 'self'")
STATIC = {"index.html": "text/html; charset=utf-8", "locked.html": "text/html; charset=utf-8",
          "app.js": "text/javascript; charset=utf-8",
          "app.css": "text/css; charset=utf-8"}
FILE_TYPES = {".csv": "text/csv; charset=utf-8", ".tsv": "text/tab-separated-values",
              ".parquet": "application/vnd.apache.parquet", ".json": "application/json",
              ".html": "text/html; charset=utf-8"}


class HTTPError(Exception):
    """An answer other than 200: the status and the one-line message the page shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def message(exc: BaseException) -> tuple[int, str]:
    """The HTTP status and the one-line message for ``exc``: starmin's own errors are the
    command line's messages word for word (within :func:`~starmin.errors.command_line`
    they name flags, ``--k 5``); other failures get the CLI's wording too."""
    if isinstance(exc, HTTPError):
        return exc.status, one_line(exc)
    if isinstance(exc, StarminError):
        return HTTPStatus.BAD_REQUEST, one_line(exc)
    if isinstance(exc, MemoryError):
        return HTTPStatus.INSUFFICIENT_STORAGE, ("out of memory: try a smaller table, fewer QI "
                                                 "columns, or a sensitive column with fewer "
                                                 "values")
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return HTTPStatus.BAD_REQUEST, one_line(
            f"cannot read or write{where}: {exc.strerror or exc}; check the path, its "
            "permissions and the free space")
    return HTTPStatus.INTERNAL_SERVER_ERROR, one_line(
        f"internal error ({type(exc).__name__}: {one_line(exc)}); this is a bug: please "
        "report it with what you did in the page")


def one_line(text: object) -> str:
    return " ".join(str(text).split())


def size_text(n: float) -> str:
    """A size as a person reads it: ``812 bytes``, ``3.4 KB``, ``200 MB`` (10^3, 10^6)."""
    if n < 1000:
        return f"{n:,.0f} bytes"
    value, unit = (n / 1e3, "KB") if n < 1e6 else (n / 1e6, "MB")
    return f"{value:,.1f}".removesuffix(".0") + f" {unit}"


def safe_name(name: str) -> str:
    """An uploaded file's name with its folders removed and characters other than letters,
    digits, ``.``, ``_``, ``-`` and space replaced (the suffix is kept: it picks the
    reader)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = re.sub(r"[^A-Za-z0-9._ -]+", "_", base).strip(" .")
    return base or "upload.csv"


def new_folder(parent: Path, name: str) -> Path:
    """A new folder ``parent/name``, or ``name-2``, ``name-3``, ... when a kept work folder
    already holds one from an earlier session."""
    parent.mkdir(parents=True, exist_ok=True)
    for i in range(1, 10_000):
        folder = parent / (name if i == 1 else f"{name}-{i}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise InvalidInput(f"{parent} holds too many folders named {name}-N: give --workdir an "
                       "empty folder")


class App:
    """The session behind one server: the work folder, the opened tables, the runs."""

    def __init__(self, workdir: str | os.PathLike[str] | None = None, *,
                 max_upload: int = DEFAULT_MAX_UPLOAD_MB * 10**6) -> None:
        if workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix="starmin-ui-"))
            self.own_workdir = True
        else:
            self.workdir = Path(workdir).resolve()
            self.workdir.mkdir(parents=True, exist_ok=True)
            self.own_workdir = False
        self.max_upload = max_upload
        self.key = secrets.token_urlsafe(24)
        """The session's key: the address ``starmin ui`` prints carries it once
        (``/?key=...``), the browser keeps it in a cookie; nothing else is served without
        it."""
        self.tables: dict[str, Any] = {}
        self.runs: dict[str, Any] = {}
        self._count = 0
        self._runs = 0
        self._lock = threading.Lock()
        self._meta: dict[str, Any] | None = None

    def _next(self) -> str:
        with self._lock:
            self._count += 1
            return str(self._count)

    # -- what the page asks ---------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        """The choices the page offers: methods (from the registry), l-diversity kinds,
        distances, samples, output formats, the upload limit; and the run still going, if
        any (a page opened again shows its progress)."""
        if self._meta is None:
            from starmin import __version__
            from starmin.algorithms.registry import algorithms
            from starmin.model_params import DISTANCES, L_KINDS
            from starmin.ui.form import FORMATS, ROLES
            from starmin.ui.tables import samples

            methods = [{"name": "auto", "kind": "portfolio",
                        "statement": "the fewest stars of the methods that fit a work budget",
                        "options": ["budget"]},
                       {"name": "exact", "kind": "exact",
                        "statement": "the first exact method that supports the instance",
                        "options": []}]
            methods += [{"name": a.name, "kind": a.guarantee.kind,
                         "statement": a.guarantee.statement,
                         "reference": a.guarantee.reference, "options": list(a.options)}
                        for a in algorithms().values()]
            self._meta = {"version": __version__, "methods": methods, "l_kinds": L_KINDS,
                          "distances": DISTANCES, "formats": FORMATS, "roles": ROLES,
                          "samples": samples(), "max_upload": self.max_upload,
                          "max_upload_text": size_text(self.max_upload)}
        running = [r for r in self.runs.values() if r.state == "running"]
        return {**self._meta, "running": ({"id": running[0].id, "command": running[0].command}
                                          if running else None)}

    def _table_json(self, t: Any) -> dict[str, Any]:
        return {"id": t.id, "source": t.source, "label": t.label, "uploaded": t.uploaded,
                **t.info}

    def open(self, body: dict[str, Any]) -> dict[str, Any]:
        """Open a path on this machine or ``sample:NAME``."""
        from starmin.ui.tables import open_source

        path = body.get("path")
        if not isinstance(path, str):
            raise InvalidInput("no file given: type the path of a CSV or Parquet file on this "
                               "machine, choose a sample, or upload a file")
        # a relative path is read from the folder starmin ui started in, as the run reads it
        t = open_source(self._next(), path)
        self.tables[t.id] = t
        return self._table_json(t)

    def check_upload(self, name: str, size: object) -> None:
        """Refuse an upload over the limit (before its bytes are sent)."""
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise HTTPError(HTTPStatus.LENGTH_REQUIRED,
                            "the upload's size is unknown: send the file with its length")
        if size > self.max_upload:
            raise HTTPError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                            f"{safe_name(name)} is {size_text(size)}, over the upload limit of "
                            f"{size_text(self.max_upload)}: open it by its path on this machine "
                            "instead (nothing is copied), or start starmin ui with "
                            f"--max-upload-mb {int(size // 10**6) + 1}")
        if size == 0:
            raise InvalidInput(f"{safe_name(name)} is empty: choose a CSV or Parquet file "
                               "with a header and records")

    def upload(self, name: str, kind: str, size: int,
               read: Callable[[int], bytes]) -> dict[str, Any]:
        """Save an upload of ``size`` bytes (``read`` gives them) in the work folder; a
        table (``kind`` ``table``) is opened, any other file (a hierarchy, a distance
        matrix) is kept and its path returned for the form."""
        from starmin.ui.tables import open_source

        self.check_upload(name, size)
        folder = new_folder(self.workdir / "uploads", self._next())
        path = folder / safe_name(name)
        left = size
        with open(path, "wb") as fh:
            while left:
                chunk = read(min(left, 1 << 20))
                if not chunk:
                    break
                fh.write(chunk)
                left -= len(chunk)
        if left:
            shutil.rmtree(folder, ignore_errors=True)
            raise InvalidInput(f"the upload of {safe_name(name)} ended after "
                               f"{size - left:,} of {size:,} bytes: upload it again")
        if kind != "table":
            return {"path": str(path), "name": path.name}
        try:
            t = open_source(self._next(), str(path), label=path.name, uploaded=True)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        self.tables[t.id] = t
        return self._table_json(t)

    def start(self, body: dict[str, Any]) -> dict[str, Any]:
        """Start a run of the form on an opened table (one run at a time)."""
        from starmin.ui.form import FORMATS, command, release_name
        from starmin.ui.runs import Run

        t = self.tables.get(str(body.get("table")))
        if t is None:
            raise HTTPError(HTTPStatus.NOT_FOUND, "no table is open: open a file, a sample or "
                            "an upload first")
        fmt = str(body.get("format") or "csv")
        if fmt not in FORMATS:
            raise InvalidInput(f"unknown output format {fmt!r}: use one of "
                               f"{', '.join(FORMATS)}")
        with self._lock:
            busy = [r for r in self.runs.values() if r.state == "running"]
            if busy:
                raise HTTPError(HTTPStatus.CONFLICT, f"run {busy[0].id} is still going: wait "
                                "for it to end or cancel it (one run at a time)")
            self._runs += 1
            run_id = str(self._runs)
            folder = new_folder(self.workdir / "runs", run_id)
            output = folder / release_name(t.label, fmt)
            try:
                cmd = command(body, t.source, t.columns, str(output))
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            run = Run(run_id, cmd.argv, cmd.text, folder, output)
            self.runs[run_id] = run
        return {"id": run_id, "command": cmd.text}

    def run(self, run_id: str) -> Any:
        r = self.runs.get(run_id)
        if r is None:
            raise HTTPError(HTTPStatus.NOT_FOUND, f"there is no run {run_id}: start one with "
                            "Run")
        return r

    def file(self, run_id: str, kind: str) -> Path:
        """A file of a finished run: ``release``, ``report.json`` or ``report.html``."""
        r = self.run(run_id)
        if r.state != "done":
            raise HTTPError(HTTPStatus.NOT_FOUND, f"run {run_id} wrote no files (it is "
                            f"{r.state})")
        paths = {"release": r.release, "report.json": Path(f"{r.release}.report.json"),
                 "report.html": Path(f"{r.release}.report.html")}
        if kind not in paths or not paths[kind].is_file():
            raise HTTPError(HTTPStatus.NOT_FOUND, f"run {run_id} has no file {kind!r}: "
                            "use release, report.json or report.html")
        return paths[kind]

    def close(self) -> None:
        """Cancel a run still going, wait for it, remove a temporary work folder."""
        for r in list(self.runs.values()):
            if r.cancel():
                r.wait(30)
        if self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Handler(BaseHTTPRequestHandler):
    """Routes requests to the server's :class:`App` (see the module docstring)."""

    server: Server
    protocol_version = "HTTP/1.1"
    server_version = "starmin-ui"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    # -- checks ---------------------------------------------------------------------------
    def _refused(self) -> str | None:
        """Why the request is refused (None: it is the page's own)."""
        host = self.headers.get("Host", "")
        if self.server.loopback:
            port = self.server.server_address[1]
            names = {f"{h}:{port}" for h in ("127.0.0.1", "localhost", "[::1]")}
            if self.server.host not in ("127.0.0.1", "::1", "localhost"):
                names.add(f"{self.server.host}:{port}")
            if host not in names:
                return (f"this server answers only requests to {self.server.url} (the "
                        f"request was for {host or 'no host'}); open that address")
        if self.command == "POST":
            origin = self.headers.get("Origin")
            if origin is not None and origin != f"http://{host}":
                return (f"a page from {origin} may not act on this server; open "
                        f"{self.server.url}")
            if self.headers.get("X-Starmin") != "1":
                return ("actions need the page's X-Starmin: 1 header (no request from "
                        f"other sites); use the page at {self.server.url}")
        return None

    # -- answers --------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, ctype: str, *, csp: str = APP_CSP,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: object, status: int = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _error(self, exc: BaseException) -> None:
        status, text = message(exc)
        self._json({"error": text}, status)

    def _body_json(self) -> dict[str, Any]:
        try:
            size = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            size = -1
        if size < 0 or size > MAX_JSON:
            self.close_connection = True
            raise HTTPError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                            "the request is too large: send the form only")
        try:
            data = json.loads(self.rfile.read(size) or b"{}")
        except ValueError:
            raise HTTPError(HTTPStatus.BAD_REQUEST, "the request is not JSON") from None
        if not isinstance(data, dict):
            raise HTTPError(HTTPStatus.BAD_REQUEST, "the request is not a JSON object")
        return data

    def _handle(self, route: Callable[[str, dict[str, list[str]]], None]) -> None:
        url = urlsplit(self.path)
        refused = self._refused()
        if refused:
            self.close_connection = True
            self._json({"error": f"refused: {refused}"}, HTTPStatus.FORBIDDEN)
            return
        query = parse_qs(url.query)
        if url.path == "/" and "key" in query:
            return self._take_key(query["key"][0])
        if not self._has_key() and not url.path.startswith("/static/") \
                and url.path != "/favicon.ico":
            self.close_connection = True
            if url.path in ("/", "/index.html") and self.command != "POST":
                return self._static("locked.html", HTTPStatus.FORBIDDEN)
            self._json({"error": "refused: open the address starmin ui printed when it "
                        "started (it ends in ?key=...): without the session's key nothing "
                        "is served"}, HTTPStatus.FORBIDDEN)
            return
        try:
            with command_line():  # messages name flags (--k 5), as on the command line
                route(url.path, query)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:
            if os.environ.get("STARMIN_DEBUG") and not isinstance(exc, StarminError
                                                                  | HTTPError):
                import traceback

                traceback.print_exc()
            self._error(exc)

    @property
    def _cookie(self) -> str:
        return f"starmin_ui_{self.server.server_address[1]}"  # one per server (port)

    def _has_key(self) -> bool:
        try:
            jar = SimpleCookie(self.headers.get("Cookie", ""))
        except CookieError:
            return False
        given = jar.get(self._cookie)
        return given is not None and secrets.compare_digest(given.value.encode(),
                                                            self.server.app.key.encode())

    def _take_key(self, key: str) -> None:
        """``/?key=...``: keep the key in a cookie and go to the page (a wrong key: the
        page that says how to open the interface)."""
        if not secrets.compare_digest(key.encode(), self.server.app.key.encode()):
            self.close_connection = True
            return self._static("locked.html", HTTPStatus.FORBIDDEN)
        self._send(HTTPStatus.SEE_OTHER, b"", "text/plain", extra={
            "Location": "/",
            "Set-Cookie": f"{self._cookie}={key}; Path=/; HttpOnly; SameSite=Strict"})

    def do_GET(self) -> None:
        self._handle(self._get)

    def do_HEAD(self) -> None:
        self._handle(self._get)

    def do_POST(self) -> None:
        self._handle(self._post)

    def _get(self, path: str, query: dict[str, list[str]]) -> None:
        app = self.server.app
        if path in ("/", "/index.html"):
            return self._static("index.html")
        if path.startswith("/static/"):
            return self._static(path.removeprefix("/static/"))
        if path == "/api/meta":
            return self._json(app.meta())
        m = re.fullmatch(r"/api/runs/(\d+)", path)
        if m:
            try:
                start = max(int(query.get("from", ["0"])[0]), 0)
            except ValueError:
                start = 0
            return self._json(app.run(m.group(1)).status(start))
        m = re.fullmatch(r"/runs/(\d+)/report", path)
        if m:
            page = app.file(m.group(1), "report.html").read_bytes()
            return self._send(HTTPStatus.OK, page, "text/html; charset=utf-8",
                              csp=REPORT_CSP, extra={"X-Frame-Options": "SAMEORIGIN"})
        m = re.fullmatch(r"/runs/(\d+)/files/(release|report\.json|report\.html)", path)
        if m:
            f = app.file(m.group(1), m.group(2))
            ctype = FILE_TYPES.get(f.suffix.lower(), "application/octet-stream")
            disposition = f"attachment; filename=\"{f.name}\"; filename*=UTF-8''{quote(f.name)}"
            return self._send(HTTPStatus.OK, f.read_bytes(), ctype,
                              csp="default-src 'none'; sandbox",
                              extra={"Content-Disposition": disposition})
        if path == "/favicon.ico":
            return self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        raise HTTPError(HTTPStatus.NOT_FOUND, f"no page {path}: open http://"
                        f"{self.headers.get('Host', '127.0.0.1')}/")

    def _static(self, name: str, status: int = HTTPStatus.OK) -> None:
        if name not in STATIC:
            raise HTTPError(HTTPStatus.NOT_FOUND, f"no file {name}")
        body = resources.files("starmin.ui").joinpath("static", name).read_bytes()
        self._send(status, body, STATIC[name])

    def _post(self, path: str, query: dict[str, list[str]]) -> None:
        app = self.server.app
        if path == "/api/upload":
            return self._upload(query)
        body = self._body_json()
        if path == "/api/open":
            return self._json(app.open(body))
        if path == "/api/upload-check":
            app.check_upload(str(body.get("name", "")), body.get("size"))
            return self._json({"ok": True})
        if path == "/api/run":
            return self._json(app.start(body))
        m = re.fullmatch(r"/api/runs/(\d+)/cancel", path)
        if m:
            return self._json({"cancelled": app.run(m.group(1)).cancel()})
        raise HTTPError(HTTPStatus.NOT_FOUND, f"no action {path}")

    def _upload(self, query: dict[str, list[str]]) -> None:
        name = query.get("name", [""])[0]
        kind = query.get("kind", ["table"])[0]
        try:
            size: int | None = int(self.headers.get("Content-Length", ""))
        except ValueError:
            size = None
        try:
            self.server.app.check_upload(name, size)
        except BaseException:
            self.close_connection = True  # the body is not read
            raise
        assert size is not None
        self._json(self.server.app.upload(name, kind, size, self.rfile.read))


class Server(ThreadingHTTPServer):
    """The threading HTTP server with its :class:`App` (IPv6 when the host is)."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, app: App, host: str, port: int, *, verbose: bool = False) -> None:
        self.app, self.host, self.verbose = app, host, verbose
        self.loopback = is_loopback(host)
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), Handler)

    @property
    def url(self) -> str:
        port = self.server_address[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1" if host == "0.0.0.0" else "[::1]"
        return f"http://{host}:{port}/"

    @property
    def start_url(self) -> str:
        """The address to open: :attr:`url` with the session's key."""
        return f"{self.url}?key={self.app.key}"


def make_server(app: App, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                *, verbose: bool = False) -> Server:
    """A server for ``app`` bound to ``host``:``port`` (0: any free port); a port in use or
    an address this machine does not have is one clear error."""
    try:
        return Server(app, host, port, verbose=verbose)
    except OSError as exc:
        import errno

        if exc.errno == errno.EADDRINUSE:
            raise InvalidInput(f"port {port} on {host} is in use (another starmin ui?): give "
                               "--port N, or --port 0 for any free port") from None
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(
                exc, socket.gaierror):
            raise InvalidInput(f"cannot listen on {host}: this machine has no such address; "
                               f"use the default --host {DEFAULT_HOST}") from None
        raise


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
          workdir: str | None = None, max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB,
          open_browser: bool = False, verbose: bool = False) -> int:
    """Serve the interface until Ctrl-C (or SIGTERM); return the exit status 0."""
    if not 0 <= port <= 65535:
        raise InvalidInput(f"--port {port} is not a port: give 1 to 65535, or 0 for any free "
                           "port")
    if max_upload_mb <= 0:
        raise InvalidInput(f"--max-upload-mb {max_upload_mb:g} must be above 0, e.g. "
                           f"--max-upload-mb {DEFAULT_MAX_UPLOAD_MB}")
    if not is_loopback(host):
        print(f"starmin ui: warning: listening on {host}, not only on this machine: the "
              "page, its key and your data cross the network unencrypted (plain HTTP), and "
              "anyone with the address can open files this account can read. Without --host "
              f"the interface is served on {DEFAULT_HOST} only.", file=sys.stderr, flush=True)
    app = App(workdir, max_upload=int(max_upload_mb * 10**6))
    server: Server | None = None
    thread: threading.Thread | None = None
    try:  # Ctrl-C (or SIGTERM) at any moment stops the server: it is how one stops it
        server = make_server(app, host, port, verbose=verbose)
        print(f"starmin ui: serving {server.start_url} (open it in your browser; Ctrl-C "
              "stops)", flush=True)
        where = "kept" if workdir else "removed when the server stops"
        print(f"starmin ui: uploads and releases go to {app.workdir} ({where})", flush=True)
        if open_browser:
            import webbrowser

            webbrowser.open(server.start_url)
        thread = threading.Thread(target=server.serve_forever, name="starmin-ui", daemon=True)
        thread.start()
        while thread.is_alive():
            thread.join(0.5)
    except KeyboardInterrupt:
        print("starmin ui: stopped", file=sys.stderr, flush=True)
    finally:
        if server is not None:
            if thread is not None and thread.is_alive():
                server.shutdown()  # waits for serve_forever: only when it runs
            server.server_close()
        app.close()
    return 0
