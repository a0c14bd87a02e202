"""From a table in the paper's row and column order to a :class:`PlantedInstance`.

The reductions are invariant under permuting rows, so the generated table lists its rows in a
seeded random order (a method cannot profit from the paper's order, e.g. ``X`` then ``Y`` then
``Z``); the QI columns keep the paper's order (they follow the source's edges, themselves drawn
in random order) and the sensitive column comes last. The witness is renumbered to the written
rows.
Also the parameter checks every family shares.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from starmin.datasets.planted.draws import shuffled
from starmin.datasets.planted.instance import Optimum, PlantedInstance, Value
from starmin.errors import InvalidInput, on_command_line, param


def assemble(rng: random.Random, *, family: str, title: str, reference: str, size: int,
             parameters: dict[str, Any], seed: int, planted: bool,
             qi: Sequence[str], sensitive: Sequence[str],
             rows: Sequence[Sequence[Value]], model_params: dict[str, Any],
             optimum: Optimum, witness: Sequence[Sequence[int]] | None,
             source: dict[str, Any],
             distance_matrix: Sequence[Sequence[float]] | None = None,
             kept_attributes: Sequence[str] | None = None,
             objective: str = "stars") -> PlantedInstance:
    """Shuffle the rows of ``rows`` (paper order; QI columns ``qi`` then the ``sensitive``
    ones; ``witness`` as 0-based paper row indices) and build the instance."""
    row_order = shuffled(rng, range(len(rows)))
    new_index = {old: new for new, old in enumerate(row_order)}
    groups = None
    if witness is not None:
        groups = tuple(sorted(tuple(sorted(new_index[i] for i in g)) for g in witness))
    return PlantedInstance(
        family=family, title=title, reference=reference, size=size, parameters=parameters,
        seed=seed, planted=planted, columns=(*qi, *sensitive),
        rows=tuple(tuple(rows[i]) for i in row_order), qi=tuple(qi),
        sensitive=tuple(sensitive), model_params=model_params, optimum=optimum,
        witness=groups, source=source,
        distance_matrix=(None if distance_matrix is None
                         else tuple(tuple(float(x) for x in r) for r in distance_matrix)),
        kept_attributes=None if kept_attributes is None else tuple(kept_attributes),
        objective=objective)


def flag(name: str, value: object) -> str:
    """A generator parameter as the caller wrote it (``--size 5`` / ``size=5``)."""
    return param(name, value)


def refuse(name: str, value: object, need: str, example: object) -> InvalidInput:
    """The error for a parameter out of its range: names it, the rule and an example."""
    return InvalidInput(f"{flag(name, value)} is out of range: {need}; e.g. "
                        f"{flag(name, example)}")


def whole(name: str, value: object) -> int:
    """``value`` as an int (``2.0`` is 2), or an error naming the parameter."""
    if isinstance(value, bool):
        raise InvalidInput(f"{flag(name, value)} is not a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise InvalidInput(f"{flag(name, value)} is not a whole number: give e.g. "
                       f"{flag(name, 4)}")


def decimal(name: str, value: object) -> Fraction:
    """``value`` as an exact number with a finite decimal expansion (``0.35``, ``"7/20"``,
    ``Fraction(1, 4)``): written to the JSON and to ``--t`` on the command line, it must read
    back exactly, which ``1/3`` would not."""
    try:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, float):
            x = Fraction(repr(value))
        elif isinstance(value, int | Fraction | Decimal):
            x = Fraction(value)
        elif isinstance(value, str):
            x = Fraction(value.strip())
        else:
            raise TypeError
    except (TypeError, ValueError, ZeroDivisionError, InvalidOperation):
        raise InvalidInput(f"{flag(name, value)} is not a number: give e.g. "
                           f"{flag(name, 0.25)}") from None
    d = x.denominator
    for q in (2, 5):
        while d % q == 0:
            d //= q
    if d != 1:
        raise InvalidInput(f"{flag(name, value)} has no finite decimal expansion, so the "
                           "command line could not pass it back exactly: give a decimal "
                           f"such as {flag(name, 0.35)}")
    return x


def as_float(x: Fraction) -> float:
    """A finite decimal as the float that prints as it (``7/20`` -> ``0.35``)."""
    return float(Decimal(x.numerator) / Decimal(x.denominator))


def unused(family: str, given: dict[str, Any], takes: Sequence[str],
           other: Sequence[str], plant: bool) -> None:
    """Refuse parameters the family does not take (they would be silently ignored);
    ``other`` are those it takes in the other planting mode."""
    extra = sorted(k for k, v in given.items() if v is not None and k not in takes)
    if not extra:
        return
    names = ", ".join(flag(k, given[k]) for k in extra)
    if all(k in other for k in extra):
        mode = "--no-plant" if on_command_line() else "plant=False"
        when = f"only with {mode}" if plant else f"only without {mode} (when planting)"
        raise InvalidInput(f"{names}: {family} uses {'it' if len(extra) == 1 else 'them'} "
                           f"{when}; drop {'it' if len(extra) == 1 else 'them'}")
    listed = ", ".join(param(k) for k in takes) or "none"
    raise InvalidInput(f"{names}: not a parameter of {family} (it takes {listed}); drop "
                       f"{'it' if len(extra) == 1 else 'them'}")
