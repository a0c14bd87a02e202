"""Small random tables for oracle and property tests, and table transformations.

API (all deterministic given ``seed``):

- :func:`random_table` -- a random :class:`RowTypes` with few QI values so row types repeat,
  optionally with one sensitive column.
- :func:`from_rows` -- a :class:`RowTypes` from literal rows (lists of ints), e.g. paper tables.
- :func:`expanded` -- the same table with one row type per *row* (duplicate QI vectors kept
  apart, every count 1): a deliberately non-canonical ``RowTypes`` to check that weights
  behave like repeated rows.
- :func:`permuted` -- the same table with its row types (and optionally QI columns and QI
  value codes) permuted at random; the optimum is invariant under it.
- :func:`two_sensitive_table` -- a random table with two sensitive columns (keys = pairs).
- :func:`satisfies` -- every released class of a plan satisfies a model.
- :func:`feasible` -- whether some release of the table satisfies a model.
- :func:`tiny_tables` -- random tables of 6-10 rows, 2-3 QIs and 3-4 sensitive values, each
  value about equally often (for brute-force comparisons).
- :func:`frequent_zero_table` / :func:`solved_tables` -- the small diversity tables of the
  charge LP tests (value 0 frequent, so some row types must leave) and the feasible ones
  among seeds with their brute-force optimum.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible
from starmin.models.apply import check_feasible, holds
from starmin.models.base import PrivacyModel
from starmin.transform.plan import ReleasePlan


def random_table(seed: int, n: int, m: int = 3, values: int | Sequence[int] = 2,
                 s: int | None = None) -> RowTypes:
    """``n`` rows, ``m`` QI columns with ``values`` distinct codes each (an int or one per
    column), and, when ``s`` is given, one sensitive column with codes ``0..s-1``.

    Every sensitive code ``0..s-1`` is present when ``n >= s`` (so the keys are exactly the
    codes); QI codes may skip values."""
    rng = np.random.default_rng(seed)
    card = [values] * m if isinstance(values, int) else list(values)
    X = (np.stack([rng.integers(0, v, size=n) for v in card], axis=1) if m
         else np.zeros((n, 0), dtype=np.int64))
    if s is None:
        return RowTypes.from_arrays(X)
    sa = rng.integers(0, s, size=n)
    if n >= s:
        sa[:s] = rng.permutation(s)
    return RowTypes.from_arrays(X, sa)


def from_rows(qi_rows: Sequence[Sequence[int]], sa: Sequence[int] | None = None,
              qi: Sequence[str] | None = None) -> RowTypes:
    """A table given literally, one list of QI codes per row (plus sensitive codes)."""
    X = np.asarray(qi_rows, dtype=np.int64)
    return RowTypes.from_arrays(X, None if sa is None else np.asarray(sa), qi=qi)


def expanded(rt: RowTypes) -> RowTypes:
    """One row type per row of ``rt`` (equal QI vectors repeated, each with count 1)."""
    ti, ki, codes = rt.expand()
    counts = np.zeros((len(ti), rt.s), dtype=np.int64)
    counts[np.arange(len(ti)), ki] = 1
    return RowTypes(rt.qi, codes, counts, rt.domains, rt.sensitive, rt.keys,
                    rt.sensitive_domains)


def permuted(rt: RowTypes, seed: int, *, columns: bool = True, values: bool = True) -> RowTypes:
    """``rt`` with its row types permuted, and (by default) its QI columns and each column's
    value codes too. The result is non-canonical (codes no longer follow the value order)."""
    rng = np.random.default_rng(seed)
    rows = rng.permutation(rt.t_in)
    cols = rng.permutation(rt.m) if columns else np.arange(rt.m)
    codes = rt.codes[rows][:, cols].copy()
    domains = []
    for j, c in enumerate(cols):
        k = len(rt.domains[c])
        relabel = rng.permutation(k) if values else np.arange(k)
        codes[:, j] = relabel[codes[:, j]]
        dom: list[object] = [None] * k
        for old, new in enumerate(relabel):
            dom[new] = rt.domains[c][old]
        domains.append(tuple(dom))
    return RowTypes(tuple(rt.qi[c] for c in cols), codes, rt.counts[rows], tuple(domains),
                    rt.sensitive, rt.keys, rt.sensitive_domains)


def satisfies(plan: ReleasePlan, rt: RowTypes, model: PrivacyModel) -> bool:
    """Every released class (output vector) of ``plan`` satisfies ``model`` on ``rt``."""
    return bool(holds(model, rt, plan.class_key_counts(rt.s)).all())


def two_sensitive_table(seed: int, n: int, m: int = 2, values: int = 2,
                        s: tuple[int, int] = (2, 3)) -> RowTypes:
    """``n`` rows with two sensitive columns ``A`` (codes ``0..s[0]-1``) and ``B``; the keys
    are the distinct (A, B) combinations present."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, m))
    AB = np.stack([rng.integers(0, s[0], size=n), rng.integers(0, s[1], size=n)], axis=1)
    keys, key_of = np.unique(AB, axis=0, return_inverse=True)
    types, type_of = np.unique(X, axis=0, return_inverse=True)
    counts = np.zeros((len(types), len(keys)), dtype=np.int64)
    np.add.at(counts, (np.asarray(type_of).reshape(-1), np.asarray(key_of).reshape(-1)), 1)
    domains = tuple(tuple(range(values)) for _ in range(m))
    return RowTypes(tuple(f"q{c}" for c in range(m)), types.astype(np.int32), counts, domains,
                    ("A", "B"), keys.astype(np.int32), (tuple(range(s[0])), tuple(range(s[1]))))


