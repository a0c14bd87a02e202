"""Headless Chromium driven through the DevTools protocol on a pipe (no driver, no package).

Used by the browser tests (tests/ui/) and by :mod:`starmin.ui.screenshots`. Chromium started
with ``--remote-debugging-pipe`` reads protocol commands from its file descriptor 3 and
writes replies and events to descriptor 4, each message JSON ended by a NUL byte. So the
browser is driven with the standard library alone: no chromedriver (whose version must match
the browser's), no websocket, no port to open, no browser download — only the system's
``chromium`` binary (Debian package ``chromium``).

:func:`find_chromium` says where the binary is (``STARMIN_CHROMIUM`` overrides the search);
:class:`Browser` starts it with a new empty profile and no network services, opens one page,
and gives what a test needs: :meth:`~Browser.goto`, :meth:`~Browser.js`,
:meth:`~Browser.wait`, :meth:`~Browser.click` and :meth:`~Browser.type` (real mouse and key
input), :meth:`~Browser.set_files` (a file input), :meth:`~Browser.downloads_to` and
:meth:`~Browser.screenshot`. Waits are bounded by a timeout that only stops a hung test (an
error naming what was awaited); they never measure speed.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--hide-scrollbars",
         "--mute-audio", "--remote-debugging-pipe")
"""Chromium's flags: headless, no sandbox (runs as root in CI), no GPU, no network service of
its own (updates, sync, QUIC), the protocol on descriptors 3 and 4."""

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


class BrowserError(RuntimeError):
    """Chromium is missing, died, or a protocol command failed or timed out."""


def find_chromium() -> str | None:
    """The Chromium binary: ``$STARMIN_CHROMIUM`` if set, else the first of
    :data:`CANDIDATES` or ``chromium`` on the ``PATH`` that exists; ``None`` if none does."""
    given = os.environ.get("STARMIN_CHROMIUM")
    if given:
        return given if os.access(given, os.X_OK) else None
    for c in CANDIDATES:
        if os.access(c, os.X_OK):
            return c
    return shutil.which("chromium")


def _high(fd: int) -> int:
    """``fd`` moved to a descriptor >= 10 (close-on-exec), so the ``dup2`` calls that place
    the pipe ends at 3 and 4 (and the log at 1 and 2) in the child never overwrite a
    descriptor a later call reads."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


