"""Row types (Bredereck et al., Sec. 2): distinct quasi-identifier vectors with counts.

A table with ``n`` rows and ``m`` quasi-identifier (QI) columns has ``t_in`` distinct QI
vectors, its *input row types*. Real tables have ``t_in << n``, so every algorithm works on
:class:`RowTypes` and never on rows.

Sensitive attributes are folded into one *sensitive key*: the distinct combinations of the
sensitive columns. ``counts[i, j]`` is the number of rows of row type ``i`` whose sensitive
columns take key ``j``; ``keys[j, a]`` is the code of sensitive column ``a`` in key ``j``.
With one sensitive column the keys are its values. With none there is one key, and
``counts`` has one column.

Generalization hierarchies (:mod:`starmin.data.hierarchies`) travel with the row types: an
algorithm reads :attr:`RowTypes.dgh` (flat, i.e. suppression only, unless hierarchies were
attached with :meth:`RowTypes.with_hierarchies`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from starmin.data.hierarchies import Hierarchies

IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class RowTypes:
    """The aggregated table.

    Attributes
    ----------
    qi : QI column names, length ``m``.
    codes : ``(t_in, m)`` int32; ``codes[i, c]`` indexes ``domains[c]``.
    counts : ``(t_in, s)`` int64; rows per (row type, sensitive key), all row sums >= 1.
    domains : per QI column, the decoded value of each code (``None`` is the missing value).
        Codes follow the natural sort order of the values, missing last.
    sensitive : sensitive column names (may be empty).
    keys : ``(s, len(sensitive))`` int32; code of each sensitive column in each key.
    sensitive_domains : per sensitive column, the decoded value of each code, sorted, missing last.
    hierarchies : the QI columns' generalization hierarchies over node codes, or ``None`` for
        suppression only (the default; :attr:`dgh` is then flat).
    """

    qi: tuple[str, ...]
    codes: NDArray[np.int32]
    counts: IntArray
    domains: tuple[tuple[object, ...], ...]
    sensitive: tuple[str, ...] = ()
    keys: NDArray[np.int32] = field(default_factory=lambda: np.zeros((1, 0), dtype=np.int32))
    sensitive_domains: tuple[tuple[object, ...], ...] = ()
    hierarchies: Hierarchies | None = None

    def __post_init__(self) -> None:
        codes = np.ascontiguousarray(self.codes, dtype=np.int32)
        counts = np.ascontiguousarray(self.counts, dtype=np.int64)
        keys = np.ascontiguousarray(self.keys, dtype=np.int32)
        if codes.ndim != 2 or codes.shape[1] != len(self.qi):
            raise ValueError(f"codes must be (t_in, {len(self.qi)}), got {codes.shape}")
        if counts.ndim != 2 or counts.shape[0] != codes.shape[0]:
            raise ValueError(f"counts must be ({codes.shape[0]}, s), got {counts.shape}")
        if keys.shape != (counts.shape[1], len(self.sensitive)):
            raise ValueError(f"keys must be ({counts.shape[1]}, {len(self.sensitive)})")
        if len(self.domains) != len(self.qi):
            raise ValueError("one domain per QI column is required")
        if self.hierarchies is not None and (
                len(self.hierarchies) != len(self.qi)
                or any(h.card != len(d) for h, d in zip(self.hierarchies.columns, self.domains,
                                                        strict=True))):
            raise ValueError("one hierarchy per QI column is required, with a leaf per value")
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "keys", keys)

    # -- sizes -------------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of rows."""
        return int(self.counts.sum())

    @property
    def m(self) -> int:
        """Number of QI columns."""
        return len(self.qi)

    @property
    def t_in(self) -> int:
        """Number of input row types (distinct QI vectors)."""
        return int(self.codes.shape[0])

    @property
    def s(self) -> int:
        """Number of sensitive keys (distinct sensitive combinations)."""
        return int(self.counts.shape[1])

    @property
    def sizes(self) -> IntArray:
        """``(t_in,)`` rows per row type."""
        return self.counts.sum(axis=1)

    @property
    def cardinalities(self) -> tuple[int, ...]:
        """Number of distinct values per QI column."""
        return tuple(len(d) for d in self.domains)

    @cached_property
    def dgh(self) -> Hierarchies:
        """The domain generalization hierarchy of every QI column: the attached
        :attr:`hierarchies`, else flat ones (a value or ``*``: suppression only)."""
        if self.hierarchies is not None:
            return self.hierarchies
        return Hierarchies.flat(self.cardinalities)

    def with_hierarchies(self, hierarchies: Hierarchies | None) -> RowTypes:
        """A copy carrying ``hierarchies`` (``None``: suppression only)."""
        return replace(self, hierarchies=hierarchies)

    # -- sensitive histograms ----------------------------------------------------------
    def sensitive_histograms(self, key_counts: NDArray[np.integer]) -> list[IntArray]:
        """Project ``(g, s)`` counts over sensitive keys onto each sensitive column.

        Returns one ``(g, |S_a|)`` int64 matrix per sensitive column ``a`` (with no sensitive
        column: one ``(g, 1)`` matrix of class sizes, so size-only models still work).
        """
        kc: IntArray = np.asarray(key_counts, dtype=np.int64)
        if kc.ndim == 1:
            kc = kc[None, :]
        if not self.sensitive:
            return [kc.sum(axis=1, keepdims=True)]
        if len(self.sensitive) == 1 and np.array_equal(
            self.keys[:, 0], np.arange(self.s, dtype=np.int32)
        ):
            return [kc]
        out: list[IntArray] = []
        for a, dom in enumerate(self.sensitive_domains):
            proj = np.zeros((self.s, len(dom)), dtype=np.int64)
            proj[np.arange(self.s), self.keys[:, a]] = 1
            out.append(kc @ proj)
        return out

    def sensitive_values(self) -> list[tuple[object, ...]]:
        """The value list that goes with each matrix of :meth:`sensitive_histograms`."""
        if not self.sensitive:
            return [("*all*",)]
        return list(self.sensitive_domains)

    # -- construction helpers ------------------------------------------------------------
    @classmethod
    def from_arrays(
        cls,
        qi_codes: NDArray[np.integer],
        sa_codes: NDArray[np.integer] | None = None,
        weights: NDArray[np.integer] | None = None,
        qi: Sequence[str] | None = None,
        sensitive: str = "S",
    ) -> RowTypes:
        """Aggregate small integer arrays (one row per record) into row types.

        Meant for tests and algorithms' internal use: ``qi_codes`` is ``(n, m)`` codes
        ``>= 0``, ``sa_codes`` is ``(n,)`` codes of one sensitive column (or ``None``),
        ``weights`` optional row multiplicities. Domains are the codes themselves.
        """
        X = np.asarray(qi_codes, dtype=np.int64)
        if X.ndim != 2:
            raise ValueError("qi_codes must be a 2-d array")
        nrows, m = X.shape
        w = np.ones(nrows, dtype=np.int64) if weights is None else np.asarray(weights, np.int64)
        names = tuple(qi) if qi is not None else tuple(f"q{c}" for c in range(m))
        uniq, inv = np.unique(X, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        domains = tuple(tuple(range(int(X[:, c].max()) + 1 if nrows else 0)) for c in range(m))
        if sa_codes is None:
            counts = np.zeros((len(uniq), 1), dtype=np.int64)
            np.add.at(counts, (inv, np.zeros_like(inv)), w)
            return cls(names, uniq.astype(np.int32), counts, domains)
        S = np.asarray(sa_codes, dtype=np.int64).reshape(-1)
        s = int(S.max()) + 1 if nrows else 0
        counts = np.zeros((len(uniq), s), dtype=np.int64)
        np.add.at(counts, (inv, S), w)
        keys = np.arange(s, dtype=np.int32)[:, None]
        return cls(names, uniq.astype(np.int32), counts, domains, (sensitive,), keys,
                   (tuple(range(s)),))

    def expand(self) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]:
        """One row per record: ``(type_index, key_index)`` arrays and the ``(n, m)`` codes."""
        t_idx, k_idx = np.nonzero(self.counts)
        reps = self.counts[t_idx, k_idx]
        ti = np.repeat(t_idx, reps).astype(np.int32)
        ki = np.repeat(k_idx, reps).astype(np.int32)
        return ti, ki, self.codes[ti]
