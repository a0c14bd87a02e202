"""Built-in generalization hierarchies, chosen by a column's values.

Used for a QI column without a hierarchy file when generalization is asked for
(``--generalize``), and written out for editing by ``starmin hierarchy COL --from DATA``:

* ``intervals`` -- numbers (integers or floats): nested intervals whose width doubles from
  level to level. The finest width is the smallest 1, 2 or 5 x 10^e that cuts the range of
  the values into at most ``max(2, min(20, d // 2))`` intervals (``d`` distinct values;
  integers get width >= 2); intervals are aligned at multiples of their width, so each level
  coarsens the one below. Integer intervals read ``35-39`` (``[-10, -5[`` below zero), others
  ``[0.5, 1[``.
* ``mask`` -- fixed-width codes (every value's text has the same length >= 2 and holds a
  digit: zip codes, dates written as text): level ``i`` replaces the last ``i`` characters by
  ``*`` (``02138`` -> ``0213*`` -> ``021**`` ...).
* ``flat`` -- anything else (categories, booleans, a single value): value -> ``*``, i.e.
  suppression only.

For intervals and masks a level is kept only when it merges values (it has fewer nodes than
the level kept below it), and levels stop before one node would cover every value: that node
is the root ``*``. The missing value goes straight to the root (``;*;*;...``). The result is an
ordinary :class:`~starmin.transform.hierarchy.Hierarchy` (ARX rows), deterministic for a given
set of values.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction

import numpy as np

from starmin.errors import InvalidInput
from starmin.transform.hierarchy import Hierarchy

KINDS = ("auto", "intervals", "mask", "flat")
TOP = "*"
MAX_INTERVALS = 20
"""Most intervals at the finest level."""
MAX_LEVELS = 16
"""Most interval levels (the width doubles each level)."""


def _present(values: Sequence[object]) -> list[object]:
    """The values that are not missing (``None`` or NaN)."""
    return [v for v in values if v is not None and not (isinstance(v, float) and v != v)]


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def kind_of(values: Sequence[object]) -> str:
    """The built-in kind for a column's values: ``intervals``, ``mask`` or ``flat``."""
    present = _present(values)
    if len(set(present)) < 2:
        return "flat"
    if all(_number(v) for v in present):
        return "intervals"
    texts = [str(v) for v in present]
    width = len(texts[0])
    if width >= 2 and all(len(t) == width and any(ch.isdigit() for ch in t) for t in texts):
        return "mask"
    return "flat"


def builtin(values: Sequence[object], name: str = "", kind: str = "auto") -> Hierarchy:
    """The built-in hierarchy of ``kind`` (``auto``: :func:`kind_of`) over ``values`` (a
    column's distinct values; ``None`` is the missing value)."""
    if kind not in KINDS:
        raise InvalidInput(f"unknown hierarchy kind {kind!r}: use one of {', '.join(KINDS)}")
    chosen = kind_of(values) if kind == "auto" else kind
    uniq = list(dict.fromkeys(values))
    ordered = sorted(_present(uniq), key=_order)
    missing = len(ordered) < len(uniq)
    if chosen == "intervals":
        bad = next((v for v in ordered if not _number(v)), None)
        if bad is not None:
            raise InvalidInput(f"column {name!r} holds {bad!r}, not a number: interval "
                               "hierarchies need numbers; use --kind mask or flat")
        levels = _keep_merging(len(ordered), _interval_levels(ordered))
    elif chosen == "mask":
        levels = _keep_merging(len(ordered), _mask_levels(ordered, name))
    else:
        levels = []
    rows: list[tuple[object, ...]] = [(v, *(lab[i] for lab in levels), TOP)
                                      for i, v in enumerate(ordered)]
    if missing:
        rows.append((None, *(TOP for _ in levels), TOP))
    return Hierarchy(tuple(tuple(r) for r in rows), name,  # type: ignore[arg-type]
                     f"built-in {chosen}")


def _order(v: object) -> tuple[int, object]:
    return (0, v) if _number(v) else (1, str(v))


def _keep_merging(d: int, candidates: Iterator[list[str]]) -> list[list[str]]:
    """The candidate levels (labels per value) that merge values, stopping before a level
    with one node; ``d`` values at level 0."""
    kept: list[list[str]] = []
    below = d
    for labels in candidates:
        nodes = len(set(labels))
        if nodes <= 1:
            break
        if nodes < below:
            kept.append(labels)
            below = nodes
    return kept


# ---- intervals --------------------------------------------------------------------------------

def _interval_levels(ordered: Sequence[object]) -> Iterator[list[str]]:
    """Labels per value at widths ``w, 2w, 4w, ...`` (at most :data:`MAX_LEVELS`)."""
    integer = all(isinstance(v, int) for v in ordered)
    ints = np.array(ordered, dtype=np.int64) if integer else None
    nums = [] if integer else [_fraction(v) for v in ordered]
    span = _fraction(ordered[-1]) - _fraction(ordered[0])  # sorted
    target = max(2, min(MAX_INTERVALS, len(ordered) // 2))
    mant, exp = _nice(span / target, integer)
    for i in range(MAX_LEVELS):
        width = mant * 2 ** i * Fraction(10) ** exp
        if ints is not None:  # exact integer floor division
            idx = (ints // int(width)).tolist()
        else:
            idx = [math.floor(x / width) for x in nums]
        names = {k: _interval_name(k * width, width, integer) for k in dict.fromkeys(idx)}
        yield [names[k] for k in idx]


def _interval_name(lo: Fraction, width: Fraction, integer: bool) -> str:
    hi = lo + width
    if integer and lo >= 0:
        return f"{int(lo)}-{int(hi) - 1}"
    return f"[{_decimal(lo)}, {_decimal(hi)}["


def _fraction(v: object) -> Fraction:
    """A number exactly (ints and floats are exact binary fractions)."""
    assert isinstance(v, int | float)
    return Fraction(v)


def _nice(x: Fraction, integer: bool) -> tuple[int, int]:
    """The smallest ``mant x 10^exp >= x`` with ``mant`` in 1, 2, 5 (``>= 2`` for integers)."""
    if x <= 0:
        return (2, 0) if integer else (1, 0)
    exp = math.floor(math.log10(x)) - 1
    while True:
        for mant in (1, 2, 5):
            w = mant * Fraction(10) ** exp
            if w >= x and (not integer or (exp >= 0 and w >= 2)):
                return mant, exp
        exp += 1


def _decimal(x: Fraction) -> str:
    """A finite decimal fraction written exactly (``Fraction(1, 20)`` -> ``0.05``)."""
    if x.denominator == 1:
        return str(x.numerator)
    places = 0
    while (x * 10 ** places).denominator != 1:
        places += 1
    scaled = abs(x.numerator * 10 ** places // x.denominator)
    digits = str(scaled).rjust(places + 1, "0")
    text = f"{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")
    return ("-" if x < 0 else "") + text


# ---- masks ------------------------------------------------------------------------------------

def _mask_levels(ordered: Sequence[object], name: str) -> Iterator[list[str]]:
    texts = [str(v) for v in ordered]
    width = len(texts[0]) if texts else 0
    if width < 2 or any(len(t) != width for t in texts):
        raise InvalidInput(f"column {name!r} does not hold codes of one width (e.g. "
                           f"{sorted(set(texts), key=len)[:2]}): masking needs fixed-width "
                           "codes; use --kind flat or intervals")
    for i in range(1, width):
        yield [t[:width - i] + "*" * i for t in texts]
