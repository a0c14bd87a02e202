"""The charge LP bound: the fewest stars of a k-anonymous release, bounded by one LP.

Guarantee: **bound** -- the value returned is <= the optimum (proof below and in
``docs/algorithms/lower-bounds.md``, section "charges").

Setting as in :mod:`starmin.algorithms.bounds`: ``L(v)`` is the fewest starred columns
leaving ``>= k`` rows that agree with row type ``v`` elsewhere, enumerated up to level
``last``. Each row type gets a charge ``a_v``: free in ``[0, L(v) + 1]`` when
``1 <= L(v) <= last``, else fixed at ``L(v)`` (``0`` for row types of ``>= k`` rows; rows
the enumeration left unresolved keep ``last + 1``).

**Claim.** If in every bucket ``B = B(S, .)`` of ``>= k`` rows the ``k`` largest values of
``a_u - |S|`` over its rows (row type ``u`` counted ``n_u`` times) sum to at most 0, then
``OPT >= sum_v n_v a_v``.

*Proof.* A class ``C`` of a k-anonymous release with star set ``S`` (``s = |S|``) lies in
``B(S, .)``, which holds ``>= |C| >= k`` rows. The ``k`` largest ``a_u - s`` over ``C`` sum to
at most the ``k`` largest over ``B``, so to at most 0; then the ``k``-th largest is ``<= 0``
(else all ``k`` are positive), so every other row of ``C`` adds ``<= 0``, and
``sum_C a_u <= |C| s``: the class's stars pay its rows' charges. Sum over the classes. (It is
the dual of the set-partitioning LP over suppression classes, restricted to these charges:
the "full dual LP" the partner bound approximates level by level.) ∎

Only buckets of level ``s <= last`` holding a row of level ``s`` can fail: every row of a
level-``s`` bucket with ``>= k`` rows has ``L <= s``, so ``a <= L + 1 <= s`` unless
``L = s``; buckets above ``last`` hold rows with ``a <= last + 1``. The constraint "the ``k``
largest sum to ``<= 0``" is linear by LP duality: some ``lambda_B`` (free) and
``mu_(B, u) >= max(0, a_u - s - lambda_B)`` with ``k lambda_B + sum_u n_u mu_(B, u) <= 0``.
Each free charge in ``B`` gets its own ``mu``; the fixed ones (rows of level 0 at charge
0: no other fixed row is in such a bucket) share one ``mu`` per bucket. The LP has about
``3 x`` its buckets' memberships in nonzeros. Every charge vector of the partner bound is a
feasible point (its proof shows the condition), so this bound is never below it. (Putting
the rows of levels ``<= s - 2`` in at the upper end of their charges instead, a smaller LP,
fell below the partner bound on small tables.)

The LP is solved by HiGHS's dual simplex (``scipy.optimize.linprog``). Its answer is checked
from scratch: each charge lowered by ``1e-7`` and rounded down to a multiple of ``2^-20`` (so
the sums below are exact), every bucket's ``k`` largest summed; a failing check gives no
bound. The bound is the sum of the charges, rounded up (the optimum is a whole number).

Work limits, never a clock: HiGHS solves the LP within :data:`MAX_NONZEROS` nonzeros and
stops after :data:`MAX_ITERATIONS` simplex iterations (then no bound), so the same table
gives the same answer on every machine. Past :data:`MAX_NONZEROS` (stop 38; up to
:data:`.charge_pdlp.MAX_NONZEROS`) PDLP solves it in full within its work limit, its answer
lowered by :data:`.charge_pdlp.MARGIN` and repaired: an LP over the buckets it breaks lowers
their row types' charges, every other charge kept (lowering never breaks a bucket), and
the check confirms the result (:mod:`.charge_pdlp`). A repair that gives nothing (its LP
stopped, or the check failing) is tried once more from PDLP's answer lowered by
:data:`.charge_pdlp.RETRY_MARGIN`, as for the diversity LPs: fewer buckets break (adult,
9 QIs, k = 10 with PDLP's work limit at 5e8: 1,189 broken and the repair stopped at its
iteration limit; from the lower point 343 broken, 3,497 iterations, bound 42,384).

Competition (stop 34, as the bucket LP's of :mod:`.heuristic._bucket_lp`): the free row types'
mean number of buckets of ``>= k`` rows at their levels, over the buckets' mean rows / ``k``.
Above :data:`MAX_COMPETITION` (with at least :data:`MIN_NONZEROS_COMPETED` nonzeros) the LP
is not solved and gives no bound. On adult (8 and 9 QIs, k = 2..10) it is 0.95-2.85 where
the LP is built (its bounds unchanged). On uniform random tables (``bench/auto_budget.py
--shapes``: 2,000-5,000 rows, 6-12 QIs of 2-5 values) the LPs of competition 6.5-16.4
(k = 3..10) each ran into :data:`MAX_ITERATIONS` and gave no bound after 7.8-19 CPU s; those
of 3.2-5.2 (k = 2 and 3) were solved in 0.05-0.9 s, and one of 8.8 (3,000 rows, 12 binary
QIs, k = 3; 0.14 s, bound 3,462) is now skipped too: a rule on the LP's shape, measured
before solving, not a proof that the skipped LP would have stopped. Between
:data:`CROWDED` (3) and the limit HiGHS gets :data:`CROWDED_ITERATIONS` (12,000) iterations
instead of 40,000: the random tables' LPs there that finished needed 1,573-9,881 (one
18,504, 4,000 x 8 QIs of 3 values, k = 3: no bound now), those that did not (6,000 x 5 QIs
of 8 values, k = 3 and 5, competition 3.3 and 4.5) took 16-19 CPU s to stop at 40,000;
adult's (competition at most 2.85) keep 40,000 (k = 2 needs 29,057).

Buckets whose constraint already holds at the charges' upper ends are left out (a quarter
of them on adult, k = 2; the LP took 3.8 instead of 4.9 s).

Cost on ARX adult (30,162 rows, 9 QIs; 2026-11-26, one core): k = 2, 15,512 free charges,
322,000 nonzeros, 29,000 iterations, about 4 s, 19,177 (partner bound 19,049). k = 3, 5 and
10 need 557,000 to 985,000 nonzeros (k = 3 and 5 took 35 and 190 s by HiGHS without the
limits and gave 26,498 and 33,852). By PDLP (2026-11-27, two threads): k = 3 / 5 / 10
26,494 / 33,842 / 42,446 (the partner bound 26,310 / 33,589 / 42,158) in 3.8 / 4.4 / 5.7 s
(704 / 576 / 608 PDLP iterations, k = 10 at its work limit; the repair LPs 3,092-7,329
simplex iterations), measured with the test suite running on the other core.

Widening (stop 46). The box ``[0, L(v) + 1]`` is a restriction of the LP core's k-anonymity
relaxation (Liang & Yuan Thm 9 with class indicators; its dual is this LP without boxes over
every bucket), and it is the restriction that costs: on the first 1,000 rows of ARX adult (8
QIs, k = 5) the full dual over every bucket gives 1,637.6 with upper ends ``L + 1``, 1,672.8
with ``L + 2``, 1,678.1 with ``L + 3`` and 1,680.0 without boxes (the LP core's optimum;
charges below 0 add 0.5); on the first 2,000 rows with 9 QIs, k = 3, 3,360.5 / 3,410.0 for
``L + 1`` / ``L + 2``. *Claim:* with row type ``v``'s upper end at ``L(v) + w(v)`` the claim
above holds when every bucket holding a row type with ``L(v) <= s < L(v) + w(v)`` meets its
condition (in a bucket of ``s`` stars a row type with ``L(v) + w(v) <= s`` has ``a - s <=
0``, and one with ``L(v) > s`` is in no bucket of ``>= k`` rows, so the proof above goes
through). So, from the plain LP's checked charges, up to :data:`WIDEN_ROUNDS` times (and
:data:`WIDEN_WORK` over the plain LP's nonzeros; a round gaining less than
:data:`WIDEN_MIN_GAIN` of the bound is the last): the row types whose charge is within
:data:`.l_charge_widening.AT_END` of its upper end (at most :data:`WIDEN_BATCH` of them,
those of the most rows) get ``w + 1`` (while ``L + w <= min(last, m - 1)``: no charge above
``m``); an LP frees their charges only, every other charge kept, over the buckets holding
one of them (at every level: a raised charge can tip a bucket of a higher level too; the
others keep their charges, so their condition still holds), the kept members of a bucket cut
to its ``k`` largest (:func:`_top_k`, the same ``k`` largest); its answer goes onto the grid
and those buckets are checked, the kept charges unchanged; the last round's charges are
checked from scratch over every bucket the widths make able to fail (:func:`satisfied`). The
previous charges are a feasible point, so the bound never falls; a round that stops
(:data:`WIDENED_ITERATIONS`, :data:`WIDENED_MAX_NONZEROS`) or fails its check ends the
widening with the bound before it. Not after a plain LP of more than
:data:`WIDEN_MAX_NONZEROS` nonzeros (adult k = 10). Measured: the first 1,000 / 2,000 rows
above 1,638 -> 1,668 and 3,361 -> 3,390 in under 0.2 s; adult (9 QIs) k = 3 / 5 26,494 /
33,842 -> 26,598 / 33,950 (+0.4 / +0.3 %; 2 / 1 rounds) for about 1.6 / 0.5 s; the bundled
sample's main job (census, 10,000 rows, k = 5) 9,274 -> 9,317 for 0.7 s.

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (a row of a class with star set ``S`` costs ``|S|``).
A. Meyerson and R. Williams, "On the Complexity of Optimal K-Anonymity", Lemma 4.1 (a class
pays ``|S|`` per row; here the payment is shared out as charges).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.bounds import Levels, bucket_members, pattern_levels, top_sums
from starmin.algorithms.charge_lp import GRID, Program, ceil_ticks, solve, to_ticks
from starmin.algorithms.charge_pdlp import MARGIN, RETRY_MARGIN, solve_pdlp
from starmin.algorithms.charge_pdlp import MAX_NONZEROS as PDLP_MAX_NONZEROS
from starmin.algorithms.charge_pdlp import MAX_WORK as PDLP_MAX_WORK
from starmin.algorithms.competition import competition
from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys, masks_of_level
from starmin.algorithms.l_charge_widening import AT_END
from starmin.data.rowtypes import RowTypes

Bucketed = tuple[int, IntArray, IntArray, int]
"""A level ``s``, the member row types of its buckets, each one's bucket and their number."""

