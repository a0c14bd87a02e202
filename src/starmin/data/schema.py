"""Column roles: identifier (dropped), quasi-identifier, sensitive, other (passed through)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starmin.errors import InvalidInput, param

if TYPE_CHECKING:  # the schema is read before polars is needed (e.g. starmin methods)
    import polars as pl

_ROLES = (("qi", "quasi-identifier"), ("sensitive", "sensitive"), ("identifiers", "identifier"))


def column_names(value: object, arg: str) -> tuple[str, ...]:
    """Column names from a list or a comma-separated string (``arg`` names the parameter in
    messages)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(c.strip() for c in value.split(",") if c.strip())
    if not isinstance(value, Iterable):
        raise InvalidInput(f"{param(arg, value)} is not a list of column names: name them, "
                           f"e.g. {param(arg, ['age', 'zip'])}")
    out = tuple(value)
    for c in out:
        if not isinstance(c, str):
            raise InvalidInput(f"{param(arg)} holds {c!r}, not a column name: name columns by "
                               f"their header text, e.g. {param(arg, ['age', 'zip'])}")
    return out


def unknown_column(name: str, columns: Sequence[str], source: object = None) -> InvalidInput:
    """The error for a column ``name`` that ``columns`` lacks: a close match when there is
    one, else (some of) the columns there are."""
    where = f" in {source}" if source is not None else ""
    lower = {c.lower(): c for c in columns}
    close = ([lower[name.lower()]] if name.lower() in lower
             else difflib.get_close_matches(name, list(columns), n=1, cutoff=0.6))
    if close:
        return InvalidInput(f"unknown column {name!r}{where}: did you mean {close[0]!r}?")
    shown = ", ".join(columns[:20]) + (f", ... ({len(columns)} in all)" if len(columns) > 20
                                       else "")
    return InvalidInput(f"unknown column {name!r}{where}: the columns are {shown}")


def read_as_pattern(name: str) -> bool:
    """Whether polars reads column name ``name`` as every column (``*``) or as a pattern
    (``^...$``), so that no role can be given to it."""
    return name == "*" or (name.startswith("^") and name.endswith("$"))


def dtype_problem(dtype: pl.DataType) -> str | None:
    """What is wrong with ``dtype`` for a QI or sensitive column (None if it holds plain
    values: text, numbers, booleans, dates, times, or nothing but missing values)."""
    import polars as pl

    if dtype.is_nested():
        return f"nested values ({dtype}); flatten it into plain columns first"
    if dtype == pl.Binary:
        return "raw bytes (Binary); decode it to text first"
    if dtype == pl.Object:
        return "Python objects; convert it to text or numbers first"
    if dtype == pl.Duration:
        return "durations; convert them to numbers (e.g. days) first"
    plain = (dtype.is_numeric() or dtype.is_temporal()
             or dtype in (pl.String, pl.Boolean, pl.Null, pl.Categorical)
             or isinstance(dtype, pl.Enum))
    return None if plain else f"values of type {dtype}; convert it to text or numbers first"


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
        return cls(column_names(qi, "qi"), column_names(sensitive, "sensitive"),
                   column_names(identifiers, "identifiers"))

    def __post_init__(self) -> None:
        if not self.qi:
            raise InvalidInput("no quasi-identifier columns given: name them, e.g. "
                               f"{param('qi', ['age', 'zip'])}")
        roles: dict[str, str] = {}
        for arg, role in _ROLES:
            for c in getattr(self, arg):
                if c in roles:
                    if roles[c] == role:
                        raise InvalidInput(f"column {c!r} is named twice in {param(arg)}: "
                                           "name each column once")
                    raise InvalidInput(f"column {c!r} is named as {roles[c]} and as {role}: "
                                       "give each column exactly one role")
                roles[c] = role
                if read_as_pattern(c):
                    raise InvalidInput(
                        f"column {c!r} cannot be given a role: starmin's table library reads "
                        "the name '*' as every column and a name from ^ to $ as a pattern; "
                        "rename the column (in the file's header or the table)")

    @property
    def m(self) -> int:
        """Number of quasi-identifier columns."""
        return len(self.qi)

    @property
    def named(self) -> tuple[str, ...]:
        """Every column given a role (QI, sensitive, identifier)."""
        return (*self.qi, *self.sensitive, *self.identifiers)

    def check_columns(self, columns: Sequence[str], source: object = None) -> None:
        """Raise :class:`InvalidInput` if a named column is missing or the table has duplicates
        (``source``, e.g. the file, is named in the message)."""
        seen: set[str] = set()
        for c in columns:
            if c in seen:
                where = f"{source} has" if source is not None else "the table has"
                raise InvalidInput(
                    f"{where} two columns named {c!r}: rename one so every column is unique"
                )
            seen.add(c)
        for c in self.named:
            if c not in seen:
                raise unknown_column(c, list(columns), source)

    def check_dtypes(self, dtypes: Mapping[str, pl.DataType], source: object = None) -> None:
        """Raise :class:`InvalidInput` if a QI or sensitive column does not hold plain values
        (lists, structs, bytes, objects); identifiers and other columns may hold anything."""
        where = f" of {source}" if source is not None else ""
        for arg, role in _ROLES[:2]:
            for c in getattr(self, arg):
                problem = dtype_problem(dtypes[c])
                if problem is not None:
                    raise InvalidInput(f"{role} column {c!r}{where} holds {problem}, or leave "
                                       f"it out of {param(arg)}")

    def other(self, columns: Sequence[str]) -> tuple[str, ...]:
        """Columns of ``columns`` that pass through unchanged."""
        named = set(self.named)
        return tuple(c for c in columns if c not in named)
