"""A generated instance: the table, the privacy model to use, and what is known of its optimum.

Pure Python (no numpy, polars or solver) until a table is asked for as a DataFrame
(:meth:`PlantedInstance.frame`) or the model as an object (:meth:`PlantedInstance.model`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from starmin.models.base import PrivacyModel

Value = int | str


@dataclass(frozen=True)
class Optimum:
    """What is known of the optimal number of stars (and, for attribute suppression, of
    whole columns).

    ``stars`` is the optimum when it is proven (``status == "exact"``), else None
    (``"unknown"`` in JSON). ``lower_bound`` / ``upper_bound`` are proven bounds on it (None
    when not known). ``argument`` says which directions of which proof give them.
    ``attributes``: for Meyerson & Williams' attribute version, the fewest whole QI columns
    to suppress (exact when planted), with ``attributes_lower_bound``.
    """

    stars: int | None
    lower_bound: int | None
    upper_bound: int | None
    argument: str
    attributes: int | None = None
    attributes_lower_bound: int | None = None

    @property
    def status(self) -> str:
        return "exact" if self.stars is not None else "unknown"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stars": self.stars if self.stars is not None else "unknown",
            "status": self.status,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "argument": self.argument,
        }
        if self.attributes is not None or self.attributes_lower_bound is not None:
            out["attributes"] = (self.attributes if self.attributes is not None
                                 else "unknown")
            out["attributes_lower_bound"] = self.attributes_lower_bound
        return out


@dataclass(frozen=True)
class PlantedInstance:
    """A table from a hardness reduction, with its model and known optimum.

    ``rows`` are tuples of ints and strings in the order of ``columns``; ``qi`` and
    ``sensitive`` name the columns' roles. ``model_params`` are the keyword parameters of
    :func:`starmin.anonymize` (``k``, ``l``, ``t``, ``distance``), ``distance_matrix`` the
    ground distance for ``distance="matrix"`` (rows in the natural order of the sensitive
    values). ``witness`` is the planted release as groups of 0-based row indices (None when
    nothing is planted); ``kept_attributes`` the planted QI columns kept by attribute
    suppression. ``source`` describes the combinatorial instance the table encodes.
    """

    family: str
    title: str
    reference: str
    size: int
    parameters: dict[str, Any]
    seed: int
    planted: bool
    columns: tuple[str, ...]
    rows: tuple[tuple[Value, ...], ...]
    qi: tuple[str, ...]
    sensitive: tuple[str, ...]
    model_params: dict[str, Any]
    optimum: Optimum
    witness: tuple[tuple[int, ...], ...] | None
    source: dict[str, Any]
    distance_matrix: tuple[tuple[float, ...], ...] | None = None
    kept_attributes: tuple[str, ...] | None = None
    objective: str = "stars"

    @property
    def n(self) -> int:
        """Number of rows."""
        return len(self.rows)

    def cli_flags(self, distance_matrix_file: str | None = None) -> list[str]:
        """The ``starmin anonymize`` flags for this instance's roles and model."""
        flags = ["--qi", ",".join(self.qi)]
        if self.sensitive:
            flags += ["--sensitive", ",".join(self.sensitive)]
        for name, value in self.model_params.items():
            flags += [f"--{name.replace('_', '-')}", str(value)]
        if self.distance_matrix is not None:
            flags += ["--distance-matrix", distance_matrix_file or "DISTANCE.csv"]
        return flags

    def as_dict(self, distance_matrix_file: str | None = None) -> dict[str, Any]:
        """Everything but the rows, for the JSON written beside the table."""
        out: dict[str, Any] = {
            "family": self.family,
            "title": self.title,
            "reference": self.reference,
            "size": self.size,
            "parameters": self.parameters,
            "seed": self.seed,
            "planted": self.planted,
            "rows": self.n,
            "columns": len(self.columns),
            "qi": list(self.qi),
            "sensitive": list(self.sensitive),
            "objective": self.objective,
            "model": dict(self.model_params),
        }
        if self.distance_matrix is not None:
            out["distance_matrix"] = [list(r) for r in self.distance_matrix]
            out["distance_matrix_file"] = distance_matrix_file
        out["anonymize_flags"] = " ".join(self.cli_flags(distance_matrix_file))
        out["optimum"] = self.optimum.as_dict()
        out["witness"] = None if self.witness is None else [list(g) for g in self.witness]
        if self.kept_attributes is not None:
            out["kept_attributes"] = list(self.kept_attributes)
        out["source"] = self.source
        return out

    def json_text(self, distance_matrix_file: str | None = None) -> str:
        """:meth:`as_dict` as JSON: one key per line, each list of numbers (or of such
        lists, as a witness) on one line."""
        return _dumps(self.as_dict(distance_matrix_file), "") + "\n"

    def csv_text(self, separator: str = ",") -> str:
        """The table as CSV text: a header line, then one line per row."""
        lines = [separator.join(self.columns)]
        lines += [separator.join(str(v) for v in row) for row in self.rows]
        return "\n".join(lines) + "\n"

    def matrix_text(self) -> str | None:
        """The ground distance as the square CSV ``--distance-matrix`` reads, or None."""
        if self.distance_matrix is None:
            return None
        return "".join(",".join(_number(x) for x in r) + "\n" for r in self.distance_matrix)

    def planted_release(self) -> tuple[tuple[Value, ...], ...] | None:
        """The witness released cell by cell: each group's QI cells kept where the group
        agrees, ``"*"`` elsewhere (None when nothing is planted)."""
        if self.witness is None:
            return None
        m = len(self.qi)
        out: list[tuple[Value, ...]] = list(self.rows)
        for group in self.witness:
            keep = [len({self.rows[i][j] for i in group}) == 1 for j in range(m)]
            for i in group:
                row = self.rows[i]
                out[i] = tuple(v if j >= m or keep[j] else "*" for j, v in enumerate(row))
        return tuple(out)

    def frame(self, rows: tuple[tuple[Value, ...], ...] | None = None) -> pl.DataFrame:
        """The table (or ``rows`` with its columns, e.g. :meth:`planted_release`) as a polars
        DataFrame: a column of whole numbers only is Int64, any other column String (as
        ``starmin`` reads the CSV back)."""
        import polars as pl

        rows = self.rows if rows is None else rows
        data: dict[str, Any] = {}
        schema: dict[str, Any] = {}
        for j, name in enumerate(self.columns):
            col = [row[j] for row in rows]
            if all(isinstance(v, int) for v in col):
                data[name], schema[name] = col, pl.Int64
            else:
                data[name], schema[name] = [str(v) for v in col], pl.String
        return pl.DataFrame(data, schema=schema)

    def model(self) -> PrivacyModel:
        """The privacy model to use, as a starmin model object."""
        from starmin import models as M

        p = self.model_params
        if "k" in p:
            return M.KAnonymity(int(p["k"]))
        if "l" in p:
            return M.LDiversity(int(p["l"]))
        if self.distance_matrix is not None:
            return M.TCloseness(p["t"], distance=M.MatrixDistance(self.distance_matrix))
        return M.TCloseness(p["t"])


def _dumps(value: Any, indent: str) -> str:
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = [f"{inner}{json.dumps(k)}: {_dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))