MAX_NONZEROS = 400_000
"""HiGHS's dual simplex solves the LP up to this many nonzeros (adult, 9 QIs: k = 2 needs
322,000, k = 3 557,000); PDLP beyond, up to :data:`.charge_pdlp.MAX_NONZEROS` (the LP is
not built past the larger of the two)."""
MAX_COMPETITION = 6.0
"""A charge LP whose competition (module docstring) exceeds this is not solved."""
MIN_NONZEROS_COMPETED = 20_000
"""Smaller charge LPs are solved whatever their competition."""
CROWDED = 3.0
"""Above this competition (and at most :data:`MAX_COMPETITION`) HiGHS gets at most
:data:`CROWDED_ITERATIONS` simplex iterations."""
CROWDED_ITERATIONS = 12_000
"""The iteration limit of a charge LP whose competition exceeds :data:`CROWDED`."""
WIDEN_ROUNDS = 3
"""Widenings at most (module docstring, "Widening")."""
WIDEN_BATCH = 600
"""Row types widened per round at most (those of the most rows): one LP over all of adult's
(9 QIs) k = 5 row types at their upper ends (1,623) needed 29,581 simplex iterations and 3.7
s, in batches of 400 each took 6,500-7,400 iterations and 0.4 s."""
WIDEN_MAX_NONZEROS = 800_000
"""No widening after a plain LP of more nonzeros (its buckets, enumerated once more per
widening and check, cost too much: adult, 9 QIs, k = 10's 985,000 nonzeros took 0.7-1.1 s
a round, and its plain LP is at PDLP's work limit already)."""
WIDEN_WORK = 1_200_000
"""Widenings at most: this over the plain LP's nonzeros (each round enumerates the buckets
again: adult, 9 QIs, k = 3 / 5 get 2 / 1 rounds, 0.5-0.8 s each there)."""
WIDEN_MIN_GAIN = 5e-4
"""A round raising the bound by less than this share of it is the last (adult, 9 QIs, k = 2:
1-2 stars a round)."""
WIDENED_MAX_NONZEROS = 400_000
"""A widening's restricted LP is not built past this many nonzeros."""
WIDENED_ITERATIONS = 20_000
"""HiGHS's simplex iteration limit for a widening's restricted LP (then no gain from it)."""
MAX_ITERATIONS = 40_000
"""HiGHS's simplex iteration limit; a stopped LP gives no bound (adult k = 2 needs 29,000;
an iteration cost 0.13 ms there and 0.5 ms at k = 3's size)."""