class Browser:
    """One headless Chromium with one page (a tab), closed by :meth:`close` or ``with``."""

    def __init__(self, binary: str | None = None, *, width: int = 1280, height: int = 900,
                 timeout: float = 60.0) -> None:
        path = binary or find_chromium()
        if path is None:
            raise BrowserError("no Chromium found: install the Debian package chromium "
                               "(apt-get install chromium) or set STARMIN_CHROMIUM")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="starmin-chromium-")
        to_child_r, to_child_w = (_high(fd) for fd in os.pipe())
        from_child_r, from_child_w = (_high(fd) for fd in os.pipe())
        log = _high(os.open(os.path.join(self.profile, "chromium.log"),
                            os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        argv = [path, *FLAGS, f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", "about:blank"]
        try:
            self.pid = os.posix_spawn(path, argv, dict(os.environ), file_actions=[
                (os.POSIX_SPAWN_DUP2, to_child_r, 3), (os.POSIX_SPAWN_DUP2, from_child_w, 4),
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, log, 1), (os.POSIX_SPAWN_DUP2, log, 2)])
        except OSError as exc:
            shutil.rmtree(self.profile, ignore_errors=True)
            raise BrowserError(f"cannot start {path}: {exc}") from None
        finally:
            for fd in (to_child_r, from_child_w, log):
                os.close(fd)
        self._out, self._in = to_child_w, from_child_r
        self._buf = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None
        self.downloads: Path | None = None
        """The folder downloads go to (:meth:`downloads_to`)."""
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
            attached = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)
            self.session = attached["sessionId"]
            self.send("Page.enable")
            self.send("Runtime.enable")
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": False})
        except BaseException:
            self.close()
            raise

    # -- the protocol -------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: bool = True) -> dict[str, Any]:
        """Send one command (to the page unless ``session=False``) and return its result."""
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session is not None:
            msg["sessionId"] = self.session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._out, data):]
        except OSError as exc:
            raise BrowserError(f"Chromium stopped reading commands ({exc}); see "
                               f"{self.profile}/chromium.log") from None
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline, method)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error'].get('message')}")
                return dict(reply.get("result", {}))
            if "method" in reply:
                self.events.append(reply)

    def _receive(self, deadline: float, what: str) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no reply from Chromium to {what} within {self.timeout} s")
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 16)
                if not chunk:
                    raise BrowserError(f"Chromium closed the pipe (during {what}); see "
                                       f"{self.profile}/chromium.log")
                self._buf += chunk
        raw, _, self._buf = self._buf.partition(b"\0")
        return dict(json.loads(raw))

    # -- pages ----------------------------------------------------------------------------
    def goto(self, url: str) -> None:
        """Open ``url`` and wait until its document has loaded."""
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"cannot open {url}: {result['errorText']}")
        self.wait("document.readyState === 'complete'", f"{url} to load")

    def js(self, expression: str) -> Any:
        """Evaluate ``expression`` in the page (promises awaited) and return its value."""
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text")
            raise BrowserError(f"JavaScript error in {expression!r}: {text}")
        return r.get("result", {}).get("value")

    def wait(self, condition: str, what: str, timeout: float | None = None) -> Any:
        """Poll the JavaScript ``condition`` until it is truthy; return its value (give a
        plain value: a DOM node comes back as an empty mapping, which is false). After
        ``timeout`` seconds (default the browser's) raise an error naming ``what``."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            value = self.js(condition)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {what} ({condition})")
            time.sleep(0.1)

    def _center(self, selector: str) -> tuple[float, float]:
        box = self.js(f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            if (!e) return null;
            e.scrollIntoView({{block: 'center', inline: 'center'}});
            const r = e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2, r.width * r.height];
        }})()""")
        if not box:
            raise BrowserError(f"no element matches {selector!r}")
        if not box[2]:
            raise BrowserError(f"the element {selector!r} is not visible")
        return float(box[0]), float(box[1])

    def click(self, selector: str) -> None:
        """Click the middle of the element ``selector`` with the (emulated) mouse."""
        x, y = self._center(selector)
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                                   "button": "left", "clickCount": 1})

    def type(self, selector: str, text: str) -> None:
        """Replace the text of the input ``selector`` as typed from the keyboard."""
        self.click(selector)
        self.js(f"document.querySelector({json.dumps(selector)}).select()")
        if text:
            self.send("Input.insertText", {"text": text})
        else:
            for kind in ("keyDown", "keyUp"):
                self.send("Input.dispatchKeyEvent", {"type": kind, "key": "Delete",
                                                     "code": "Delete",
                                                     "windowsVirtualKeyCode": 46})
        self.js(f"document.querySelector({json.dumps(selector)})"
                ".dispatchEvent(new Event('change', {bubbles: true}))")

    def choose(self, selector: str, value: str) -> None:
        """Pick ``value`` in the ``<select>`` ``selector`` (as the keyboard would)."""
        ok = self.js(f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            if (!e || ![...e.options].some(o => o.value === {json.dumps(value)})) return false;
            e.focus(); e.value = {json.dumps(value)};
            e.dispatchEvent(new Event('input', {{bubbles: true}}));
            e.dispatchEvent(new Event('change', {{bubbles: true}}));
            return true;
        }})()""")
        if not ok:
            raise BrowserError(f"no option {value!r} in {selector!r}")

    def set_files(self, selector: str, *paths: str | os.PathLike[str]) -> None:
        """Put files in the file input ``selector``, as a person choosing them would (the
        page sees its ``change`` event)."""
        doc = self.send("DOM.getDocument", {"depth": 0})
        node = self.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"],
                                               "selector": selector})
        if not node.get("nodeId"):
            raise BrowserError(f"no element matches {selector!r}")
        self.send("DOM.setFileInputFiles", {"nodeId": node["nodeId"],
                                            "files": [str(Path(p).resolve()) for p in paths]})

    def downloads_to(self, folder: str | os.PathLike[str]) -> None:
        """Save every download of this browser to ``folder``."""
        self.downloads = Path(folder).resolve()
        self.send("Browser.setDownloadBehavior", {"behavior": "allow",
                                                  "downloadPath": str(Path(folder).resolve())},
                  session=False)

    def screenshot(self, path: str | os.PathLike[str], *, full_page: bool = True) -> Path:
        """Save the page as a PNG at ``path`` (the whole page, not just the window)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.js("[document.documentElement.scrollWidth,"
                           " document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1],
                              "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        out = Path(path)
        out.write_bytes(base64.b64decode(data))
        return out

    # -- end ------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the browser, wait for it to end, remove its profile."""
        if getattr(self, "_out", None) is not None:
            with contextlib.suppress(BrowserError):
                self.send("Browser.close", session=False)
        for fd in (getattr(self, "_out", None), getattr(self, "_in", None)):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._out = self._in = None  # type: ignore[assignment]
        pid = getattr(self, "pid", None)
        if pid is not None:
            self._reap(pid)
            self.pid = None  # type: ignore[assignment]
        shutil.rmtree(self.profile, ignore_errors=True)

    @staticmethod
    def _reap(pid: int) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)  # our own child, that did not close in time
        os.waitpid(pid, 0)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