def frequent_zero_table(seed: int, l: int) -> RowTypes:
    """6-12 rows, 2-3 QIs of 2-3 values, ``l`` to ``l + 2`` sensitive values, value 0
    frequent (so that some row types are not l-eligible); the first ``l`` rows hold values
    ``0 .. l - 1``."""
    rng = np.random.default_rng(seed)
    n, m, s = int(rng.integers(6, 13)), int(rng.integers(2, 4)), int(rng.integers(l, l + 3))
    X = rng.integers(0, int(rng.integers(2, 4)), size=(n, m))
    sa = np.where(rng.random(n) < 0.3, 0, rng.integers(0, s, size=n))
    sa[:l] = np.arange(l)
    return RowTypes.from_arrays(X, sa)


def solved_tables(model: PrivacyModel, l: int, seeds: int
                  ) -> list[tuple[int, RowTypes, int]]:
    """``(seed, table, optimum)`` for the seeds ``0 .. seeds - 1`` whose
    :func:`frequent_zero_table` ``model`` can release, by brute force."""
    from starmin.algorithms.exact import brute_force
    from starmin.errors import Infeasible

    out = []
    for seed in range(seeds):
        rt = frequent_zero_table(seed, l)
        try:
            out.append((seed, rt, int(brute_force.solve(rt, model).stars)))
        except Infeasible:
            continue
    return out


def feasible(model: PrivacyModel, rt: RowTypes) -> bool:
    """Whether some release of ``rt`` satisfies ``model`` (:func:`check_feasible` passes)."""
    try:
        check_feasible(model, rt)
    except Infeasible:
        return False
    return True


def tiny_tables(seed0: int, count: int = 30) -> Iterator[tuple[int, RowTypes]]:
    """``(seed, table)`` for ``count`` seeds from ``seed0``: 6-10 rows, 2-3 QI columns of 2-3
    values, the sensitive values ``0 .. 2-3`` dealt out evenly in random order."""
    for seed in range(count):
        rng = np.random.default_rng(seed0 + seed)
        n, m = int(rng.integers(6, 11)), int(rng.integers(2, 4))
        X = rng.integers(0, 2 + seed % 2, size=(n, m))
        yield seed, RowTypes.from_arrays(X, rng.permutation(np.arange(n) % (3 + seed % 2)))
