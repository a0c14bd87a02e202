"""The release plan: what an algorithm returns and the engine applies.

A plan is the integer solution ``x(v*, v, s)`` of Liang & Yuan's Theorem 9 (Sec. 4): for each
output vector ``v*``, input row type ``v`` and sensitive key ``s``, how many rows of ``(v, s)``
are released as ``v*``. Each output vector is one equivalence class of the release (equal
released vectors are one class to an attacker).

Each output cell is a node of its column's generalization hierarchy
(:mod:`starmin.data.hierarchies`, ``RowTypes.dgh``): the original code, an internal node (code
``>= card``, an ancestor of the value) or :data:`STAR`, the root. Suppression is the flat
hierarchy: a cell is its value or a star (Liang & Yuan Sec. 2), and :meth:`ReleasePlan.validate`
checks exactly that when the row types carry no hierarchies.

The cost is Liang & Yuan's Sec. 2 cost: the number of stars (cells at the root) in the
released table; the loss measures of a plan under hierarchies are :mod:`starmin.transform.loss`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from starmin.data.hierarchies import ROOT
from starmin.data.rowtypes import RowTypes

if TYPE_CHECKING:
    from starmin.models.base import PrivacyModel

STAR = ROOT
"""Code of a suppressed cell in an output vector: the root of the column's hierarchy (-1)."""

GuaranteeKind = Literal["exact", "fpt", "ratio", "bound", "heuristic"]


@dataclass(frozen=True)
class Guarantee:
    """What an algorithm proves about its output.

    ``kind``: ``exact`` (optimal), ``fpt`` (exact, running time exponential only in
    ``parameter``), ``ratio`` (cost <= ``ratio`` x OPT), ``bound`` (an additive or instance
    bound stated in ``statement``), ``heuristic`` (no bound; output still verified).

    ``ratio`` is the number a plan proves for its own instance; ``ratio_of(model, rt)`` is the
    same number computed from the instance before solving, so the registry entry of a ``ratio``
    algorithm states its ratio in a form a test can evaluate (tests/contract checks
    ``stars <= ratio_of(model, rt) x OPT`` against brute force). :meth:`as_dict` leaves
    ``ratio_of`` out (a function is not JSON).
    """

    kind: GuaranteeKind
    statement: str
    reference: str = ""
    ratio: float | None = None
    parameter: str | None = None
    ratio_of: Callable[[PrivacyModel, RowTypes], float] | None = field(
        default=None, compare=False, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "statement": self.statement, "reference": self.reference,
                "ratio": self.ratio, "parameter": self.parameter}


