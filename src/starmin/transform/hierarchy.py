"""Generalization hierarchies in ARX's CSV format.

A hierarchy file has no header; each line is one value of the column followed by its
ancestors, from the most specific to the most general::

    Bachelors;Undergraduate;Higher education;*
    Masters;Graduate;Higher education;*

Column 0 is the original value (level 0), column ``i`` its ancestor at level ``i``; the last
column is usually ``*``. The separator is ``;`` (ARX) and is sniffed: ``;``, tab or ``,``,
whichever the first line contains first. Fields may be quoted with ``"``.

Rules checked when a hierarchy is built (each violation raises
:class:`~starmin.errors.InvalidInput` naming the line and the fix):

* at least one line, every line with the same number of fields, at least two fields;
* every value appears on one line only;
* no empty ancestor label;
* levels are consistent: each level is a function of the level below it, i.e. two values that
  share an ancestor at level ``i`` share their ancestors at every level above ``i``.

Used as a QI column's generalization hierarchy (``--hierarchy COL=FILE``), a file must also be
a tree (:meth:`Hierarchy.check_tree`): one shared top (the root), and every label names one node
(a value is not also a group label, a group label sits at one level only). A line may reach
the top early and repeat it (``?;*;*;*``: the value generalizes straight to the root).

Missing values are a value of their own. The line whose first field is empty stands for the
missing value (null) of the column; a table with missing values needs such a line, e.g.
``;unknown;*``. Values are matched by their string form, so the line ``38;35-39;*`` covers
the integer 38; the empty string and the missing value share the empty-first-field line.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.errors import InvalidInput

MISSING = ""
"""First field of the line that stands for the missing value."""

_SNIFF = (";", "\t", ",")


def _key(value: object) -> str:
    """The string a table value is matched by: ``str(value)``; the missing value is ``""``."""
    if value is None or (isinstance(value, float) and value != value):
        return MISSING
    return value if isinstance(value, str) else str(value)


def _show(value: str) -> str:
    return "the missing value" if value == MISSING else f"value {value!r}"


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A validated generalization hierarchy for one column.

    Attributes
    ----------
    rows : one tuple per value, ``(value, level-1 ancestor, ..., top)``, all of length
        ``height``.
    name : the column it belongs to (used in error messages; may be empty).
    source : where it came from (a file path, used in error messages; may be empty).
    lines : the file line number of each row (for messages); defaults to 1, 2, ...

    Levels run from 0 (the value itself) to ``height - 1`` (the top, usually ``*``).
    Construction and validation take ``O(len(rows) * height)``; :meth:`generalize` and
    :meth:`index` take ``O(n)`` for ``n`` values (one hash lookup or array gather each).
    """

    rows: tuple[tuple[str, ...], ...]
    name: str = ""
    source: str = ""
    lines: tuple[int, ...] = field(default=(), repr=False)
    _index: dict[str, int] = field(init=False, repr=False)
    _codes: tuple[NDArray[np.int64], ...] = field(init=False, repr=False)
    _labels: tuple[tuple[str, ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        rows = tuple(tuple(_key(v) for v in r) for r in self.rows)
        object.__setattr__(self, "rows", rows)
        if len(self.lines) != len(rows):
            object.__setattr__(self, "lines", tuple(range(1, len(rows) + 1)))
        self._check_shape()
        object.__setattr__(self, "_index", self._build_index())
        self._check_consistent()
        codes, labels = [], []
        for level in range(self.height):
            # (len(rows),) code of each row's level-`level` label, in order of first appearance
            seen: dict[str, int] = {}
            codes.append(np.fromiter((seen.setdefault(r[level], len(seen)) for r in rows),
                                     dtype=np.int64, count=len(rows)))
            labels.append(tuple(seen))
        object.__setattr__(self, "_codes", tuple(codes))
        object.__setattr__(self, "_labels", tuple(labels))

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[object]], name: str = "",
                  source: str = "") -> Hierarchy:
        """Build from rows ``(value, level 1, ..., top)``; ``None`` as a value means missing."""
        return cls(tuple(tuple(_key(v) for v in r) for r in rows), name, source)

    @classmethod
    def read(cls, path: str | Path, separator: str | None = None,
             name: str | None = None) -> Hierarchy:
        """Read an ARX hierarchy CSV (no header; separator sniffed unless given).

        ``name`` defaults to the column named by an ARX file name ``*_hierarchy_<col>.csv``.
        """
        path = Path(path)
        if name is None:
            found = re.search(r"hierarchy_(.+)\.csv$", path.name)
            name = found.group(1) if found else ""
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise InvalidInput(f"hierarchy file {path} does not exist: check the path") from None
        except UnicodeDecodeError as exc:
            raise InvalidInput(
                f"hierarchy file {path} is not UTF-8 text ({exc.reason}): save it as UTF-8"
            ) from None
        return cls.parse(text, separator=separator, name=name, source=str(path))

    @classmethod
    def parse(cls, text: str, separator: str | None = None, name: str = "",
              source: str = "") -> Hierarchy:
        """Parse hierarchy CSV text; blank lines are skipped, line numbers kept for messages."""
        numbered = [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
        if not numbered:
            where = f"hierarchy file {source}" if source else "the hierarchy"
            raise InvalidInput(
                f"{where} is empty: write one line per value, e.g. 'value;group;*'"
            )
        sep = separator or next((s for s in _SNIFF if s in numbered[0][1]), ";")
        reader = csv.reader(io.StringIO("\n".join(line for _, line in numbered)),
                            delimiter=sep, quotechar='"')
        rows = [tuple(r) for r in reader]
        return cls(tuple(rows), name, source, tuple(i for i, _ in numbered))

    @classmethod
    def flat(cls, values: Iterable[object], name: str = "", top: str = "*") -> Hierarchy:
        """The two-level hierarchy ``value;*`` (suppression only) over ``values``."""
        uniq = dict.fromkeys(_key(v) for v in values)
        return cls(tuple((v, top) for v in uniq), name)

    # -- validation ------------------------------------------------------------------------
    def _where(self, row: int) -> str:
        return f"line {self.lines[row]}"

    def _label(self, column: str = "") -> str:
        name = self.name or column
        label = f"hierarchy for column {name!r}" if name else "hierarchy"
        return f"{label} ({self.source})" if self.source else label

    def _check_shape(self) -> None:
        if not self.rows:
            raise InvalidInput(
                f"{self._label()} is empty: write one line per value, e.g. 'value;group;*'"
            )
        h = len(self.rows[0])
        for i, r in enumerate(self.rows):
            if len(r) != h:
                raise InvalidInput(
                    f"{self._where(i)} of the {self._label()} has {len(r)} fields but "
                    f"{self._where(0)} has {h}: give every line the same number of levels"
                )
        if h < 2:
            raise InvalidInput(
                f"{self._label()} has a single field per line: add at least one level, e.g. "
                f"'{self.rows[0][0]};*' (if your file uses another separator, name it)"
            )
        for i, r in enumerate(self.rows):
            for level in range(1, h):
                if r[level] == "":
                    raise InvalidInput(
                        f"{self._where(i)} of the {self._label()} has an empty label at level "
                        f"{level}: give every level a label (e.g. '*')"
                    )

    def _build_index(self) -> dict[str, int]:
        index: dict[str, int] = {}
        for i, r in enumerate(self.rows):
            first = index.setdefault(r[0], i)
            if first != i:
                raise InvalidInput(
                    f"{_show(r[0])} appears on lines {self.lines[first]} and {self.lines[i]} "
                    f"of the {self._label()}: keep exactly one line per value"
                )
        return index

    def _check_consistent(self) -> None:
        for level in range(1, self.height - 1):
            seen: dict[str, int] = {}
            for i, r in enumerate(self.rows):
                j = seen.setdefault(r[level], i)
                if self.rows[j][level + 1] != r[level + 1]:
                    raise InvalidInput(
                        f"in the {self._label()}, {r[level]!r} (level {level}) has two "
                        f"parents: {self._where(j)} puts {r[level]!r} (level "
                        f"{level}) under {self.rows[j][level + 1]!r} but {self._where(i)} puts "
                        f"it under {r[level + 1]!r}: each level must be a function of the level "
                        f"below, so make both lines agree at level {level + 1}"
                    )

    def check_tree(self, column: str = "") -> None:
        """Raise :class:`InvalidInput` unless the hierarchy is a tree a release can use: one
        label at the top level (the root), and every other label naming one node -- not a
        value and a group label at once, not a group label at two levels. The top label may
        repeat on a line once reached (``x;*;*``: ``x`` generalizes straight to the root).
        ``column`` names the column in messages when the hierarchy has no name."""
        label = self._label(column)
        top = self.rows[0][-1]
        for i, r in enumerate(self.rows):
            if r[-1] != top:
                raise InvalidInput(
                    f"the {label} has more than one top: {self._where(0)} ends in {top!r} but "
                    f"{self._where(i)} ends in {r[-1]!r}; a hierarchy needs one shared root: "
                    f"add a last level '*' to every line (or end every line in {top!r})")
        first: dict[str, tuple[int, int]] = {}
        for i, r in enumerate(self.rows):
            for level, lab in enumerate(r):
                if lab == top:
                    if level == 0:
                        raise InvalidInput(self._collision(label, lab, (0, i), (1, 0), top))
                    if any(x != top for x in r[level:]):
                        nxt = next(x for x in r[level:] if x != top)
                        raise InvalidInput(
                            f"{self._where(i)} of the {label} reaches the top {top!r} at level "
                            f"{level} and then continues with {nxt!r}: once a line reaches "
                            f"the root it must stay there; rename the group {top!r} at level "
                            f"{level} or end the line in {top!r}")
                    break
                where = first.setdefault(lab, (level, i))
                if where[0] != level:
                    raise InvalidInput(self._collision(label, lab, where, (level, i), top))

    def _collision(self, label: str, lab: str, a: tuple[int, int], b: tuple[int, int],
                   top: str) -> str:
        """The message for a label ``lab`` naming two nodes (at (level, row) ``a`` and ``b``)."""
        (la, ra), (lb, rb) = sorted([a, b])
        what = {0: "a value"}
        if lab == top and la == 0:
            return (f"in the {label}, {_show(lab)} on {self._where(ra)} is also the label of the "
                    f"root (the top level): a released {lab!r} would be ambiguous; rename the "
                    "value or the root")
        return (f"in the {label}, {lab!r} names two nodes: "
                f"{what.get(la, f'a group at level {la}')} on {self._where(ra)} and "
                f"{what.get(lb, f'a group at level {lb}')} on {self._where(rb)}; a released "
                f"{lab!r} would be ambiguous: give the group a label of its own (e.g. "
                f"'{lab} (level {lb})')")

    # -- queries ---------------------------------------------------------------------------
    @property
    def height(self) -> int:
        """Number of levels including level 0 (the number of fields per line)."""
        return len(self.rows[0])

    @property
    def top(self) -> int:
        """The highest level, ``height - 1``."""
        return self.height - 1

    @property
    def values(self) -> tuple[str, ...]:
        """The original values (column 0), in file order; ``""`` is the missing value."""
        return tuple(r[0] for r in self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __contains__(self, value: object) -> bool:
        return _key(value) in self._index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hierarchy) and self.rows == other.rows

    def __hash__(self) -> int:
        return hash(self.rows)

    def labels(self, level: int) -> tuple[str, ...]:
        """The distinct labels at ``level``, in order of first appearance in the file."""
        return self._labels[self._level(level)]

    def level_codes(self, level: int) -> NDArray[np.int64]:
        """``(len(self),)``: the code (into :meth:`labels`) of each row's ancestor at ``level``."""
        return self._codes[self._level(level)]

    def ancestor(self, value: object, level: int) -> str:
        """The ancestor of ``value`` at ``level`` (level 0 returns the value's string form)."""
        level = self._level(level)
        key = _key(value)
        if key not in self._index:
            self._raise_uncovered([key])
        return self.rows[self._index[key]][level]

    def index(self, values: Iterable[object] | pl.Series, column: str = "") -> NDArray[np.int64]:
        """Row index of each value (``(len(values),)`` int64); raises if one has no row.

        ``column`` names the column in the error message when the hierarchy has no name.
        """
        if isinstance(values, pl.Series):
            if values.dtype.is_float():
                values = values.fill_nan(None)  # NaN is the missing value, as in the engine
            s = values.cast(pl.String).fill_null(MISSING)
            idx = s.replace_strict(list(self._index), list(self._index.values()), default=-1,
                                   return_dtype=pl.Int64).to_numpy()
            if (idx < 0).any():
                self._raise_uncovered(s.filter(pl.Series(idx < 0)).unique().sort().to_list(),
                                     column)
            return np.asarray(idx, dtype=np.int64)
        keys = [_key(v) for v in values]
        out = np.fromiter((self._index.get(k, -1) for k in keys), dtype=np.int64,
                          count=len(keys))
        if (out < 0).any():
            self._raise_uncovered(sorted({k for k, i in zip(keys, out, strict=True) if i < 0}),
                                 column)
        return out

    def check_covers(self, values: Iterable[object] | pl.Series, column: str = "") -> None:
        """Raise :class:`InvalidInput` unless every value has a row (``column`` for the message)."""
        self.index(values, column)

    @overload
    def generalize(self, values: NDArray[np.integer], level: int) -> NDArray[np.int64]: ...
    @overload
    def generalize(self, values: pl.Series, level: int) -> pl.Series: ...
    @overload
    def generalize(self, values: Sequence[object], level: int) -> list[str]: ...

    def generalize(self, values: Any, level: int) -> Any:
        """Map many values to their ancestors at ``level``, vectorized.

        * integer numpy array of row indices (see :meth:`index`): returns codes into
          :meth:`labels` ``(level)``, same shape;
        * polars Series: returns a String Series of labels (level 0 keeps the input as text,
          the missing value stays null);
        * any other sequence of values: returns a list of labels.
        """
        level = self._level(level)
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
            if values.size and (values.min() < 0 or values.max() >= len(self)):
                raise InvalidInput(
                    f"row index out of range for the {self._label()}: use 0..{len(self) - 1}"
                )
            return self._codes[level][values]
        if isinstance(values, pl.Series):
            idx = self.index(values)
            if level == 0:
                return values.cast(pl.String).rename(values.name)
            lab = pl.Series(values.name, self._labels[level], dtype=pl.String)
            return lab.gather(pl.Series(self._codes[level][idx]))
        idx = self.index(values)
        lab_l = self._labels[level]
        return [lab_l[c] for c in self._codes[level][idx]]

    def generalize_domain(self, domain: Sequence[object], level: int) -> NDArray[np.int64]:
        """Codes at ``level`` for a RowTypes domain: ``out[code]`` is the label code of
        ``domain[code]`` (``None`` in the domain is the missing value)."""
        return self.generalize(self.index(domain), level)

    # -- output ----------------------------------------------------------------------------
    def to_csv(self, separator: str = ";") -> str:
        """ARX CSV text (no header), quoting only where needed."""
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter=separator, lineterminator="\n")
        writer.writerows(self.rows)
        return buf.getvalue()

    def write(self, path: str | Path, separator: str = ";") -> None:
        """Write :meth:`to_csv` to ``path``."""
        Path(path).write_text(self.to_csv(separator), encoding="utf-8")

    # -- helpers ---------------------------------------------------------------------------
    def _level(self, level: int) -> int:
        if not 0 <= int(level) < self.height:
            raise InvalidInput(
                f"level {level} does not exist in the {self._label()}: use 0..{self.top}"
            )
        return int(level)

    def _raise_uncovered(self, missing: Sequence[str], column: str = "") -> None:
        missing = sorted(missing, key=lambda v: (v == MISSING, v))
        first = missing[0]
        line = f"'{first};...'" if first != MISSING else "';...' (empty first field)"
        if len(missing) == 1:
            what = _show(first)
        else:
            shown = ", ".join("the missing value" if v == MISSING else repr(v)
                              for v in missing[:5])
            what = f"{len(missing)} values ({shown}{', ...' if len(missing) > 5 else ''})"
        raise InvalidInput(
            f"{self._label(column)} has no row for {what}: add a line {line}"
            + (" for each of them" if len(missing) > 1 else "")
        )
