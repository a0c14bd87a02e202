"""Tables with hierarchies for the DGH and full-domain tests, and an independent oracle.

Nothing here uses :mod:`starmin.algorithms` or the node codes of :mod:`starmin.data.hierarchies`:
the oracle reads the ARX rows (value, then its ancestors; the last field the root) directly.

- :func:`random_hierarchy`: a random ARX hierarchy over the values ``0 .. card - 1`` (plus,
  sometimes, values the table lacks; sometimes a group that jumps straight to the root).
- :func:`random_dgh_table`: a random small table (a polars frame) with a random hierarchy for
  some of its QI columns, and its row types carrying them (through ``resolve``, the API's own
  path from files to node codes).
- :func:`local_optimum`: the least objective (``stars``, ``loss``, or ``stars+loss``: the
  fewest stars, then the least loss) over every release that maps each row to the
  lowest common ancestors of its class (a set partition of the rows), by a DP over subsets of
  rows: the optimum over local recodings with hierarchy nodes, since any release's class can be
  re-released as the LCA of its rows at no higher cost, and equal LCAs merge into a class that
  is still k-anonymous / p-sensitive.
- :func:`release_and_verify`: the engine's release of a plan, checked by the independent
  verifier against the input and the hierarchy files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
import polars as pl

from starmin.data import Schema
from starmin.data.rowtypes import RowTypes
from starmin.engines.local import LocalEncoded, LocalEngine
from starmin.models.base import PrivacyModel
from starmin.transform.hierarchy import Hierarchy
from starmin.transform.nodes import resolve
from starmin.transform.plan import ReleasePlan
from starmin.verifier import verify

Rows = tuple[tuple[str, ...], ...]
LEX = 10**6
"""Weight of a star in the ``stars+loss`` objective (more than any total loss here)."""

AGE: Rows = (("30", "30-34", "30-39", "*"), ("32", "30-34", "30-39", "*"),
             ("35", "35-39", "30-39", "*"), ("41", "40-44", "40-49", "*"))
"""The hand-worked tests' age hierarchy (D = 4 values): 30, 32 -> 30-34 -> 30-39; 35 -> 35-39
-> 30-39; 41 -> 40-44 -> 40-49; all -> *."""
HAND = np.array([[30, 0], [32, 0], [35, 1], [41, 1], [30, 1], [32, 1]])
"""The hand-worked tests' rows (age, sex with 0 = M, 1 = F; sex has no file: flat)."""


def random_hierarchy(rng: np.random.Generator, card: int, name: str) -> Rows:
    """ARX rows for values ``'0' .. str(card - 1)``: 1-3 group levels, each grouping the level
    below at random; with some chance an extra value the table lacks, and a group that goes
    straight to the root."""
    values = [str(v) for v in range(card)]
    if rng.random() < 0.3:
        values.append(f"x{name}")  # in the hierarchy's domain, not in the table
    levels = int(rng.integers(1, 4))
    paths = [[v] for v in values]
    below = list(range(len(values)))  # group index of each value at the previous level
    for lv in range(1, levels + 1):
        groups = max(1, len(set(below)) - int(rng.integers(0, 3)))
        top = {g: int(rng.integers(0, groups)) for g in sorted(set(below))}
        jump = lv > 1 and rng.random() < 0.3  # one group goes straight to the root
        jumper = int(rng.integers(0, groups)) if jump else -1
        for i, g in enumerate(below):
            if paths[i][-1] == "*":
                paths[i].append("*")
                continue
            u = top[g]
            paths[i].append("*" if u == jumper else f"{name}{lv}g{u}")
        below = [top[g] for g in below]
    return tuple(tuple([*p, "*"]) for p in paths)


@dataclass(frozen=True)
class DghTable:
    frame: pl.DataFrame
    qi: tuple[str, ...]
    sensitive: tuple[str, ...]
    files: dict[str, Rows]
    encoded: LocalEncoded

    @property
    def rt(self) -> RowTypes:
        return self.encoded.row_types


def dgh_table(X: np.ndarray, sa: np.ndarray | None, files: dict[str, Rows]) -> DghTable:
    """A table of integer QI codes (and sensitive codes) with the given ARX hierarchies."""
    qi = tuple(f"q{j}" for j in range(X.shape[1]))
    data = {q: X[:, j].tolist() for j, q in enumerate(qi)}
    sens: tuple[str, ...] = ()
    if sa is not None:
        data["s"] = [f"v{int(v)}" for v in sa]
        sens = ("s",)
    frame = pl.DataFrame(data)
    enc = LocalEngine().to_row_types(frame, Schema.of(list(qi), list(sens) or None))
    given = {c: Hierarchy.from_rows(rows, name=c) for c, rows in files.items()}
    resolved = resolve(enc.row_types, given, False)
    if resolved is not None:
        enc = replace(enc, row_types=enc.row_types.with_hierarchies(resolved.hierarchies))
    return DghTable(frame, qi, sens, files, enc)


