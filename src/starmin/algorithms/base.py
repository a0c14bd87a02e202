"""What an algorithm module declares: its name, guarantee, supported models and solver."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

Progress = Callable[[str], None]
"""Receives one-line progress messages on long runs (the CLI prints them to stderr)."""


class Solver(Protocol):
    def __call__(
        self, rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
        progress: Progress | None = None, **options: Any,
    ) -> ReleasePlan: ...


@dataclass(frozen=True)
class AutoRun:
    """The run ``--method auto`` makes of one method (:mod:`starmin.algorithms.portfolio`).

    ``work`` is the estimated work in *work units* -- about one CPU second each on the
    reference machine (2-core AMD EPYC), but computed from the instance's size only (row types
    ``t_in``, QI columns ``m``, sensitive values ``s``, the model's parameters), never from a
    clock: the portfolio's choices, hence its release, are the same on every machine under
    any load. ``options`` are passed to the method's ``solve`` (e.g. a cap on LP iterations);
    ``note`` says in a few words what they change (empty: the method's defaults).
    """

    work: float
    options: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""


AutoPlan = Callable[[PrivacyModel, RowTypes, float], AutoRun]
"""``(model, rt, units_left) -> AutoRun``: how a method runs in the portfolio when
``units_left`` work units of the budget are left. A method with variants of different cost
returns the best one within ``units_left`` (or its cheapest, which the portfolio then skips
as over budget unless nothing has been released yet). Only called when ``supports`` passed."""


def fixed_work(estimate: Callable[[PrivacyModel, RowTypes], float]) -> AutoPlan:
    """An :data:`AutoPlan` for a method with one variant: its defaults, ``estimate`` units."""
    def plan(model: PrivacyModel, rt: RowTypes, units_left: float) -> AutoRun:
        return AutoRun(float(estimate(model, rt)))

    return plan


@dataclass(frozen=True)
class Algorithm:
    """A registry entry.

    ``supports(model, rt)`` returns ``None`` when the algorithm can solve the instance, or a
    sentence saying why not (wrong model, instance beyond the exact method's size limit).

    ``auto`` makes the method a member of the ``--method auto`` portfolio
    (:mod:`starmin.algorithms.portfolio`): it estimates the work of the method's run on an
    instance (:class:`AutoRun`). ``None`` keeps the method out of the portfolio (it runs only
    when named). Declaring it is all a new method needs to join.

    ``objectives`` names what the method can minimize (``--objective``): ``"stars"`` (cells
    at the root, the default) and, for methods that take hierarchy nodes into account,
    ``"loss"`` (Iyengar's loss, :mod:`starmin.transform.loss`). A method listing ``"loss"``
    accepts the option ``objective="stars" | "loss"`` in ``solve``.

    ``options`` names the method's own settings (``solve(..., NAME=VALUE)``, ``--option
    NAME=VALUE``); it refuses any other (tests/contract). ``starmin methods`` lists them.
    ``objective`` and ``time_limit``, which some methods take in ``solve`` too, are left out:
    the user gives them as ``--objective`` and ``--time-limit``.

    ``time_limit`` marks a method that honors a wall-clock limit the user asks for
    (``--time-limit SECONDS``, the option ``time_limit`` in ``solve``): it stops early with
    its best release and a proven bound, and says in the plan's guarantee that the release
    then depends on the clock. No method uses a clock unless asked.
    """

    name: str
    summary: str
    guarantee: Guarantee
    solve: Solver
    supports: Callable[[PrivacyModel, RowTypes], str | None]
    auto: AutoPlan | None = None
    objectives: tuple[str, ...] = ("stars",)
    time_limit: bool = False
    options: tuple[str, ...] = ()


def silent(_: str) -> None:
    """The default progress sink."""


def admit(name: str, supports: Callable[[PrivacyModel, RowTypes], str | None],
          model: PrivacyModel, rt: RowTypes, options: Mapping[str, Any],
          known: set[str]) -> None:
    """A solve's opening checks: no unknown option, an instance ``supports`` accepts
    (``InvalidInput`` naming the method), a feasible model (``Infeasible``)."""
    from starmin.errors import InvalidInput
    from starmin.models.apply import check_feasible

    known_options(name, options, known)
    reason = supports(model, rt)
    if reason is not None:
        raise InvalidInput(f"{name} cannot solve this instance: {reason}")
    check_feasible(model, rt)


def known_options(name: str, options: Mapping[str, Any], known: set[str]) -> None:
    """``InvalidInput`` naming ``name``'s unknown options and the ones it takes."""
    from starmin.errors import InvalidInput

    unknown = set(options) - known
    if unknown:
        takes = f"choose from {', '.join(sorted(known))}" if known else "it takes none"
        raise InvalidInput(f"unknown option(s) for {name}: {', '.join(sorted(unknown))}; "
                           f"{takes}")


def flag_option(name: str, options: Mapping[str, Any], option: str, default: bool) -> bool:
    """Option ``option`` of method ``name``: ``True`` or ``False`` (``InvalidInput``
    otherwise: a text such as ``"no"`` would read as true)."""
    import numpy as np

    from starmin.errors import InvalidInput

    value = options.get(option, default)
    if not isinstance(value, bool | np.bool_):
        raise InvalidInput(f"{name}: {option} must be true or false, got {value!r}")
    return bool(value)


def whole_option(name: str, options: Mapping[str, Any], option: str, default: int,
                 least: int = 0) -> int:
    """Option ``option`` of method ``name``: a whole number ``>= least`` (``InvalidInput``
    otherwise, naming it and the default)."""
    import numpy as np

    from starmin.errors import InvalidInput

    value = options.get(option, default)
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) \
            or value < least:
        raise InvalidInput(f"{name}: {option} must be a whole number >= {least}, got "
                           f"{value!r}: use e.g. {option}={default}")
    return int(value)


def deadline_after(seconds: float | None) -> float | None:
    """The ``time.monotonic()`` instant ``seconds`` from now (the user's time limit), or
    ``None`` without one."""
    import time

    return None if seconds is None else time.monotonic() + seconds


def seconds_until(end: float | None) -> float | None:
    """The seconds left before ``end`` (a ``time.monotonic()`` instant from the user's time
    limit), at least a millisecond so a solver given it still starts; ``None`` without one."""
    import time

    return None if end is None else max(end - time.monotonic(), 1e-3)


def check_time_limit(seconds: object) -> float:
    """A user's time limit as seconds: a positive finite number, else one clear error."""
    import math

    from starmin.errors import InvalidInput

    try:
        value = float(seconds)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(seconds, bool) or not math.isfinite(value) or value <= 0:
        raise InvalidInput(f"--time-limit {seconds!r} is not a time limit: give a positive "
                           "number of seconds, e.g. --time-limit 60")
    return value
