"""The Spark engine's apply stage, one version against another, alternating in one session.

The synthetic census (``--rows``) is generated on the executors, numbered and aggregated once;
the ``--k 5`` (m-approx) and ``--l 3`` (tp) plans are solved once; then each version's
``apply`` (plan applied, release persisted and counted: what the engine's ``apply`` stage
times) runs in turn on the same table and plans, alternating which goes first, and the
releases' first 50,000 rows are compared. Load on a shared machine falls on both versions
alike, which a comparison of separate runs could not promise.

    git show c4c28d2:src/starmin/engines/spark/apply.py > /tmp/old_apply.py
    PYTHONPATH=src python bench/spark_apply_ab.py 10000000 'local[2]' 1 /tmp/old_apply.py

Prints one JSON line per apply; the recorded results are bench/results/spark_apply_ab.json.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from spark_scale import QI, SENSITIVE, census_on_spark


def main() -> None:
    from pyspark import StorageLevel

    from starmin import model_params as P
    from starmin.api import _solve
    from starmin.data.schema import Schema
    from starmin.engines.spark import SparkEngine, session
    from starmin.engines.spark import apply as new

    n, master = int(sys.argv[1]), sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    spec = importlib.util.spec_from_file_location("old_apply", sys.argv[4])
    assert spec is not None and spec.loader is not None
    old: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    spark = session(master, **{"spark.driver.memory": "6g",
                               "spark.sql.adaptive.enabled": "true"})
    engine = SparkEngine(spark)
    schema = Schema.of(QI, [SENSITIVE], [])
    table = engine.read(census_on_spark(spark, n), schema)
    encoded = engine.to_row_types(table, schema)
    results = []
    for name, params, method in (("k5", {"k": 5}, "m-approx"), ("l3", {"l": 3}, "tp")):
        plan, _ = _solve(encoded.row_types, P.the_model(None, params, (SENSITIVE,)), method,
                         seed=0, progress=lambda *a: None, objective="stars", time_limit=None)
        firsts = {}
        for rep in range(reps):
            pair = [("old", old), ("new", new)]
            if (rep + (name == "l3")) % 2:
                pair.reverse()
            for label, mod in pair:
                t0 = time.perf_counter()
                out = mod.apply(table, encoded.classes, encoded.row_types, plan, 0, ())
                out = out.persist(StorageLevel.MEMORY_AND_DISK)
                out.count()
                seconds = time.perf_counter() - t0
                if rep == 0:
                    firsts[label] = [tuple(r) for r in out.limit(50000).collect()]
                out.unpersist()
                results.append({"model": name, "code": label, "rep": rep,
                                "apply_s": round(seconds, 1)})
                print(json.dumps(results[-1]), flush=True)
        assert firsts["old"] == firsts["new"], "the two versions released different rows"
    print("RES", json.dumps(results), os.getloadavg())
    spark.stop()


if __name__ == "__main__":
    main()