def charge_lower_bound(rt: RowTypes, k: int, progress: Progress | None = None, *,
                       max_nonzeros: int = MAX_NONZEROS,
                       max_iterations: int = MAX_ITERATIONS,
                       max_competition: float = MAX_COMPETITION,
                       max_pdlp_work: float = PDLP_MAX_WORK,
                       widen: int = WIDEN_ROUNDS) -> int | None:
    """The charge LP bound on the fewest stars of a k-anonymous release of ``rt``, or
    ``None`` when the LP is over its work limits, HiGHS does not finish it, or its answer
    fails the check (the module docstring has the proof and the limits).

    ``max_competition``: the LP is not solved above this competition (module docstring).
    ``max_pdlp_work``: PDLP's iterations times nonzeros when the LP is over ``max_nonzeros``
    (:data:`.charge_pdlp.MAX_WORK`; module docstring). ``widen``: the widenings at most
    (module docstring, "Widening"; 0 for the plain LP's bound).
    The answer depends only on the row types (their codes, sizes and order), ``k`` and the
    limits, so the last :data:`_REMEMBERED` answers are kept by a digest of those:
    ``pattern-packing`` computes it for its plan's bound, and the report asks again; a
    call made while another thread computes the same answer waits for it (:data:`_RUNNING`;
    :func:`starmin.api.anonymize` starts it beside the solve)."""
    k = int(k)
    if k < 2 or rt.t_in == 0:
        return None
    key = (_digest(rt), k, int(max_nonzeros), int(max_iterations), float(max_competition),
           float(max_pdlp_work), int(widen))
    report = progress or silent
    while True:  # remembered, being computed by another thread (wait for it), or ours
        with _LOCK:
            if key in _ANSWERS:
                _ANSWERS.move_to_end(key)
                return _ANSWERS[key]
            running = _RUNNING.get(key)
            if running is None:
                running = _RUNNING[key] = threading.Event()
                break
        report("bounds: waiting for the charge LP another thread is solving (the same row "
               "types and k)")
        running.wait()  # then remembered, or that thread failed and this one computes it
    try:
        value = _charge_bound(rt, k, report, max_nonzeros, max_iterations,
                              max_competition, max_pdlp_work, int(widen))
        with _LOCK:
            _ANSWERS[key] = value
            while len(_ANSWERS) > _REMEMBERED:
                _ANSWERS.popitem(last=False)
    finally:
        with _LOCK:
            del _RUNNING[key]
        running.set()
    return value


