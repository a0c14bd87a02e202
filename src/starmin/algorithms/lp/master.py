"""The LP/MILP of Liang & Yuan's Thm 9 on row types, over a given set of output vectors.

Variables, per output vector (a *block* ``b``, released with ``stars(b)`` stars per row):
``x(b, p)`` rows of pair ``p = (v, s)`` (cost ``stars(b)`` each), and as the relaxation needs
(:mod:`.relaxation`) the open indicator ``y(b)`` (binary in the MILP), the class size
``n(b)`` and the EMD slacks ``w(b, cut)``. Constraints:

* coverage, one per pair: ``sum_b x(b, p) = c(p)`` (its duals price new blocks);
* ``k``: ``x(b, p) <= c(p) y(b)``, ``sum_p x(b, p) >= k y(b)``;
* ``cap``: ``sum_{p of value u} x(b, p) <= cap n(b)`` for each value ``u`` of the block;
* ``share_lines`` (MILP only): ``a sum_{p of value u} x(b, p) <= b n(b) + c y(b)`` for
  each line ``(a, b, c)`` (integers) and value ``u`` of the block;
* ``distinct`` (MILP only): binaries ``z(b, u) <= sum_{p of value u} x(b, p)`` and
  ``sum_u z(b, u) >= distinct y(b)``;
* ``t``: ``w(b, C) >= |x(b, C) - p(C) n(b)|`` for every cut ``C`` (one-sided, values of the
  block only, for the equal distance) and ``sum_C weight(C) w(b, C) <= t n(b)``;
* ``t`` under a matrix distance (no cuts): Liang & Yuan Thm 9's transport
  constraints, flows ``f(b, u, v) >= 0`` from each value ``u`` of the block to every value
  ``v``: ``sum_v f(b, u, v) = x(b, u)``, ``sum_u f(b, u, v) = p(v) n(b)`` and
  ``sum d(u, v) f(b, u, v) <= t n(b)`` (a flow exists iff the class's EMD is at most ``t``).

With several sensitive columns (the exact MILP) the ``cap``, ``distinct`` and ``t`` rows are
stated once per column, each counting the values of its own column, over the same ``x``,
``y`` and ``n``.

Solved with HiGHS through SciPy (``linprog`` dual simplex for the LP and its duals, ``milp``
for integer solutions); every limit is a work limit (iterations, nodes), never a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.lp.pairs import IntArray, Pairs
from starmin.algorithms.lp.relaxation import FloatArray, Relaxation


@dataclass(frozen=True, eq=False)
class Blocks:
    """Output vectors with the pairs each may receive: ``vectors`` ``(B, m)`` (codes, or
    ``-1`` for a star), ``stars`` ``(B,)``, ``block_of`` / ``pair_of`` ``(X,)``: one entry
    per ``x`` variable, grouped by block in increasing order."""

    vectors: NDArray[np.int32]
    stars: IntArray
    block_of: IntArray
    pair_of: IntArray

    @property
    def B(self) -> int:
        return int(self.vectors.shape[0])


@dataclass(frozen=True, eq=False)
class Program:
    """``min c x`` s.t. ``A_eq x = b_eq``, ``A_ub x <= b_ub``, ``x >= 0``; ``integer`` marks
    the integer variables of the MILP; the first ``X`` variables are the ``x(b, p)``; the
    first ``P`` equality rows are the coverage rows."""

    c: FloatArray
    A_eq: object
    b_eq: FloatArray
    A_ub: object
    b_ub: FloatArray
    upper: FloatArray
    integer: NDArray[np.int8]
    X: int
    P: int
    y: IntArray | None = None
    """The class indicators ``y(b)`` by block, when the program has them."""


def build(pairs: Pairs, rel: Relaxation | Sequence[Relaxation], blocks: Blocks) -> Program:
    """The LP/MILP of the module docstring for these blocks. Several relaxations (the exact
    MILP's, one per sensitive column) share the indicators ``y(b)`` (class size: the largest
    ``k``) and the class sizes ``n(b)``; each adds its column's ``distinct``, ``cap`` and ``t``
    rows."""
    from scipy.sparse import coo_matrix

    rels = [rel] if isinstance(rel, Relaxation) else list(rel)
    P, B, X = pairs.P, blocks.B, len(blocks.pair_of)
    bo, po = blocks.block_of, blocks.pair_of
    xi = np.arange(X, dtype=np.int64)
    cnt = pairs.count[po].astype(np.float64)
    nvar = X
    cost = [blocks.stars[bo].astype(np.float64)]
    upper = [cnt.copy()]
    integer = [np.ones(X, dtype=np.int8)]
    eq: list[tuple[IntArray, IntArray, FloatArray]] = [(po, xi, np.ones(X))]
    b_eq = [pairs.count.astype(np.float64)]
    n_eq = P
    ub: list[tuple[IntArray, IntArray, FloatArray]] = []
    b_ub: list[FloatArray] = []
    n_ub = 0
    bi = np.arange(B, dtype=np.int64)

    def new_vars(count: int, up: float, is_int: bool) -> IntArray:
        nonlocal nvar
        idx = np.arange(nvar, nvar + count, dtype=np.int64)
        nvar += count
        cost.append(np.zeros(count))
        upper.append(np.full(count, up))
        integer.append(np.full(count, 1 if is_int else 0, dtype=np.int8))
        return idx

    def ub_rows(count: int) -> IntArray:
        nonlocal n_ub
        idx = np.arange(n_ub, n_ub + count, dtype=np.int64)
        n_ub += count
        b_ub.append(np.zeros(count))
        return idx

    k = max((r.k for r in rels), default=1)
    y_of: IntArray | None = None
    if k > 1 or any(r.distinct > 0 for r in rels):
        y = y_of = new_vars(B, 1.0, True)
        r1 = ub_rows(X)  # x - c y <= 0
        ub += [(r1, xi, np.ones(X)), (r1, y[bo], -cnt)]
        r2 = ub_rows(B)  # k y - sum x <= 0
        ub += [(r2, y, np.full(B, float(max(k, 1)))), (r2[bo], xi, -np.ones(X))]
    for one in rels:
        if one.distinct > 0:  # z(b, u) <= sum of x(b, p) of value u; sum_u z(b, u) >= l y(b)
            assert y_of is not None
            u = one.value_of_key[pairs.key_of[po]]
            combo, row_of_x = np.unique(bo * one.r + u, return_inverse=True)
            z = new_vars(len(combo), 1.0, True)
            rz = ub_rows(len(combo))
            ub += [(rz, z, np.ones(len(combo))), (rz[row_of_x.reshape(-1)], xi, -np.ones(X))]
            rl = ub_rows(B)
            ub += [(rl[combo // one.r], z, -np.ones(len(combo))),
                   (rl, y_of, np.full(B, float(one.distinct)))]
    n = np.zeros(0, dtype=np.int64)  # the class sizes n(b), when a relaxation needs them
    if any(r.cap is not None or r.t is not None for r in rels):
        n = new_vars(B, np.inf, True)
        re = np.arange(n_eq, n_eq + B, dtype=np.int64)  # sum x - n = 0
        n_eq += B
        b_eq.append(np.zeros(B))
        eq += [(re[bo], xi, np.ones(X)), (re, n, -np.ones(B))]
    for one in rels:
        if one.cap is None and one.t is None:
            continue
        u = one.value_of_key[pairs.key_of[po]]
        r = one.r
        if one.cap is not None:
            combo, row_of_x = np.unique(bo * r + u, return_inverse=True)
            rc = ub_rows(len(combo))
            ub += [(rc[row_of_x.reshape(-1)], xi, np.ones(X)),
                   (rc, n[combo // r], np.full(len(combo), -one.cap))]
            for ca, cb, cc in one.share_lines if y_of is not None else ():
                assert y_of is not None
                rs = ub_rows(len(combo))
                ub += [(rs[row_of_x.reshape(-1)], xi, np.full(X, float(ca))),
                       (rs, n[combo // r], np.full(len(combo), -float(cb))),
                       (rs, y_of[combo // r], np.full(len(combo), -float(cc)))]
        if one.t is not None and one.cuts is None:
            n_eq = _transport_rows(one, bo, xi, u, n, new_vars, ub_rows, ub, eq, b_eq, n_eq)
        elif one.t is not None:
            _closeness_rows(one, bo, xi, u, n, bi, new_vars, ub_rows, ub)
    A_eq = coo_matrix((np.concatenate([e[2] for e in eq]),
                       (np.concatenate([e[0] for e in eq]), np.concatenate([e[1] for e in eq]))),
                      shape=(n_eq, nvar)).tocsr()
    if ub:
        A_ub = coo_matrix((np.concatenate([e[2] for e in ub]),
                           (np.concatenate([e[0] for e in ub]),
                            np.concatenate([e[1] for e in ub]))), shape=(n_ub, nvar)).tocsr()
    else:
        A_ub = coo_matrix((0, nvar)).tocsr()
    return Program(np.concatenate(cost), A_eq, np.concatenate(b_eq), A_ub,
                   np.concatenate(b_ub) if b_ub else np.zeros(0), np.concatenate(upper),
                   np.concatenate(integer), X, P, y_of)


def with_rows(prog: Program, rows: object, rhs: FloatArray) -> Program:
    """``prog`` with the rows ``rows @ v <= rhs`` added (a sparse ``(R, variables)`` matrix)."""
    from dataclasses import replace

    from scipy.sparse import vstack

    A_ub = vstack([prog.A_ub, rows]).tocsr()
    return replace(prog, A_ub=A_ub, b_ub=np.concatenate([prog.b_ub, rhs]))


def _transport_rows(rel: Relaxation, bo: IntArray, xi: IntArray, u: IntArray, n: IntArray,
                    new_vars: Callable[[int, float, bool], IntArray],
                    ub_rows: Callable[[int], IntArray],
                    ub: list[tuple[IntArray, IntArray, FloatArray]],
                    eq: list[tuple[IntArray, IntArray, FloatArray]], b_eq: list[FloatArray],
                    n_eq: int) -> int:
    """Transport flows and rows for a matrix distance (see the module docstring); returns the
    new number of equality rows."""
    assert rel.t is not None and rel.d is not None
    r = rel.r
    combo, row_of_x = np.unique(bo * r + u, return_inverse=True)   # (block, value u) held
    cb, cu = combo // r, combo % r
    F = len(combo)
    f = new_vars(F * r, np.inf, False).reshape(F, r)               # f(b, u, v)
    out_rows = np.arange(n_eq, n_eq + F, dtype=np.int64)           # sum_v f - x(b, u) = 0
    n_eq += F
    blocks, block_row = np.unique(cb, return_inverse=True)
    in_rows = (np.arange(n_eq, n_eq + len(blocks) * r, dtype=np.int64)
               .reshape(len(blocks), r))                           # sum_u f - p_v n(b) = 0
    n_eq += len(blocks) * r
    b_eq.append(np.zeros(F + len(blocks) * r))
    vv = np.tile(np.arange(r), F)
    ff = f.reshape(-1)
    eq += [(np.repeat(out_rows, r), ff, np.ones(F * r)),
           (out_rows[row_of_x.reshape(-1)], xi, -np.ones(len(xi))),
           (in_rows[np.repeat(block_row.reshape(-1), r), vv], ff, np.ones(F * r)),
           (in_rows.reshape(-1), np.repeat(n[blocks], r), -np.tile(rel.p, len(blocks)))]
    rt_ = ub_rows(len(blocks))                                     # sum d f - t n(b) <= 0
    ub += [(rt_[np.repeat(block_row.reshape(-1), r)], ff, rel.d[np.repeat(cu, r), vv]),
           (rt_, n[blocks], np.full(len(blocks), -rel.t))]
    return n_eq


def _closeness_rows(rel: Relaxation, bo: IntArray, xi: IntArray, u: IntArray, n: IntArray,
                    bi: IntArray, new_vars: Callable[[int, float, bool], IntArray],
                    ub_rows: Callable[[int], IntArray],
                    ub: list[tuple[IntArray, IntArray, FloatArray]]) -> None:
    """EMD slacks and rows (see the module docstring)."""
    assert rel.cuts is not None and rel.t is not None
    B, r = len(bi), rel.r
    weight_t = []
    if rel.cuts.one_sided:  # w(b, u) >= x(b, u) - p_u n(b) for the block's values
        combo, row_of_x = np.unique(bo * r + u, return_inverse=True)
        w = new_vars(len(combo), np.inf, False)
        rw = ub_rows(len(combo))
        cb, cu = combo // r, combo % r
        ub += [(rw[row_of_x.reshape(-1)], xi, np.ones(len(xi))), (rw, n[cb], -rel.p[cu]),
               (rw, w, -np.ones(len(combo)))]
        weight_t = [(cb, w, np.ones(len(combo)))]
    else:
        member, weight = rel.cuts.member, rel.cuts.weight
        C = member.shape[0]
        pc = member @ rel.p
        w = new_vars(B * C, np.inf, False).reshape(B, C)
        plus = ub_rows(B * C).reshape(B, C)
        minus = ub_rows(B * C).reshape(B, C)
        cut_i, val_i = np.nonzero(member)  # cut_i contains value val_i
        by_val = [cut_i[val_i == v] for v in range(r)]
        lens = np.array([len(c) for c in by_val], dtype=np.int64)
        reps = lens[u]
        xc = np.repeat(xi, reps)
        bc = np.repeat(bo, reps)
        cc = np.concatenate([by_val[v] for v in u]) if len(u) else np.zeros(0, np.int64)
        ones = np.ones(len(xc))
        ub += [(plus[bc, cc], xc, ones), (minus[bc, cc], xc, -ones)]
        bb = np.repeat(bi, C)
        cb = np.tile(np.arange(C), B)
        ub += [(plus[bb, cb], n[bb], -pc[cb]), (minus[bb, cb], n[bb], pc[cb]),
               (plus[bb, cb], w[bb, cb], -np.ones(B * C)),
               (minus[bb, cb], w[bb, cb], -np.ones(B * C))]
        weight_t = [(bb, w[bb, cb], weight[cb])]
    rt_ = ub_rows(B)  # sum weight w - t n <= 0
    for blk, var, coef in weight_t:
        ub.append((rt_[blk], var, coef))
    ub.append((rt_, n, np.full(B, -rel.t)))


@dataclass(frozen=True, eq=False)
class LPSolution:
    value: float
    x: FloatArray
    pi: FloatArray
    iterations: int


def solve_lp(prog: Program, max_iterations: int = 2_000_000) -> LPSolution:
    """The LP relaxation by HiGHS dual simplex: its value, the ``x(b, p)`` and the coverage
    duals. Raises ``RuntimeError`` when HiGHS does not reach optimality."""
    from scipy.optimize import linprog

    # no upper bounds: they are implied (x <= c by coverage, y <= 1 changes nothing), and
    # their duals would make the coverage duals infeasible for the cone the pricing assumes
    bounds = (0, None)
    res = linprog(prog.c, A_ub=prog.A_ub if prog.A_ub.shape[0] else None,  # type: ignore[attr-defined]
                  b_ub=prog.b_ub if len(prog.b_ub) else None, A_eq=prog.A_eq, b_eq=prog.b_eq,
                  bounds=bounds, method="highs-ds",
                  options={"maxiter": max_iterations, "presolve": True})
    if res.status != 0:
        raise RuntimeError(f"HiGHS stopped: {res.message}")
    pi = np.asarray(res.eqlin.marginals, dtype=np.float64)[: prog.P]
    return LPSolution(float(res.fun), np.asarray(res.x)[: prog.X], pi, int(res.nit))


@dataclass(frozen=True, eq=False)
class MILPSolution:
    value: float | None
    x: FloatArray | None
    dual_bound: float | None
    optimal: bool
    message: str
    infeasible: bool = False


def milp_setup(prog: Program, *, node_limit: int | None = None, gap: float = 0.0,
               seconds: float | None = None) -> tuple[list[Any], dict[str, object]]:
    """SciPy ``milp``'s constraints and HiGHS options for ``prog``: ``node_limit`` a work
    limit; no clock unless the user asked for one (``seconds``, from ``--time-limit``, is
    HiGHS's wall-clock limit)."""
    from scipy.optimize import LinearConstraint

    cons = [LinearConstraint(prog.A_eq, prog.b_eq, prog.b_eq)]
    if prog.A_ub.shape[0]:  # type: ignore[attr-defined]
        cons.append(LinearConstraint(prog.A_ub, -np.inf, prog.b_ub))
    options: dict[str, object] = {"mip_rel_gap": gap, "presolve": True}
    if node_limit is not None:
        options["node_limit"] = int(node_limit)
    if seconds is not None:  # the user's --time-limit: the result may depend on the clock
        options["time_limit"] = float(seconds)
    return cons, options


def solve_milp(prog: Program, *, node_limit: int | None = None, gap: float = 0.0,
               fixed: FloatArray | None = None, seconds: float | None = None) -> MILPSolution:
    """The MILP by HiGHS branch and bound (limits as in :func:`milp_setup`). ``fixed``:
    ``(X,)`` values for the ``x(b, p)`` (NaN: free)."""
    from scipy.optimize import Bounds, milp

    cons, options = milp_setup(prog, node_limit=node_limit, gap=gap, seconds=seconds)
    lower, upper = np.zeros(len(prog.c)), prog.upper.copy()
    if fixed is not None:
        pin = ~np.isnan(fixed)
        lower[: prog.X][pin] = fixed[pin]
        upper[: prog.X][pin] = fixed[pin]
    res = milp(prog.c, constraints=cons, integrality=prog.integer,
               bounds=Bounds(lower, upper), options=options)
    x = None if res.x is None else np.asarray(res.x)[: prog.X]
    dual = getattr(res, "mip_dual_bound", None)
    return MILPSolution(None if res.x is None else float(res.fun), x,
                        None if dual is None else float(dual), res.status == 0,
                        milp_message(str(res.message), node_limit), res.status == 2)


def milp_message(message: str, node_limit: int | None) -> str:
    """SciPy's message for HiGHS's answer, with HiGHS's "solution limit" status (which it
    also reports when ``node_limit`` stopped branch and bound, and which SciPy prints as an
    unrecognized status code) said in words."""
    if "Solution limit reached" not in message:
        return message
    nodes = "" if node_limit is None else f" ({node_limit:,} nodes)"
    return f"HiGHS stopped at its node limit{nodes}"
