"""Screenshots of each screen of ``starmin ui``, for a person to look at.

    python -m starmin.ui.screenshots OUT_FOLDER [--sample census] [--k 5]

Starts the interface on a free 127.0.0.1 port with a temporary work folder, drives it in
headless Chromium (:mod:`starmin.ui.chromium`; the system's ``chromium``, nothing
downloaded) through a whole run on a bundled sample, and saves one PNG per screen:

1. ``01-start.png`` -- the empty page: open a path, a sample or an upload;
2. ``02-columns.png`` -- the sample opened: preview and each column's role;
3. ``03-model.png`` -- the model filled in (k, and l on the sample's sensitive column);
4. ``04-progress.png`` -- the run's live progress (taken while it runs when it is still
   running once the first lines are in, else when it ends);
5. ``05-report.png`` -- the result: verdict, stars and bound, downloads, the report;
6. ``06-report-page.png`` -- the report page alone, whole;
7. ``07-error.png`` -- a bad field (``t = 1.5``) with the command line's message.

Exit status 0, or 2 with one line when Chromium is missing or a screen does not come.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from starmin.ui.chromium import Browser, BrowserError
from starmin.ui.server import App, make_server


def take(out: Path, sample: str, k: str, l: str) -> list[Path]:
    """Drive one whole run on ``sample:<sample>`` and save the screens to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    app = App()
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    shots: list[Path] = []
    try:
        with Browser(width=1280, height=900, timeout=120) as b:
            b.goto(server.start_url)
            b.wait("document.body.dataset.ready === '1'", "the page to start")
            shots.append(b.screenshot(out / "01-start.png"))
            b.choose("#sample", f"sample:{sample}")
            b.click("#open-sample-button")
            b.wait("!document.querySelector('#columns').hidden", "the table's preview")
            shots.append(b.screenshot(out / "02-columns.png"))
            b.type("#k", k)
            if l:
                b.type("#l", l)
            shots.append(b.screenshot(out / "03-model.png"))
            b.click("#run")
            b.wait("document.querySelector('#log').textContent.length > 0 || ['done', "
                   "'failed', 'cancelled'].includes(document.querySelector('#run-state')"
                   ".dataset.state)", "the first progress line")
            shots.append(b.screenshot(out / "04-progress.png"))
            state = b.wait("(s => s !== 'running' && s)(document.querySelector('#run-state')"
                           ".dataset.state)", "the run to end")
            if state != "done":
                raise BrowserError(f"the run ended {state}: "
                                   + str(b.js("document.querySelector('#progress-error')"
                                              ".textContent")))
            b.wait("(f => f.contentDocument && f.contentDocument.readyState === 'complete'"
                   " && f.contentDocument.querySelector('h1') !== null)(document.querySelector("
                   "'#report'))", "the report in the page")
            b.js("document.querySelector('#result').scrollIntoView()")
            shots.append(b.screenshot(out / "05-report.png"))
            run_id = b.js("document.querySelector('#report').src.split('/')[4]")
            b.goto(f"{server.url}runs/{run_id}/report")
            shots.append(b.screenshot(out / "06-report-page.png"))
            b.goto(server.start_url)
            b.wait("document.body.dataset.ready === '1'", "the page to start")
            b.choose("#sample", f"sample:{sample}")
            b.click("#open-sample-button")
            b.wait("!document.querySelector('#columns').hidden", "the table's preview")
            b.type("#t", "1.5")
            b.click("#run")
            b.wait("!document.querySelector('#progress-error').hidden || "
                   "!document.querySelector('#run-error').hidden", "the error message")
            shots.append(b.screenshot(out / "07-error.png"))
    finally:
        server.shutdown()
        server.server_close()
        app.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m starmin.ui.screenshots",
                                description="Save a PNG of each screen of starmin ui.")
    p.add_argument("out", help="folder for the PNG files (created if missing)")
    p.add_argument("--sample", default="census", help="bundled sample to run (default census)")
    p.add_argument("--k", default="5", help="k (default 5)")
    p.add_argument("--l", default="2", help="l on the sample's sensitive column (default 2; "
                   "empty: none)")
    ns = p.parse_args(argv)
    try:
        shots = take(Path(ns.out), ns.sample, ns.k, ns.l)
    except BrowserError as exc:
        print(f"screenshots: {exc}", file=sys.stderr)
        return 2
    for s in shots:
        print(s)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