@dataclass(frozen=True, eq=False)
class ReleasePlan:
    """Output vectors and the sparse assignment of (row type, key) counts to them.

    Attributes
    ----------
    outputs : ``(t_out, m)`` int32; node code of each released cell: the value's code, an
        internal node of the column's hierarchy (``>= card``) or :data:`STAR` (the root).
    out_idx, type_idx, key_idx, count : ``(nnz,)`` arrays; ``count`` rows of row type
        ``type_idx`` with sensitive key ``key_idx`` are released as ``outputs[out_idx]``.
    method : registry name of the algorithm.
    guarantee : what the algorithm proves.
    lower_bound : a proven lower bound on the optimal number of stars, if any.
    certificate : algorithm-specific facts behind the guarantee (JSON-serialisable).
    """

    outputs: NDArray[np.int32]
    out_idx: NDArray[np.int64]
    type_idx: NDArray[np.int64]
    key_idx: NDArray[np.int64]
    count: NDArray[np.int64]
    method: str
    guarantee: Guarantee
    lower_bound: int | None = None
    certificate: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, dt in (("outputs", np.int32), ("out_idx", np.int64), ("type_idx", np.int64),
                         ("key_idx", np.int64), ("count", np.int64)):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=dt))

    # -- cost ------------------------------------------------------------------------------
    @property
    def t_out(self) -> int:
        """Number of output vectors (released equivalence classes)."""
        return int(self.outputs.shape[0])

    @property
    def stars_per_output(self) -> NDArray[np.int64]:
        """``(t_out,)`` stars (cells at the root) in each output vector."""
        return (self.outputs == STAR).sum(axis=1).astype(np.int64)

    @property
    def class_sizes(self) -> NDArray[np.int64]:
        """``(t_out,)`` rows released as each output vector."""
        return np.bincount(self.out_idx, weights=self.count, minlength=self.t_out).astype(np.int64)

    @property
    def stars(self) -> int:
        """Cost: suppressed cells in the release (Liang & Yuan Sec. 2)."""
        return int((self.class_sizes * self.stars_per_output).sum())

    @property
    def suppressed_records(self) -> int:
        """Rows with at least one star (Xiao et al.'s tuple count, Sec. 3)."""
        return int(self.class_sizes[self.stars_per_output > 0].sum())

    @property
    def fully_suppressed_records(self) -> int:
        """Rows whose every QI cell is a star."""
        m = self.outputs.shape[1]
        return int(self.class_sizes[self.stars_per_output == m].sum())

    def class_key_counts(self, s: int) -> NDArray[np.int64]:
        """``(t_out, s)`` rows per (output vector, sensitive key)."""
        out = np.zeros((self.t_out, s), dtype=np.int64)
        np.add.at(out, (self.out_idx, self.key_idx), self.count)
        return out

    # -- checks ----------------------------------------------------------------------------
    def validate(self, rt: RowTypes) -> None:
        """Raise ``ValueError`` unless the plan releases every row exactly once, and every
        output vector generalizes the row types assigned to it: each cell is the row's value or
        a star, or, when ``rt`` carries hierarchies, one of the value's ancestors."""
        if self.outputs.ndim != 2 or self.outputs.shape[1] != rt.m:
            raise ValueError(f"outputs must be (t_out, {rt.m}), got {self.outputs.shape}")
        if (self.count < 0).any():
            raise ValueError("negative count in plan")
        used = np.zeros_like(rt.counts)
        np.add.at(used, (self.type_idx, self.key_idx), self.count)
        if not np.array_equal(used, rt.counts):
            raise ValueError("plan does not release every row exactly once")
        live = self.count > 0
        o = self.outputs[self.out_idx[live]]
        c = rt.codes[self.type_idx[live]]
        ok = (o == c) | (o == STAR) if rt.hierarchies is None else rt.hierarchies.covers(o, c)
        if not ok.all():
            raise ValueError("an output vector does not generalize a row type assigned to it "
                             "(each cell must be the row's value, an ancestor of it, or STAR)")

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_groups(
        cls,
        rt: RowTypes,
        groups: Sequence[tuple[NDArray[np.integer], NDArray[np.integer], NDArray[np.integer]]],
        method: str,
        guarantee: Guarantee,
        lower_bound: int | None = None,
        certificate: Mapping[str, Any] | None = None,
    ) -> ReleasePlan:
        """Build a plan from a partition given as groups.

        Each group is ``(type_idx, key_idx, count)`` arrays. Its output vector is the group's
        *suppressor* (Liang & Yuan Sec. 2): a star in every column where the group's row
        types differ. Groups whose suppressors coincide are one released class, so they are
        merged here. (Vectorized: one pass over all groups' entries, the suppressors as
        per-group column minima and maxima; the same plan as building each group's
        suppressor in turn.)
        """
        if not groups:
            return cls.from_vectors(rt, [], [], method, guarantee, lower_bound, certificate)
        sizes = np.fromiter((len(g[0]) for g in groups), dtype=np.int64, count=len(groups))
        ti, ki, cnt = (np.concatenate([g[j] for g in groups]) for j in range(3))
        gid = np.repeat(np.arange(len(groups), dtype=np.int64), sizes)
        return cls.from_entries(rt, ti, ki, cnt, gid, method, guarantee, lower_bound,
                                certificate)

    @classmethod
    def from_entries(
        cls,
        rt: RowTypes,
        ti: NDArray[np.integer],
        ki: NDArray[np.integer],
        cnt: NDArray[np.integer],
        gid: NDArray[np.integer],
        method: str,
        guarantee: Guarantee,
        lower_bound: int | None = None,
        certificate: Mapping[str, Any] | None = None,
    ) -> ReleasePlan:
        """:meth:`from_groups` with the groups given as flat arrays: entry ``i`` is ``cnt[i]``
        rows of row type ``ti[i]`` with key ``ki[i]`` in group ``gid[i]``, each group's
        entries contiguous. The plan depends only on the multiset of (group suppressor, type,
        key, count), not on the order of the groups or of the entries (output vectors come in
        lexicographic order, assignments sorted and summed by :meth:`compact`)."""
        m = rt.m
        ti, ki, cnt, gid = (np.asarray(a).astype(np.int64, copy=False)
                            for a in (ti, ki, cnt, gid))
        keep = cnt > 0
        ti, ki, cnt, gid = ti[keep], ki[keep], cnt[keep], gid[keep]
        if len(ti) == 0:
            return cls.from_vectors(rt, [], [], method, guarantee, lower_bound, certificate)
        first = np.r_[True, gid[1:] != gid[:-1]]
        starts = np.flatnonzero(first)
        codes = rt.codes[ti]                                          # (entries, m)
        lo = np.minimum.reduceat(codes, starts, axis=0)
        hi = np.maximum.reduceat(codes, starts, axis=0)
        vec = np.where(lo == hi, lo, STAR).astype(np.int32).reshape(len(starts), m)
        uniq, inv = unique_rows(vec)
        out_idx = np.asarray(inv).reshape(-1)[np.cumsum(first) - 1]
        return cls(uniq, out_idx, ti, ki, cnt, method, guarantee, lower_bound,
                   dict(certificate or {})).compact()

    @classmethod
    def from_vectors(
        cls,
        rt: RowTypes,
        vectors: Sequence[NDArray[np.integer]],
        parts: Sequence[tuple[NDArray[np.integer], NDArray[np.integer], NDArray[np.integer]]],
        method: str,
        guarantee: Guarantee,
        lower_bound: int | None = None,
        certificate: Mapping[str, Any] | None = None,
    ) -> ReleasePlan:
        """Build a plan from explicit output vectors, merging equal vectors into one class."""
        m = rt.m
        if vectors:
            V = np.asarray(np.stack([np.asarray(v) for v in vectors]), dtype=np.int32)
        else:
            V = np.zeros((0, m), dtype=np.int32)
        uniq, inv = unique_rows(V) if len(V) else (V, np.zeros(0, dtype=np.int64))
        inv = np.asarray(inv).reshape(-1)
        sizes = [len(np.asarray(p[0])) for p in parts]
        oi = np.repeat(inv, sizes) if parts else np.zeros(0, np.int64)

        def cat(j: int) -> NDArray[np.int64]:
            if not parts:
                return np.zeros(0, np.int64)
            return np.concatenate([np.asarray(p[j], dtype=np.int64) for p in parts])

        plan = cls(uniq, oi, cat(0), cat(1), cat(2), method, guarantee, lower_bound,
                   dict(certificate or {}))
        return plan.compact()

    def compact(self) -> ReleasePlan:
        """Sum duplicate (output, type, key) entries and drop zero counts."""
        if len(self.count) == 0:
            return self
        s = int(self.key_idx.max()) + 1
        t = int(self.type_idx.max()) + 1
        flat = (self.out_idx * t + self.type_idx) * s + self.key_idx
        u, inv = np.unique(flat, return_inverse=True)
        cnt = np.bincount(inv.reshape(-1), weights=self.count).astype(np.int64)
        keep = cnt > 0
        u, cnt = u[keep], cnt[keep]
        return ReleasePlan(self.outputs, u // (t * s), (u // s) % t, u % s, cnt, self.method,
                           self.guarantee, self.lower_bound, self.certificate)

    def with_info(self, **changes: Any) -> ReleasePlan:
        """A copy with ``method``, ``guarantee``, ``lower_bound`` or ``certificate`` replaced."""
        return ReleasePlan(self.outputs, self.out_idx, self.type_idx, self.key_idx, self.count,
                           changes.get("method", self.method),
                           changes.get("guarantee", self.guarantee),
                           changes.get("lower_bound", self.lower_bound),
                           changes.get("certificate", self.certificate))


