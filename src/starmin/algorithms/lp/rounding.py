"""From the LP core's fractional optimum to a release: fix, re-solve, repair.

1. *Fix.* Every block whose ``x(b, p)`` are all integral in the LP optimum keeps them.
2. *Re-solve.* The MILP (:mod:`.master`, every linear constraint of the model at once: ``k``,
   ``cap``, ``t``) over the same blocks with those values fixed decides the rest: the blocks
   with a fractional ``x``, and the all-star block, which can take any rows, so it is always
   feasible. HiGHS runs within ``node_limit`` nodes and stops once its incumbent is within
   the relative ``gap`` of its dual bound (both work limits); if it finds nothing there, the
   MILP over the whole pool is tried with the same limits. Or (``solver="cp-sat"``, what
   ``--method auto`` uses where HiGHS's cost cannot be foreseen) CP-SAT solves the same
   MILP within ``work`` units of its deterministic time, its search starting from the LP's
   values rounded (:mod:`.cpsat_milp`); no second try.
3. *Release.* Each block with rows is released as the suppressor of the row types it holds
   (never more stars than the block's vector); equal suppressors merge (every model here is
   closed under union of classes).
4. *Repair.* Classes that still fail the model (its non-linear parts: entropy, the strict
   inequality of recursive (c, l)-diversity) are merged, cheapest first, with the class that
   the fewest added stars make valid; the whole table as one class always is.

Guarantee: **heuristic** for the release (verified like every release); the gap is measured
against the certified LP bound of :mod:`.colgen`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from starmin.algorithms.base import Progress, deadline_after, seconds_until, silent
from starmin.algorithms.lp.master import Blocks, MILPSolution, build, solve_milp
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.relaxation import FloatArray, Relaxation
from starmin.data.rowtypes import RowTypes
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from starmin.transform.plan import suppressor


def round_lp(pairs: Pairs, rel: Relaxation | Sequence[Relaxation], blocks: Blocks,
             x: FloatArray, *,
             node_limit: int = 2000, gap: float = 0.0,
             seconds: float | None = None, progress: Progress = silent,
             solver: str = "highs", work: float = 2.0, seed: int = 0) -> FloatArray:
    """Integral ``x(b, p)`` for the blocks (steps 1-2 of the module docstring); ``gap``:
    HiGHS's relative MIP gap (``mip_rel_gap``, a work limit: branch and bound stops once its
    incumbent is within ``gap`` of its dual bound); ``seconds``: a wall-clock limit the user
    asked for, on both MILPs together. ``solver``: ``"highs"`` (those limits) or ``"cp-sat"``
    (at most ``work`` units of CP-SAT's deterministic time, random seed ``seed``; ``seconds``
    does not apply there: only ``milp`` passes one, and it rounds with HiGHS). ``progress``
    hears of each MILP before it starts (they
    print nothing while they run, and can take minutes: t-closeness on adult's first 300
    rows, docs/algorithms/lp-core.md) and of its end."""
    end = deadline_after(seconds)
    prog = build(pairs, rel, blocks)
    frac = np.abs(x - np.round(x)) > 1e-6
    bad_block = np.zeros(blocks.B, dtype=bool)
    bad_block[blocks.block_of[frac]] = True
    bad_block[int(np.argmax(blocks.stars))] = True  # the all-star block stays free
    free = bad_block[blocks.block_of]
    fixed = np.where(free, np.nan, np.round(x))
    if solver == "cp-sat":
        from starmin.algorithms.lp import cpsat_milp

        progress(f"rounding MILP by CP-SAT: {int(bad_block.sum()):,} of {blocks.B:,} vectors "
                 f"free, the rest fixed at the LP's values; at most {work:g} units of work")
        sol: MILPSolution = cpsat_milp.solve(prog, fixed=fixed, hint=x, work=work, seed=seed)
        if sol.x is None:
            raise RuntimeError(f"the rounding MILP found no integer solution ({sol.message})")
        progress(f"rounding MILP: {sol.value:,.0f} stars before the classes are released "
                 f"({sol.message})")
        return np.round(sol.x)
    limits = f"at most {node_limit:,} branch-and-bound nodes, relative gap {gap:g}"
    progress(f"rounding MILP: {int(bad_block.sum()):,} of {blocks.B:,} vectors free (a "
             f"fractional x, or all stars), the rest fixed at the LP's values; {limits}")
    sol = solve_milp(prog, node_limit=node_limit, gap=gap, fixed=fixed, seconds=seconds)
    if sol.x is None:
        progress(f"rounding MILP: no integer solution with the rest fixed ({sol.message}); "
                 f"the MILP over all {blocks.B:,} vectors, {limits}")
        sol = solve_milp(prog, node_limit=node_limit, gap=gap, seconds=seconds_until(end))
    if sol.x is None:
        raise RuntimeError(f"the rounding MILP found no integer solution ({sol.message})")
    value = "?" if sol.value is None else f"{sol.value:,.0f}"
    progress(f"rounding MILP: {value} stars before the classes are released ({sol.message})")
    return np.round(sol.x)


Group = tuple[np.ndarray, np.ndarray, np.ndarray]
"""One class: ``(type_idx, key_idx, count)`` arrays (as :meth:`ReleasePlan.from_groups`)."""


def groups_of(pairs: Pairs, blocks: Blocks, x: FloatArray) -> list[Group]:
    """The classes of an integral ``x(b, p)``: one per block with rows (step 3)."""
    live = x > 0.5
    bo, po, cnt = blocks.block_of[live], blocks.pair_of[live], x[live].astype(np.int64)
    order = np.argsort(bo, kind="stable")
    bo, po, cnt = bo[order], po[order], cnt[order]
    cuts = np.nonzero(np.diff(bo))[0] + 1
    return [(pairs.type_of[ps], pairs.key_of[ps], cs)
            for ps, cs in zip(np.split(po, cuts), np.split(cnt, cuts), strict=True) if len(ps)]


def merge_failing(rt: RowTypes, model: PrivacyModel, groups: list[Group]) -> list[Group]:
    """Merge failing classes away (step 4 of the module docstring)."""
    def counts(gr: Group) -> np.ndarray:
        kc = np.zeros(rt.s, dtype=np.int64)
        np.add.at(kc, gr[1], gr[2])
        return kc

    def cost(gr: Group) -> int:
        sup = suppressor(rt.codes[np.unique(gr[0])])
        return int(gr[2].sum()) * int((sup < 0).sum())

    while groups:
        ok = holds(model, rt, np.array([counts(g) for g in groups]))
        if ok.all():
            return groups
        a = int(np.nonzero(~ok)[0][0])
        best: tuple[int, int, int] | None = None
        for b in range(len(groups)):
            if b == a:
                continue
            u = _union(groups[a], groups[b])
            passes = bool(holds(model, rt, counts(u)[None, :])[0])
            extra = cost(u) - cost(groups[a]) - cost(groups[b])
            key = (0 if passes else 1, extra, b)
            if best is None or key < best:
                best = key
        if best is None:
            return groups  # the whole table is one class and fails: infeasible, caught earlier
        b = best[2]
        merged = _union(groups[a], groups[b])
        groups = [g for i, g in enumerate(groups) if i not in (a, b)] + [merged]
    return groups


def _union(a: Group, b: Group) -> Group:
    return (np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]]),
            np.concatenate([a[2], b[2]]))
