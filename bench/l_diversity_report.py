"""Summaries, checks and markdown tables for bench/l_diversity_experiments.py."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from l_diversity_runs import METHODS

Run = dict[str, Any]


def _mean(xs: Iterable[float]) -> float | None:
    v = list(xs)
    return sum(v) / len(v) if v else None


def _by(runs: Iterable[Run], key: str, field: str) -> dict[int, float | None]:
    """Mean of ``field`` per value of ``key``, keys sorted."""
    acc: dict[int, list[float]] = defaultdict(list)
    for r in runs:
        acc[r[key]].append(r[field])
    return {k: _mean(acc[k]) for k in sorted(acc)}


def _ratio(r: Run, num: str, den: str) -> float | None:
    """``r[num] / r[den]``; 1 when both are 0 (nothing to suppress and nothing suppressed),
    None (unbounded) when only the denominator is 0."""
    if r[den] == 0:
        return 1.0 if r[num] == 0 else None
    return float(r[num] / r[den])


def _stats(xs: list[float | None]) -> dict[str, float | int | None]:
    """Mean, max, min of the finite ratios; ``unbounded`` counts the others."""
    v = [x for x in xs if x is not None]
    return {"runs": len(xs), "unbounded": len(xs) - len(v), "mean": _mean(v),
            "max": max(v) if v else None, "min": min(v) if v else None}


def summarize_table(t: dict[str, Any]) -> dict[str, Any]:
    """Figure-ready aggregates of one projection sweep."""
    runs = t["runs"]
    fig_l = [r for r in runs if r["sampled"] and r["d"] == t["fig_d"]]
    fig_d = [r for r in runs if r["sampled"] and r["l"] == t["fig_l"]]
    tp = [r for r in runs if r["method"] == "tp"]
    out: dict[str, Any] = {"name": t["name"], "n": t["n"], "max_l": t["max_l"],
                           "infeasible_ls": t["infeasible_ls"], "fig_d": t["fig_d"],
                           "fig_l": t["fig_l"]}
    for what, sel, key in (("vs_l", fig_l, "l"), ("vs_d", fig_d, "d")):
        for field in ("stars", "seconds", "cpu_seconds", "tuples", "largest_class"):
            out[f"{field}_{what}"] = {m: _by([r for r in sel if r["method"] == m], key, field)
                                      for m in METHODS}
        out[f"lower_bound_{what}"] = _by([r for r in sel if r["method"] == "tp"], key,
                                         "lower_bound")
        out[f"projections_{what}"] = len({tuple(r["qi"]) for r in sel})
    out["t_in_vs_d"] = _by([r for r in tp if r["l"] == t["ls"][0]], "d", "t_in")
    out["phases"] = _phases(tp)
    out["tp_tuple_gap"] = _gap(tp, "tuples")
    out["star_gap"] = {m: _gap([r for r in fig_l if r["method"] == m], "stars")
                       for m in METHODS}
    out["wins_vs_d"] = _wins(fig_d)
    return out


def _phases(tp: list[Run]) -> dict[str, Any]:
    """How TP ended: counts per l and per d, and the runs that needed phase three."""
    per_l: dict[int, dict[int, int]] = defaultdict(lambda: {1: 0, 2: 0, 3: 0})
    per_d: dict[int, dict[int, int]] = defaultdict(lambda: {1: 0, 2: 0, 3: 0})
    for r in tp:
        per_l[r["l"]][r["phase"]] += 1
        per_d[r["d"]][r["phase"]] += 1
    third = [{"qi": r["qi"], "l": r["l"], "rounds": r["phase3_rounds"]}
             for r in tp if r["phase"] == 3]
    return {"runs": len(tp), "tables": len({tuple(r["qi"]) for r in tp}),
            "per_l": {k: per_l[k] for k in sorted(per_l)},
            "per_d": {k: per_d[k] for k in sorted(per_d)},
            "phase_three": len(third), "phase_three_runs": third[:40]}


def _gap(runs: list[Run], field: str) -> dict[str, Any]:
    """``field / lower_bound`` (TP's proven bound on OPT), overall and per l."""
    ok = [r for r in runs if r["lower_bound"] is not None]
    per_l: dict[int, list[float | None]] = defaultdict(list)
    for r in ok:
        per_l[r["l"]].append(_ratio(r, field, "lower_bound"))
    allv = [x for v in per_l.values() for x in v]
    return {"all": _stats(allv), "per_l": {k: _stats(per_l[k]) for k in sorted(per_l)}}


def _wins(runs: list[Run]) -> dict[int, dict[str, float | None]]:
    """Per d, the share of tables where one method has fewer stars than another."""
    stars: dict[tuple[Any, ...], dict[str, int]] = defaultdict(dict)
    for r in runs:
        stars[(r["d"], tuple(r["qi"]), r["l"])][r["method"]] = r["stars"]
    per_d: dict[int, list[dict[str, int]]] = defaultdict(list)
    for (d, _, _), s in stars.items():
        if len(s) == len(METHODS):
            per_d[d].append(s)
    pairs = {"tp_beats_hilbert": ("tp", "hilbert"), "tp_plus_beats_hilbert": ("tp+", "hilbert"),
             "tp_beats_hilbert_greedy": ("tp", "hilbert/greedy"),
             "tp_plus_greedy_beats_hilbert_greedy": ("tp+/greedy", "hilbert/greedy")}
    out: dict[int, dict[str, float | None]] = {}
    for d, v in sorted(per_d.items()):
        out[d] = {"tables": len(v)}
        for name, (a, b) in pairs.items():
            out[d][name] = _mean(float(s[a] < s[b]) for s in v)
        out[d]["tp_plus_le_tp"] = _mean(float(s["tp+"] <= s["tp"]) for s in v)
    return out


def summarize_scaling(s: dict[str, Any]) -> dict[str, Any]:
    runs = s["runs"]
    out: dict[str, Any] = {"name": s["name"], "l": s["l"], "projections": len(s["qi_sets"]),
                           "t_in": _by(runs, "n", "t_in"),
                           "aggregate_seconds": _by(runs, "n", "aggregate_seconds")}
    for m in sorted({r["method"] for r in runs}):
        sel = [r for r in runs if r["method"] == m]
        out[f"{m}_seconds"] = _by(sel, "n", "seconds")
        out[f"{m}_cpu_seconds"] = _by(sel, "n", "cpu_seconds")
        out[f"{m}_stars"] = _by(sel, "n", "stars")
    return out


def summarize_exact(e: dict[str, Any]) -> dict[str, Any]:
    """Ratios to the exact optimum per method, overall, per ``d`` and per ``l``."""
    runs = [r for r in e["runs"] if r["method"] in METHODS]
    out: dict[str, Any] = {"name": e["name"], "method": e["method"], "key": e["key"],
                           "instances": sum(r["method"] == e["method"] for r in e["runs"]),
                           "skipped": e.get("skipped"),
                           "solver_limits": e.get("solver_limits", [])}
    for m in METHODS:
        sel = [r for r in runs if r["method"] == m]
        out[m] = {"all": _stats([_ratio(r, "stars", "opt") for r in sel]),
                  "optimal_share": _mean(float(r["stars"] == r["opt"]) for r in sel)}
        for key in ("d", "l"):
            per: dict[int, list[float | None]] = defaultdict(list)
            for r in sel:
                per[r[key]].append(_ratio(r, "stars", "opt"))
            out[m][f"per_{key}"] = {k: _stats(per[k]) for k in sorted(per)}
    tp = [r for r in runs if r["method"] == "tp"]
    out["lower_bound_over_opt"] = _stats([_ratio(r, "lower_bound", "opt") for r in tp])
    out["phases"] = _phases(tp)
    return out


# -- checks ----------------------------------------------------------------------------------
def all_runs(results: dict[str, Any]) -> list[Run]:
    out: list[Run] = []
    for t in results["tables"]:
        out += t["runs"]
    for s in results["scaling"]:
        out += s["runs"]
    for e in results["exact"]:
        out += e["runs"]
    return out


def check_runs(results: dict[str, Any]) -> dict[str, Any]:
    """Every property the experiments must satisfy; ``failures`` lists the violations."""
    runs = all_runs(results)
    fail: list[str] = []
    for r in runs:
        tag = f"{r['method']} l={r['l']} qi={r['qi']}"
        if r["verified"] is False:
            fail.append(f"verification failed: {tag}")
        if r["method"] == "tp":
            lb, k = r["lower_bound"], r["tuples"]
            if r["phase"] == 1 and k != lb:                    # Cor. 1: optimal
                fail.append(f"TP phase one but tuples {k} != lower bound {lb}: {tag}")
            if r["phase"] == 2 and k > lb + r["l"] - 1:        # Lemma 6 + Lemma 5
                fail.append(f"TP phase two with tuples {k} > {lb} + l - 1: {tag}")
            if r["l"] == 2 and r["phase"] == 3:                # Thm 2
                fail.append(f"TP ran phase three at l = 2: {tag}")
        if "opt" in r:
            if r["method"] not in METHODS and r["stars"] != r["opt"]:
                fail.append(f"exact methods disagree: {r['stars']} != {r['opt']}: {tag}")
            if r["stars"] < r["opt"]:
                fail.append(f"{r['stars']} stars below the optimum {r['opt']}: {tag}")
            if r["lower_bound"] is not None and r["lower_bound"] > r["opt"]:
                fail.append(f"lower bound {r['lower_bound']} above the optimum: {tag}")
            if r["method"].startswith("tp") and r["stars"] > r["l"] * r["d"] * r["opt"]:
                fail.append(f"ratio l*d broken ({r['stars']} > l*d*{r['opt']}): {tag}")
    for part in (*results["tables"], *results["scaling"], *results["exact"]):
        fail += _tp_plus_not_worse(part["runs"], part["name"])
    limits = [x for e in results["exact"] for x in e.get("solver_limits", [])]
    return {"runs": len(runs), "verified": sum(r["verified"] is True for r in runs),
            "failures": fail, "solver_limits": len(limits)}


def _tp_plus_not_worse(runs: list[Run], name: str) -> list[str]:
    """TP+ never has more stars than TP on the same instance (Sec. 5.6); ``runs`` come from
    one experiment (OCC and SAL share their QI columns, so instances are keyed per table)."""
    seen: dict[tuple[Any, ...], dict[str, int]] = defaultdict(dict)
    for r in runs:
        seen[(name, r["n"], tuple(r["qi"]), r["l"], r.get("sample"))][r["method"]] = \
            r["stars"]
    return [f"{m} {s[m]} > TP {s['tp']} stars at {k}" for k, s in seen.items()
            for m in ("tp+", "tp+/greedy") if "tp" in s and m in s and s[m] > s["tp"]]
