"""The LP core's optimum on issue 8's adult targets, run to the end outside ``--method auto``.

For a configuration of ``bench/targets.py`` (e.g. ``l3``), column generation on the model's
main relaxation (:func:`starmin.algorithms.lp.lp_rounding.primary`) runs until no output
vector prices out (or ``--max-rounds``), with the restricted LP solved by HiGHS's interior
point each round (``--lp-solver``; Glop's warm-started primal simplex is the default of the
library and slow there for l >= 3). The certified bound is a lower bound on every release of
the model, whatever the time it took; the report of ``auto`` does not run it (its work is far
over the report's LP budget). Writes ``bench/results/lp_optimum.json`` (one entry per
configuration; the others are kept) and prints the bound, the LP value, rounds and CPU seconds.

    python bench/lp_optimum.py l3              # about 30 CPU minutes on the reference machine
    python bench/lp_optimum.py l3 --max-rounds 25 --key l3-max25  # stopped: repaired bound
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT
from results_file import write_json
from targets import configs

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "lp_optimum.json"


def main() -> None:
    from starmin import model_params
    from starmin.algorithms.lp import lp_rounding
    from starmin.algorithms.lp.colgen import column_generation
    from starmin.algorithms.lp.incremental import SOLVERS
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", choices=list(configs()), help="a configuration of targets.py")
    ap.add_argument("--max-rounds", type=int, default=400)
    ap.add_argument("--lp-solver", choices=SOLVERS, default="highs-ipm")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--key", help="the entry's name in --out (default: the configuration's)")
    ns = ap.parse_args()
    qi, sa, params, _target = configs()[ns.config]
    df = pl.read_csv(ADULT, separator=";").select([*qi, *([sa] if sa else [])])
    schema = Schema.of(list(qi), sa)
    rt = LocalEngine().to_row_types(df, schema).row_types
    model = model_params.the_model(None, params, schema.sensitive)
    rel = lp_rounding.primary(lp_rounding.relaxations(model, rt))
    t0, c0 = time.perf_counter(), time.process_time()

    def say(line: str) -> None:
        print(f"{time.process_time() - c0:8.1f} s CPU  {line}", file=sys.stderr, flush=True)

    cg = column_generation(rt, rel, max_rounds=ns.max_rounds, lp_solver=ns.lp_solver,
                           progress=say)
    result: dict[str, Any] = {
        "relaxation": rel.name, "bound": cg.bound, "lp_value": round(cg.lp_value, 4),
        "complete": cg.complete, "rounds": cg.rounds, "vectors": cg.blocks.B,
        "lp_solver": ns.lp_solver, "max_rounds": ns.max_rounds,
        "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1),
        "rows": rt.n, "row_types": rt.t_in, "load": os.getloadavg()[0],
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    key = ns.key or ns.config
    print(json.dumps({key: result}, indent=1))
    base = json.loads(ns.out.read_text()) if ns.out.exists() else {}
    base[key] = result
    write_json(ns.out, base)


if __name__ == "__main__":
    main()