_Key = tuple[bytes, int, int, int, float, float, int]
_REMEMBERED = 8
_ANSWERS: OrderedDict[_Key, int | None] = OrderedDict()
_RUNNING: dict[_Key, threading.Event] = {}
"""The answers being computed, each set when its thread is done: a second caller (the
report's after ``pattern-packing``, or ``pattern-packing`` while :func:`starmin.api.anonymize`
computes it beside the solve) waits instead of solving the same LP again."""
_LOCK = threading.Lock()


def _digest(rt: RowTypes) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    codes = np.ascontiguousarray(rt.codes, dtype=np.int64)
    h.update(np.asarray(codes.shape, dtype=np.int64).tobytes())
    h.update(codes.tobytes())
    h.update(np.ascontiguousarray(rt.sizes, dtype=np.int64).tobytes())
    return h.digest()


def _charge_bound(rt: RowTypes, k: int, report: Progress, max_nonzeros: int,
                  max_iterations: int, max_competition: float = MAX_COMPETITION,
                  max_pdlp_work: float = PDLP_MAX_WORK, widen: int = 0) -> int | None:
    """:func:`charge_lower_bound`, computed."""
    lv = pattern_levels(rt, k)
    lev, n = lv.L, rt.sizes.astype(np.int64)
    free = (lev >= 1) & (lev <= lv.last)
    if not free.any():
        return None
    keys = PatternKeys(rt.codes)
    ub = np.where(free, lev + 1.0, lev.astype(np.float64))
    built = _build(keys, lv, n, k, free, ub, max(max_nonzeros, PDLP_MAX_NONZEROS))
    if built is None:
        report(f"bounds: no charge LP (over its limit of "
               f"{max(max_nonzeros, PDLP_MAX_NONZEROS):,} nonzeros)")
        return None
    lp, competition = built
    if lp.nnz >= MIN_NONZEROS_COMPETED and competition > max_competition:
        report(f"bounds: no charge LP (its competition {competition:.1f} is over "
               f"{max_competition:g}: row types in many buckets of about k rows)")
        return None
    widen_iterations = min(max_iterations, WIDENED_ITERATIONS)  # crowded or not
    if lp.nnz > WIDEN_MAX_NONZEROS:
        widen = 0
    widen = min(widen, WIDEN_WORK // max(lp.nnz, 1))
    if competition > CROWDED:
        max_iterations = min(max_iterations, CROWDED_ITERATIONS)
    charge = ub.copy()
    if lp.n_rows == 0:  # no bucket can fail: every free charge at its upper end
        pass
    elif lp.nnz <= max_nonzeros:
        a = solve(lp, n[free].astype(np.float64), max_iterations, report, "charge LP")
        if a is None:
            return None
        charge[free] = a
    else:  # too large for the dual simplex: PDLP in full, then the repair
        report(f"bounds: the charge LP ({lp.nnz:,} nonzeros) is over the dual simplex's "
               f"limit of {max_nonzeros:,}: PDLP, then a repair")
        a = solve_pdlp(lp, n[free].astype(np.float64), int(max_pdlp_work // lp.nnz), report,
                       "charge LP by PDLP")
        if a is None:
            return None
        for margin in (MARGIN, RETRY_MARGIN):  # a failed repair is tried once more, lower
            report(f"bounds: repairing PDLP's answer lowered by {margin:g}")
            lowered = charge.copy()
            lowered[free] = np.clip(a - margin, 0.0, ub[free])
            repaired = _repair(keys, lv, n, k, free, lowered, PDLP_MAX_NONZEROS,
                               max_iterations, report)
            bound = None if repaired is None else _checked(keys, lv, n, k, free, ub,
                                                           repaired, report, widen,
                                                           widen_iterations)
            if bound is not None:
                return bound
        return None
    return _checked(keys, lv, n, k, free, ub, charge, report, widen, widen_iterations)


def _checked(keys: PatternKeys, lv: Levels, n: IntArray, k: int, free: NDArray[np.bool_],
             ub: NDArray[np.float64], charge: NDArray[np.float64], report: Progress,
             widen: int = 0, max_iterations: int = WIDENED_ITERATIONS) -> int | None:
    """The bound of ``charge`` (free charges rounded down to the grid, the others at their
    levels) when it passes :func:`satisfied` from scratch, else ``None``; then up to
    ``widen`` rounds of :func:`_widened` from it."""
    got = _on_grid(keys, lv, n, k, free, ub, charge, report)
    if got is None:
        return None
    if widen > 0:
        return _widened(keys, lv, n, k, free, got[1], got[0], report, widen, max_iterations)
    return got[0]


def _on_grid(keys: PatternKeys, lv: Levels, n: IntArray, k: int, free: NDArray[np.bool_],
             ub: NDArray[np.float64], charge: NDArray[np.float64], report: Progress,
             given: list[Bucketed] | None = None, kept: NDArray[np.bool_] | None = None
             ) -> tuple[int, NDArray[np.float64]] | None:
    """:func:`_checked`'s bound and the charges on the grid that give it, ``given`` as in
    :func:`satisfied`; the charges of ``kept`` are on the grid already (a
    widening's fixed ones) and stay as they are."""
    lev = lv.L
    ticks = np.zeros(keys.t, dtype=np.int64)  # charges in units of 1 / GRID
    ticks[~free] = lev[~free] * GRID
    ticks[free] = to_ticks(charge[free], 0.0, ub[free])
    if kept is not None:
        ticks[kept] = np.round(charge[kept] * GRID).astype(np.int64)
    if not satisfied(keys, lv, n, k, ticks / GRID, given=given):
        report("bounds: charge LP answer failed its check: no charge bound")
        return None
    return ceil_ticks(int((n * ticks).sum())), ticks / GRID  # exact: at most n x 64 x 2^20


def _widened(keys: PatternKeys, lv: Levels, n: IntArray, k: int, free: NDArray[np.bool_],
             charge: NDArray[np.float64], bound: int, report: Progress, rounds: int,
             max_iterations: int) -> int:
    """The bound after up to ``rounds`` widenings from ``charge`` (checked, giving
    ``bound``): at least ``bound`` (module docstring, "Widening")."""
    lev = lv.L
    width = np.ones(keys.t, dtype=np.int64)
    accepted, start = width, bound
    top = min(lv.last, keys.m - 1)  # buckets enumerated; no charge above m
    for i in range(rounds):
        grow = free & (charge >= lev + width - AT_END) & (lev + width <= top)
        if not grow.any():
            break
        if grow.sum() > WIDEN_BATCH:  # the most rows first (ties: the first row type)
            at = np.flatnonzero(grow)
            grow[:] = False
            grow[at[np.argsort(-n[at], kind="stable")[:WIDEN_BATCH]]] = True
        width = width + grow
        ub = np.where(grow, (lev + width).astype(np.float64), charge)
        given = list(_level_buckets(keys, lv, n, k, only=grow))  # the others keep charges
        built = _build(keys, lv, n, k, grow, ub, WIDENED_MAX_NONZEROS, given=given)
        what = f"charge LP widened {i + 1} ({int(grow.sum()):,} row types)"
        if built is None:
            report(f"bounds: {what} is over its limit of {WIDENED_MAX_NONZEROS:,} nonzeros")
            break
        a = ub[grow] if built[0].n_rows == 0 else solve(
            built[0], n[grow].astype(np.float64), max_iterations, report, what)
        if a is None:
            break
        trial = charge.copy()
        trial[grow] = a
        got = _on_grid(keys, lv, n, k, free, (lev + width).astype(np.float64), trial, report,
                       given=given, kept=free & ~grow)
        if got is None or got[0] <= bound:
            break
        report(f"bounds: {what}: {got[0]:,} (was {bound:,})")
        small = got[0] - bound < WIDEN_MIN_GAIN * bound
        bound, charge = got
        accepted = width.copy()
        if small:
            break
    if bound > start and not satisfied(keys, lv, n, k, charge, accepted):
        report("bounds: the widened charges failed the check from scratch: the plain LP's "
               f"{start:,} stands")
        return start
    return bound


def _repair(keys: PatternKeys, lv: Levels, n: IntArray, k: int, free: NDArray[np.bool_],
            charge: NDArray[np.float64], max_nonzeros: int, max_iterations: int,
            report: Progress) -> NDArray[np.float64] | None:
    """``charge`` (PDLP's answer, lowered) with the charges of the row types in the buckets
    it breaks lowered by an LP over those buckets, every other charge kept (lowering never
    breaks a bucket: its condition only grows with the charges), or ``None`` when that LP
    is over its limits (``max_nonzeros``: PDLP's, as the LP it repairs; the dual simplex's
    iterations, ``max_iterations``) or stopped. The caller checks the result from scratch."""
    broken = np.zeros(keys.t, dtype=bool)
    count = 0
    for s, member, bucket, nb in _level_buckets(keys, lv, n, k):
        bad = top_sums(bucket, charge[member] - s, n[member], k, nb) > 0
        count += int(bad.sum())
        broken[member[bad[bucket]]] = True
    report(f"bounds: PDLP's answer breaks {count:,} buckets; repairing")
    if count == 0:
        return charge
    lower = free & broken
    built = _build(keys, lv, n, k, lower, charge, max_nonzeros)  # the broken buckets only
    if built is None:
        report(f"bounds: no charge LP (the repair is over its limit of {max_nonzeros:,} "
               "nonzeros)")
        return None
    a = solve(built[0], n[lower].astype(np.float64), max_iterations, report,
              "charge LP (repair)")
    if a is None:
        return None
    out = charge.copy()
    out[lower] = a
    return out


def _build(keys: PatternKeys, lv: Levels, n: IntArray, k: int, free: NDArray[np.bool_],
           ub: NDArray[np.float64], max_nonzeros: int, given: list[Bucketed] | None = None
           ) -> tuple[Program, float] | None:
    """The LP over the free charges (columns ``0 .. free.sum() - 1``, each in ``[0, ub]``) and
    the buckets that fail with every charge at ``ub``, and its competition (module
    docstring), or ``None`` past ``max_nonzeros``. The other row types in those buckets keep
    the charge ``ub`` gives them: the rows of level 0 charge 0 (module docstring; in
    :func:`_repair`'s LP every member of a broken bucket that has a charge is free); in
    :func:`_widened`'s restricted LP the charges not widened keep their values.
    ``given``: these buckets instead of :func:`_level_buckets`'s."""
    lp = Program()
    options = np.zeros(keys.t, dtype=np.int64)   # buckets of each free row type
    buckets, rows = 0, 0
    var = np.full(keys.t, -1, dtype=np.int64)
    var[free] = lp.columns(int(free.sum()), 0.0, ub[free])
    for s, member, bucket, nb in (_level_buckets(keys, lv, n, k) if given is None
                                  else given):
        options += np.bincount(member[free[member]], minlength=keys.t)
        buckets, rows = buckets + nb, rows + int(n[member].sum())
        tight = top_sums(bucket, ub[member] - s, n[member], k, nb) > 0
        if not tight.all():  # the charges' upper ends already fit: no constraint needed
            keep = tight[bucket]
            member, bucket = member[keep], (np.cumsum(tight) - 1)[bucket[keep]]
            nb = int(tight.sum())
            if nb == 0:
                continue
        lam = lp.columns(nb, -np.inf, np.inf)
        top = lp.constraints(np.zeros(nb))
        lp.entries(top, lam, float(k))
        own = free[member]
        u, bu = member[own], bucket[own]
        mu = lp.columns(len(u), 0.0, np.inf)
        lp.entries(top[bu], mu, n[u].astype(np.float64))
        pair = lp.constraints(np.full(len(u), float(s)))   # a_u - lambda - mu <= s
        lp.entries(pair, var[u], 1.0)
        lp.entries(pair, lam[bu], -1.0)
        lp.entries(pair, mu, -1.0)
        kept = ~own & (ub[member] != 0.0)                     # fixed, charge ub: own mu
        if kept.any():
            u, bu, nu = _top_k(member[kept], bucket[kept], ub, n, k)
            mu = lp.columns(len(u), 0.0, np.inf)
            lp.entries(top[bu], mu, nu)
            pair = lp.constraints(s - ub[u])                 # ub_u - lambda - mu <= s
            lp.entries(pair, lam[bu], -1.0)
            lp.entries(pair, mu, -1.0)
        zero = ~own & ~kept
        w, bw = member[zero], bucket[zero]                   # level 0, charge 0
        count = np.bincount(bw, weights=n[w], minlength=nb).astype(np.float64)
        cb = np.nonzero(count)[0].astype(np.int64)
        mu_0 = lp.columns(len(cb), 0.0, np.inf)
        lp.entries(top[cb], mu_0, count[cb])
        zero = lp.constraints(np.full(len(cb), float(s)))   # 0 - s - lambda - mu <= 0
        lp.entries(zero, lam[cb], -1.0)
        lp.entries(zero, mu_0, -1.0)
        if lp.nnz > max_nonzeros:
            return None
    return lp, competition(options, rows, buckets, k)


def _top_k(member: IntArray, bucket: IntArray, charge: NDArray[np.float64], n: IntArray,
           k: int) -> tuple[IntArray, IntArray, NDArray[np.float64]]:
    """The fixed members of each bucket (positive charges, row type ``u`` counted ``n_u``
    times) that can be among its ``k`` largest: the largest charges up to ``k`` rows, the
    last one's count cut to reach ``k`` -- with the same ``k`` largest as all of them, so the
    LP's condition is the same. ``(member, bucket, count)``."""
    order = np.lexsort((-charge[member], bucket))
    m, b = member[order], bucket[order]
    c = n[m].astype(np.int64)
    ahead = np.cumsum(c) - c
    first = np.searchsorted(b, b)  # the start of each one's bucket
    ahead = ahead - ahead[first]
    keep = ahead < k
    return m[keep], b[keep], np.minimum(c, k - ahead)[keep].astype(np.float64)


def _buckets(keys: PatternKeys, mask: int, rows: IntArray, n: IntArray, k: int
             ) -> tuple[IntArray, IntArray, int]:
    """Buckets under ``mask`` holding one of ``rows`` and ``>= k`` rows: every member row
    type, its bucket (numbered ``0 .. nb - 1``) and ``nb``."""
    member, bucket, nb = bucket_members(keys, mask, rows)
    big = np.bincount(bucket, weights=n[member], minlength=nb) >= k
    keep = big[bucket]
    renum = np.cumsum(big) - 1
    return member[keep], renum[bucket[keep]], int(big.sum())


def satisfied(keys: PatternKeys, lv: Levels, n: IntArray, k: int,
              charge: NDArray[np.float64], width: IntArray | None = None,
              given: list[Bucketed] | None = None) -> bool:
    """Whether every bucket of ``>= k`` rows at levels ``1 .. last`` holding a row of its
    level has its ``k`` largest ``charge - level`` (rows counted one by one) summing to at
    most 0 -- the claim's condition, checked from scratch. With ``width``
    (:func:`_widened`) every bucket of ``s`` stars holding a row type with ``L(v) <=
    s < L(v) + width(v)``; ``given``: these buckets only (:func:`_widened`)."""
    return not any((top_sums(bucket, charge[member] - s, n[member], k, nb) > 0).any()
                   for s, member, bucket, nb in (_level_buckets(keys, lv, n, k, width)
                                                 if given is None else given))


def _level_buckets(keys: PatternKeys, lv: Levels, n: IntArray, k: int,
                   width: IntArray | None = None, only: NDArray[np.bool_] | None = None
                   ) -> Iterator[Bucketed]:
    """For each level ``s = 1 .. last`` and pattern of ``s`` columns, the buckets of ``>= k``
    rows holding a row of level ``s`` (when there are any): ``s`` and :func:`_buckets`. With
    ``width`` (per row type; the charges reach ``L(v) + width(v)``, :func:`_widened`)
    the buckets holding a row type with ``1 <= L(v) <= s < L(v) + width(v)``. With ``only``
    (row types, :func:`_widened`; ``width`` unused), every bucket of ``>= k`` rows holding
    one of them, at every level ``s >= L(v)``."""
    lev = lv.L
    for s in range(1, lv.last + 1):
        if only is not None:
            at = (lev >= 1) & (lev <= s) & only
        elif width is not None:
            at = (lev >= 1) & (lev <= s) & (lev + width > s)
        else:
            at = lev == s
        at_s = np.nonzero(at)[0].astype(np.int64)
        if len(at_s) == 0:
            continue
        for mask in masks_of_level(keys.m, s):
            member, bucket, nb = _buckets(keys, mask, at_s, n, k)
            if nb:
                yield s, member, bucket, nb
