"""Method options: settings the user passes to the named method (``anonymize(...,
options={...})``, ``starmin anonymize --option NAME=VALUE``).

Each method reads and checks its own options (``Algorithm.options`` names them;
docs/options.md gives each one's type, default and effect); ``auto`` takes
``budget`` only (its work units, :data:`starmin.algorithms.portfolio.BUDGET` by default).
This module checks what can be checked before any data is read -- a mapping of option names,
none of them a parameter with a keyword of its own -- and reads the command line's
``NAME=VALUE`` text into a Python value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from starmin.errors import InvalidInput, on_command_line, param

OWN_KEYWORDS = ("seed", "progress", "objective", "time_limit", "method")
"""Settings with a parameter of their own, refused as options."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_options(options: object, method: object, attributes: bool) -> dict[str, Any]:
    """``options`` as a plain dict of method options; ``InvalidInput`` names a bad one and the
    fix: not a mapping, a name that is not an identifier, a setting that has its own
    parameter, options with ``attributes=True`` (which takes no method), or, under ``auto``,
    any option but ``budget``. Whether the named method knows an option (and its value's type
    and range) is the method's check, made when it runs."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InvalidInput(f"options={options!r} is not a mapping: pass a dict of the method's "
                           "options, e.g. options={'start': 'levels'}")
    for name in options:
        if not isinstance(name, str) or not _NAME.match(name):
            raise InvalidInput(f"option name {name!r} is not a name: use the method's option "
                               "names, e.g. start or budget")
        if name in OWN_KEYWORDS:
            own = ("anonymize()'s progress=" if name == "progress" else
                   param(name) if on_command_line() else f"{name}=")
            raise InvalidInput(f"{name!r} is not a method option: give it as {own} instead")
    if options and attributes:
        flag = "--attributes" if on_command_line() else "attributes=True"
        raise InvalidInput(f"options {sorted(options)} need a method, and {flag} takes none: "
                           f"drop the options or {flag}")
    if method == "auto" and set(options) - {"budget"}:
        raise InvalidInput(f"options {sorted(set(options) - {'budget'})} need a named method: "
                           "auto runs each method with its own settings (it takes budget= "
                           f"only); pass {param('method', 'NAME')}")
    return dict(options)


def parse_option(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` from the command line as ``(name, value)``: the value is an ``int``, a
    ``float``, ``True`` / ``False`` (``true`` / ``false``), ``None`` (``none``), a tuple of
    such values when it holds a comma (``spread,fill``), else the text itself."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not _NAME.match(name):
        raise InvalidInput(f"--option {text!r} is not NAME=VALUE: write e.g. --option "
                           "start=levels or --option budget=16")
    if "," in value:
        return name, tuple(_scalar(v.strip()) for v in value.split(",") if v.strip())
    return name, _scalar(value.strip())


def _scalar(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def options_text(options: Mapping[str, Any]) -> str:
    """``NAME=VALUE`` pairs as the command line takes them (for the report's summary)."""
    return " ".join(f"{k}={_text(v)}" for k, v in options.items())


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(_text(v) for v in value)
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    return str(value)
