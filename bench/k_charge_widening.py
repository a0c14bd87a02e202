"""The k-anonymity charge LP with and without widened boxes (``charge_bound``, stop 46).

Tables: the first rows of ARX adult with the 8 QIs of ``bench/portfolio.py`` (``adult8:N``)
or all 9 columns as QIs (``adult9:N``), as issue 8's k targets. For each table and ``k``: the
bound of :func:`starmin.algorithms.charge_bound.charge_lower_bound` with ``widen=0`` (the
boxes ``L + 1`` only) and with its defaults, CPU and wall seconds of each; with
``--full-dual`` also the optimum of the full dual LP over every bucket (no level filter,
HiGHS's interior point) with upper ends ``L + 1``, ``L + 2`` and none -- the last is the LP
core's k-anonymity optimum (slow beyond a few thousand rows). Writes
``bench/results/k_charge_widening.json`` and prints the table of
``docs/algorithms/lower-bounds.md``.

    python bench/k_charge_widening.py      # adult8:1000/5 (with the full dual), adult9:2000/3,
                                           # adult9:30162/2,3,5,10
    python bench/k_charge_widening.py --tables adult9:2000/3 --full-dual   # about 15 minutes

A table ``NAME/K1,K2`` runs those ``k``; ``NAME*`` adds the full dual for it.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT, QI8, QI9
from results_file import change, shown, timed, write_runs

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "k_charge_widening.json"


def row_types(name: str) -> Any:
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine

    kind, rows = name.split(":")
    qi = list(QI8 if kind == "adult8" else QI9)
    df = pl.read_csv(ADULT, separator=";").head(int(rows)).select(qi)
    return LocalEngine().to_row_types(df, Schema.of(qi, [])).row_types


def full_dual(rt: Any, k: int, width: int | None) -> float | None:
    """The dual of the LP core's k-anonymity relaxation over every bucket of ``>= k`` rows,
    charges in ``[0, L + width]`` (``None``: free): ``max sum n a`` with, per bucket ``B`` of
    ``s`` stars, ``k lambda_B + sum_u n_u mu_(B, u) <= 0``, ``a_u - lambda_B - mu_(B, u) <= s``."""
    import scipy.sparse as sp
    from scipy.optimize import linprog

    codes, n = np.asarray(rt.codes), rt.sizes.astype(np.float64)
    t, m = codes.shape
    level = np.full(t, m)
    buckets = []
    for s in range(m + 1):
        for S in itertools.combinations(range(m), s):
            keep = [j for j in range(m) if j not in S]
            inv = (np.unique(codes[:, keep], axis=0, return_inverse=True)[1].ravel() if keep
                   else np.zeros(t, dtype=np.int64))
            size = np.bincount(inv, weights=n)
            for b in np.flatnonzero(size >= k):
                member = np.flatnonzero(inv == b)
                buckets.append((s, member))
                level[member] = np.minimum(level[member], s)
    nb, nmu = len(buckets), sum(len(mb) for _, mb in buckets)
    rows, cols, vals, rhs = [], [], [], []
    r, off = 0, t + nb
    for i, (s, member) in enumerate(buckets):
        rows += [r] * (1 + len(member))
        cols += [t + i, *range(off, off + len(member))]
        vals += [float(k), *n[member]]
        rhs.append(0.0)
        r += 1
        for j, u in enumerate(member):
            rows += [r] * 3
            cols += [int(u), t + i, off + j]
            vals += [1.0, -1.0, -1.0]
            rhs.append(float(s))
            r += 1
        off += len(member)
    lo = np.r_[np.zeros(t) if width is not None else np.full(t, -np.inf),
               np.full(nb, -np.inf), np.zeros(nmu)]
    hi = np.r_[level + width if width is not None else np.full(t, np.inf),
               np.full(nb + nmu, np.inf)]
    if width is not None:
        hi[:t][n >= k] = 0.0
    c = np.zeros(t + nb + nmu)
    c[:t] = -n
    res = linprog(c, A_ub=sp.csr_matrix((vals, (rows, cols)), shape=(r, len(c))), b_ub=rhs,
                  bounds=np.column_stack([lo, hi]), method="highs-ipm")
    return None if res.status != 0 else round(-float(res.fun), 1)


def run(spec: str, dual: bool) -> list[dict[str, Any]]:
    from starmin.algorithms import charge_bound

    dual = dual or spec.endswith("*")
    name, _, ks_text = spec.rstrip("*").partition("/")
    ks = [int(x) for x in ks_text.split(",")] if ks_text else [5]
    rt = row_types(name)
    out = []
    for k in ks:
        row: dict[str, Any] = {"table": name, "k": k, "rows": rt.n, "t_in": rt.t_in}
        for key, widen in (("plain", 0), ("widened", charge_bound.WIDEN_ROUNDS)):
            charge_bound._ANSWERS.clear()
            b, spent = timed(charge_bound.charge_lower_bound, rt, k, widen=widen)
            row[key] = {"bound": b, **spent}
        if dual:
            row["full_dual"] = {f"L+{w}" if w else "free": full_dual(rt, k, w)
                                for w in (1, 2, None)}
        print(f"{name} k = {k}: {row['plain']} -> {row['widened']}"
              + (f", full dual {row['full_dual']}" if dual else ""), flush=True)
        out.append(row)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| table | k | row types | plain | CPU s | widened | CPU s | change | full dual "
             "L + 1 / L + 2 / free |", "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        p, w = r["plain"]["bound"], r["widened"]["bound"]
        d = r.get("full_dual")
        lines.append(f"| {r['table']} | {r['k']} | {r['t_in']:,} | {shown(p)} | "
                     f"{r['plain']['cpu_s']} | {shown(w)} | {r['widened']['cpu_s']} | "
                     f"{change(w, p)} | {' / '.join(str(v) for v in d.values()) if d else '-'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+",
                    default=["adult8:1000/5*", "adult9:2000/3", "adult9:30162/2,3,5,10"],
                    help="NAME[/K1,K2,...][*] (k default 5; * adds the full dual)")
    ap.add_argument("--full-dual", action="store_true",
                    help="the full dual LP (upper ends L + 1, L + 2, none) for every table")
    ap.add_argument("--out", type=Path, default=OUT)
    ns = ap.parse_args()
    rows = [r for spec in ns.tables for r in run(spec, ns.full_dual)]
    write_runs(ns.out, rows)
    print(table(rows))


if __name__ == "__main__":
    main()
