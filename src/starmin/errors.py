"""Errors raised by starmin.

Every error names the problem and how to fix it, in one message. The CLI turns a
:class:`StarminError` into a one-line message and exit status 2.

Messages name a parameter the way the caller wrote it (:func:`param`): a Python caller reads
``k=0`` and ``use e.g. k=5``; a command-line user reads ``--k 0`` and ``use e.g. --k 5``. The CLI
runs each command inside :func:`command_line`; any other call is a Python call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction


class StarminError(Exception):
    """Base class of every error starmin raises on purpose."""


class InvalidInput(StarminError, ValueError):
    """The table, schema, hierarchy or a parameter is malformed."""


class Infeasible(StarminError):
    """No release of the input can satisfy the requested privacy model."""


class VerificationFailed(StarminError):
    """A release did not pass the independent verifier and was not written."""


class SolverLimit(StarminError):
    """An exact method was asked to solve an instance beyond its documented size limit."""


class NoProtection(UserWarning):
    """The privacy model holds for every class of the table, even a class of one row (e.g.
    ``k=1``, ``l=1``, ``t=1``): the release keeps every cell and protects nothing. A warning,
    not an error: such parameters are valid. The CLI prints it as ``starmin: warning: ...``."""


_ON_COMMAND_LINE: ContextVar[bool] = ContextVar("starmin_command_line", default=False)
_NO_VALUE = object()


@contextmanager
def command_line() -> Iterator[None]:
    """Within this block messages name command-line flags (``--k 5``)."""
    token = _ON_COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _ON_COMMAND_LINE.reset(token)


def on_command_line() -> bool:
    """True inside :func:`command_line`."""
    return _ON_COMMAND_LINE.get()


def param(name: str, value: object = _NO_VALUE) -> str:
    """``name`` (the Python keyword, e.g. ``l_kind``) with ``value`` as the caller writes it:
    ``l_kind='recursive'`` in Python, ``--l-kind recursive`` on the command line. Without a
    value just the name (``l_kind`` / ``--l-kind``). Values print as given: ``t=-0.1``."""
    if on_command_line():
        flag = "--" + name.replace("_", "-")
        return flag if value is _NO_VALUE else f"{flag} {_flag_value(value)}"
    return name if value is _NO_VALUE else f"{name}={_python_value(value)}"


def _plain(value: object) -> object:
    """A numpy scalar as the Python number it holds (``np.int64(0)`` prints as ``0``)."""
    item = getattr(value, "item", None)
    if type(value).__module__ == "numpy" and callable(item):
        return item()
    return value


def _flag_value(value: object) -> str:
    value = _plain(value)
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _python_value(value: object) -> str:
    value = _plain(value)
    if isinstance(value, Fraction):
        return f"Fraction('{value}')"
    return repr(value)
