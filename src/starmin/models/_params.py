"""Parameter checks and value ordering shared by the models (private).

Thresholds that decide privacy are kept exact: a real parameter such as ``t = 0.1`` is taken as
the decimal number the user wrote (``Fraction("0.1") == 1/10``), never as the binary float
nearest to it, so a class whose EMD is exactly ``1/10`` passes ``t = 0.1``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from numbers import Rational

import numpy as np
from numpy.typing import NDArray

from starmin.errors import InvalidInput, param

INT64_SAFE = 2**62
"""Products below this bound cannot overflow int64; above it we switch to Python ints."""


def whole(name: str, value: object, minimum: int, example: int) -> int:
    """``value`` as a Python int ``>= minimum`` (``2.0`` is accepted as ``2``); the error names
    the parameter as the caller wrote it (``k=0`` or ``--k 0``) and an ``example`` value."""
    integral = not isinstance(value, bool) and (
        isinstance(value, int | np.integer)
        or (isinstance(value, float | np.floating) and float(value).is_integer()))
    if not integral:
        raise InvalidInput(f"{param(name, value)} is not a whole number: {param(name)} must be "
                           f"a whole number >= {minimum}, e.g. {param(name, example)}")
    out = int(value)  # type: ignore[call-overload]
    if out < minimum:
        raise InvalidInput(f"{param(name, value)} is too small: {param(name)} must be >= "
                           f"{minimum}, e.g. {param(name, example)}")
    return out


def exact(name: str, value: object, example: object) -> Fraction:
    """``value`` as an exact rational: floats are read as the shortest decimal that prints as
    them (``0.1`` -> ``1/10``); ints, Fractions, Decimals and numeric strings exactly."""
    try:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, float | np.floating):
            if not math.isfinite(float(value)):
                raise ValueError
            return Fraction(repr(float(value)))
        if isinstance(value, int | np.integer):
            return Fraction(int(value))
        if isinstance(value, Rational | Decimal):
            return Fraction(value)
        if isinstance(value, str):
            return Fraction(value.strip())
    except (TypeError, ValueError, ZeroDivisionError):
        pass
    raise InvalidInput(f"{param(name, value)} is not a finite number: use e.g. "
                       f"{param(name, example)}")


def fraction_bounds(name: str, given: object, value: Fraction, lo: Fraction,
                    hi: Fraction | None, example: object, lo_open: bool = False) -> None:
    """Raise unless ``lo <= value <= hi`` (``lo < value`` when ``lo_open``); the message shows
    the value as ``given`` (``t=-0.1``, not ``-1/10``)."""
    bad = value <= lo if lo_open else value < lo
    if hi is not None and value > hi:
        bad = True
    if bad:
        rng = (f"{'>' if lo_open else '>='} {lo}" if hi is None
               else f"between {lo} and {hi}")
        raise InvalidInput(f"{param(name, given)} is out of range: {param(name)} must be {rng}, "
                           f"e.g. {param(name, example)}")


def show(value: object) -> str:
    """A value as it should appear in messages (the missing value is named)."""
    return "the missing value" if value is None else repr(value)


def _natural_key(v: object) -> tuple[bool, object]:
    return (v is None, v)


def _fallback_key(v: object) -> tuple[bool, str, str]:
    return (v is None, type(v).__name__, str(v))


def natural_order(values: Sequence[object]) -> NDArray[np.int64]:
    """Rank of each value in the natural sort order (numbers numerically, strings
    lexicographically, the missing value last; mixed types by type name, then text)."""
    idx = list(range(len(values)))
    try:
        idx.sort(key=lambda i: _natural_key(values[i]))
    except TypeError:
        idx.sort(key=lambda i: _fallback_key(values[i]))
    rank = np.empty(len(values), dtype=np.int64)
    rank[np.asarray(idx, dtype=np.int64)] = np.arange(len(values), dtype=np.int64)
    return rank


def text_key(value: object) -> str:
    """The string a sensitive value is matched by in hierarchies and value lists:
    ``str(value)``; the missing value (None or NaN) is ``""``."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return value if isinstance(value, str) else str(value)


def as_counts(hist: object, overall: object) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(classes, |S|)`` and ``(|S|,)`` int64 count arrays, checked for shape and sign."""
    h = np.asarray(hist, dtype=np.int64)
    if h.ndim == 1:
        h = h[None, :]
    o = np.asarray(overall, dtype=np.int64).reshape(-1)
    if h.ndim != 2 or h.shape[1] != o.shape[0]:
        raise InvalidInput(f"class histogram has shape {h.shape} but the overall histogram has "
                           f"{o.shape[0]} values: pass one count column per sensitive value")
    if (h.size and h.min() < 0) or (o.size and o.min() < 0):
        raise InvalidInput("negative count in a histogram: counts must be >= 0")
    return h, o