def unique_rows(a: NDArray[np.integer]) -> tuple[NDArray[Any], NDArray[np.int64]]:
    """``np.unique(a, axis=0, return_inverse=True)`` for a 2-D integer array, the same arrays
    (rows in lexicographic order, each row's index among them), by a ``lexsort`` of the
    columns: several times faster than numpy's sort of the rows as opaque records."""
    a = np.asarray(a)
    g, m = a.shape
    if g == 0 or m == 0:
        u, inv = np.unique(a, axis=0, return_inverse=True)
        return u, np.asarray(inv, dtype=np.int64).reshape(-1)
    order = np.lexsort(a.T[::-1])
    ordered = a[order]
    new = np.empty(g, dtype=bool)
    new[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    inv = np.empty(g, dtype=np.int64)
    inv[order] = np.cumsum(new) - 1
    return ordered[new], inv


def suppressor(codes: NDArray[np.integer]) -> NDArray[np.int32]:
    """The suppressor of a set of QI vectors ``(g, m)``: the common value or STAR per column."""
    codes = np.asarray(codes)
    same = (codes == codes[0]).all(axis=0)
    return np.where(same, codes[0], STAR).astype(np.int32)


def group_cost(codes: NDArray[np.integer], size: int) -> int:
    """Stars of one group: ``size`` x number of non-constant columns (Liang & Yuan Sec. 2)."""
    codes = np.asarray(codes)
    return int(size * int((~(codes == codes[0]).all(axis=0)).sum()))