def random_dgh_table(seed: int, n: int, m: int, values: int, s: int | None = None
                     ) -> DghTable:
    """``n`` rows, ``m`` QI columns of ``values`` codes, a random hierarchy on most columns."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, m))
    sa = None
    if s is not None:
        sa = rng.integers(0, s, size=n)
        sa[:min(s, n)] = rng.permutation(s)[:min(s, n)]
    files = {}
    for j in range(m):
        if rng.random() < 0.8:
            card = int(X[:, j].max()) + 1
            files[f"q{j}"] = random_hierarchy(rng, card, f"c{j}")
    return dgh_table(X, sa, files)


# -- the oracle ----------------------------------------------------------------------------


class _Column:
    """One column's ARX rows: paths, the LCA of values and the cost of a node."""

    def __init__(self, rows: Rows | None, values: Sequence[str]) -> None:
        if rows is None:  # suppression only
            rows = tuple((v, "*") for v in values)
        self.path = {r[0]: r for r in rows}
        self.domain = len(rows)
        self.rows = rows

    def lca(self, values: Sequence[str]) -> tuple[int, str]:
        """``(level, label)`` of the most specific node covering every value."""
        paths = [self.path[v] for v in values]
        for lv in range(len(paths[0])):
            if len({p[lv] for p in paths}) == 1:
                return lv, paths[0][lv]
        raise AssertionError("no common root")

    def leaves(self, node: tuple[int, str]) -> int:
        lv, label = node
        return sum(1 for r in self.rows if r[lv] == label) if label != "*" else self.domain

    def cost(self, node: tuple[int, str], objective: str) -> Fraction:
        """``stars``: 1 at the root; ``loss``: Iyengar's; ``stars+loss``: the stars first,
        then the loss (a star outweighs any loss of these small tables: ``LEX`` each)."""
        if objective == "stars":
            return Fraction(int(node[1] == "*"))
        if objective == "stars+loss":
            return LEX * int(node[1] == "*") + self.cost(node, "loss")
        if self.domain <= 1:
            return Fraction(0)
        return Fraction(self.leaves(node) - 1, self.domain - 1)


def local_optimum(t: DghTable, k: int, p: int = 1, objective: str = "stars"
                  ) -> Fraction | None:
    """The least total objective (stars, or the sum of Iyengar's per-cell losses) over set
    partitions of the rows into classes of ``>= k`` rows with ``>= p`` sensitive values, each
    class released as its LCAs; ``None`` when none exists. ``O(3^n)``: for ``n <= 10``."""
    rows = t.frame.rows()
    n = len(rows)
    cols = [_Column(t.files.get(q), sorted({str(r[j]) for r in rows}))
            for j, q in enumerate(t.qi)]
    sens = [r[len(t.qi)] for r in rows] if t.sensitive else [None] * n
    full = (1 << n) - 1
    block: list[Fraction | None] = [None] * (full + 1)
    for mask in range(1, full + 1):
        idx = [i for i in range(n) if mask >> i & 1]
        if len(idx) < k or len({sens[i] for i in idx}) < p:
            continue
        per_row = sum((c.cost(c.lca([str(rows[i][j]) for i in idx]), objective)
                       for j, c in enumerate(cols)), Fraction(0))
        block[mask] = per_row * len(idx)
    best: list[Fraction | None] = [None] * (full + 1)
    best[0] = Fraction(0)
    for mask in range(1, full + 1):
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        while True:
            b = sub | low
            c, r = block[b], best[mask ^ b]
            if c is not None and r is not None:
                total = c + r
                cur = best[mask]
                if cur is None or total < cur:
                    best[mask] = total
            if sub == 0:
                break
            sub = (sub - 1) & rest
    return best[full]


def plan_objective(t: DghTable, plan: ReleasePlan, objective: str) -> Fraction:
    """The plan's total objective computed from the ARX rows (labels, not node codes)."""
    rt = t.rt
    total = Fraction(0)
    for j, q in enumerate(t.qi):
        col = _Column(t.files.get(q), [str(v) for v in rt.domains[j]])
        ch = rt.dgh[j]
        for o, size in zip(plan.outputs[:, j].tolist(), plan.class_sizes.tolist(), strict=True):
            if o == -1:
                node = (len(next(iter(col.rows))) - 1, "*")
            elif o < ch.card:
                node = (0, str(rt.domains[j][o]))
            else:
                lab = ch.label(o)
                node = (int(ch.level[o]), lab)
            total += col.cost(node, objective) * size
    return total


def release_and_verify(t: DghTable, plan: ReleasePlan, model: PrivacyModel) -> pl.DataFrame:
    """The engine's release of ``plan``; asserts the verifier passes it, cells included."""
    released = LocalEngine().apply_plan(t.encoded, plan, seed=0)
    verdict = verify(released, list(t.qi), list(t.sensitive), [model], original=t.frame,
                     hierarchies=dict(t.files) or None)
    assert verdict.passed, verdict.as_dict()
    return released
