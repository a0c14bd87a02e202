"""Column roles: identifier (dropped), quasi-identifier, sensitive, other (passed through)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from starmin.errors import InvalidInput


def _names(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(c.strip() for c in value.split(",") if c.strip())
    return tuple(value)


@dataclass(frozen=True)
class Schema:
    """The role of each column.

    Parameters
    ----------
    qi : quasi-identifier columns, in order (``m = len(qi)``).
    sensitive : sensitive attribute columns (zero or more).
    identifiers : columns dropped from every release.
    other : columns passed through unchanged; by default every column not named is ``other``.
    """

    qi: tuple[str, ...]
    sensitive: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        qi: str | Iterable[str],
        sensitive: str | Iterable[str] | None = None,
        identifiers: str | Iterable[str] | None = None,
    ) -> Schema:
        """Build a schema from names or comma-separated strings."""
        return cls(_names(qi), _names(sensitive), _names(identifiers))

    def __post_init__(self) -> None:
        if not self.qi:
            raise InvalidInput("no quasi-identifier columns given: name them with --qi COL,COL,...")
        roles: dict[str, str] = {}
        for role, cols in (("quasi-identifier", self.qi), ("sensitive", self.sensitive),
                           ("identifier", self.identifiers)):
            for c in cols:
                if c in roles:
                    what = "twice" if roles[c] == role else f"as {roles[c]} and as {role}"
                    raise InvalidInput(
                        f"column {c!r} is named {what}: give each column exactly one role"
                    )
                roles[c] = role

    @property
    def m(self) -> int:
        """Number of quasi-identifier columns."""
        return len(self.qi)

    def check_columns(self, columns: Sequence[str]) -> None:
        """Raise :class:`InvalidInput` if a named column is missing or the table has duplicates."""
        seen: set[str] = set()
        for c in columns:
            if c in seen:
                raise InvalidInput(
                    f"the table has two columns named {c!r}: rename one so every column is unique"
                )
            seen.add(c)
        for c in (*self.qi, *self.sensitive, *self.identifiers):
            if c not in seen:
                raise InvalidInput(
                    f"unknown column {c!r}: the table has columns {', '.join(columns)}"
                )

    def other(self, columns: Sequence[str]) -> tuple[str, ...]:
        """Columns of ``columns`` that pass through unchanged."""
        named = {*self.qi, *self.sensitive, *self.identifiers}
        return tuple(c for c in columns if c not in named)
