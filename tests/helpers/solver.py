"""A solver's answer moved on purpose, to show that a bound's own check rejects it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def shifted(solve: Callable[..., Any], by: float) -> Callable[..., Any]:
    """``solve`` whose answer (an array, or ``None``) is moved by ``by``."""
    def run(*args: Any, **kwargs: Any) -> Any:
        a = solve(*args, **kwargs)
        return None if a is None else a + by
    return run
