"""``starmin ui``: a local web interface (docs/ui.md).

* :mod:`starmin.ui.server` -- the HTTP server (standard library), on 127.0.0.1 by default;
* :mod:`starmin.ui.tables` -- opening a path, an upload or a sample, and its preview;
* :mod:`starmin.ui.form` -- the page's form as a ``starmin anonymize`` command line;
* :mod:`starmin.ui.runs` -- a run: that command line in a child process, its progress kept;
* ``static/`` -- the page, its script and its style (nothing is loaded from elsewhere);
* :mod:`starmin.ui.chromium` and :mod:`starmin.ui.screenshots` -- headless Chromium over the
  DevTools protocol, for the browser tests and ``python -m starmin.ui.screenshots OUT``.

Nothing here is imported by ``import starmin`` or by the other commands.
"""
