"""Errors raised by starmin.

Every error names the problem and how to fix it, in one message. The CLI turns a
:class:`StarminError` into a one-line message and exit status 2.
"""

from __future__ import annotations


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
