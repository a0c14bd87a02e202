"""Scale of the Spark engine (issue 11, part 4): the synthetic census generated on Spark's
executors, then aggregate -> solve -> apply -> verify -> write, per stage.

Each configuration runs in a fresh child process (its own Spark session and JVM, so
``local[1]`` and ``local[2]`` do not share a warm JVM, and peak memory is per run):

* ``spark``: ``--rows`` rows of :func:`starmin.datasets.synthetic_census` made block by block
  on the executors (:func:`starmin.datasets.census.synthetic_census_block` in ``mapInArrow``;
  the same table as the local generator's), persisted; then ``anonymize(engine="spark")`` for
  ``--k 5`` (method auto) and ``--l 3`` (method tp) with the 8 other columns as QIs and
  ``occupation`` sensitive, and the release written as CSV part files (with its report).
* ``local``: the same table generated in memory, the same two releases with the local engine,
  written as one CSV file. (The local engine's own benchmark is part 2 of the issue.)

Stage times are the report's (``read`` ... ``verify``) plus ``generate`` and ``write``; peak
memory is the driver's: the Python process's maximum resident set (``getrusage``) and, for
Spark, the JVM's (``VmHWM`` of the gateway process, a child of the driver; in local mode the
executors run inside it). Wall times on a shared 2-core machine: other users' load is in them.

Writes ``bench/results/spark_scale.json``.

    python bench/spark_scale.py --rows 1000000 10000000 --masters 'local[1]' 'local[2]'

``--models l3`` runs only those models; the other models of an earlier run of the same
configuration are kept in the results file. Every model's record carries its own
``measured`` date, the ``code`` (commit) it ran, and the peak memory of its process when it
finished (``driver_peak_mb``, ``jvm_peak_mb``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULT = REPO / "bench" / "results" / "spark_scale.json"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
      "salary-class"]
SENSITIVE = "occupation"
MODELS: dict[str, dict[str, Any]] = {"k5": {"k": 5}, "l3": {"l": 3, "method": "tp"}}
SEED = 0
WATCH_S = float(os.environ.get("STARMIN_BENCH_WATCH_S", "20"))
"""Seconds between the child's progress lines (stages finished so far, memory, load)."""


def census_on_spark(spark: Any, n: int, seed: int = SEED) -> Any:
    """The ``n``-row synthetic census as a Spark DataFrame, generated on the executors, one
    block of :data:`starmin.datasets.sampling.BLOCK` rows at a time, in row order."""
    import polars as pl
    import pyarrow as pa

    from starmin.datasets.census import synthetic_census_block
    from starmin.datasets.sampling import BLOCK

    blocks = (n + BLOCK - 1) // BLOCK
    parts = max(1, min(blocks, 2 * spark.sparkContext.defaultParallelism * 4))
    schema = synthetic_census_block(0, min(n, 1), seed).to_arrow(
        compat_level=pl.CompatLevel.oldest()).schema

    def make(batches: Any) -> Any:
        for batch in batches:
            for b in batch.column(0).to_pylist():
                frame = synthetic_census_block(int(b), n, seed)
                yield from frame.to_arrow(compat_level=pl.CompatLevel.oldest()).to_batches()

    spark_schema = ", ".join(
        f"`{f.name}` {'bigint' if pa.types.is_integer(f.type) else 'string'}" for f in schema)
    return spark.range(0, blocks, numPartitions=parts).mapInArrow(make, spark_schema)


def peak_mb() -> float:
    """This process's peak resident set (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def jvm_peak_mb(spark: Any) -> float | None:
    """The Spark JVM's peak resident set (MB), from ``/proc/PID/status`` (``VmHWM``)."""
    try:
        pid = spark.sparkContext._gateway.proc.pid
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (AttributeError, OSError, ValueError):
        return None
    return None


def run_spark(n: int, master: str, memory: str, out_dir: Path,
              models: dict[str, dict[str, Any]]) -> dict[str, Any]:
    import starmin
    from starmin.engines.spark import SparkEngine, session
    from starmin.io.output import check_output

    t0 = time.perf_counter()
    spark = session(master, **{"spark.driver.memory": memory,
                               "spark.sql.adaptive.enabled": "true"})
    start = time.perf_counter() - t0
    # not persisted here: the engine's read stage numbers and persists the rows once (so
    # the generation is part of "read"); a second copy would double the cache at 100M rows
    table = census_on_spark(spark, n)
    load_start = os.getloadavg()
    runs = {}
    current: dict[str, Any] = {}
    done = threading.Event()

    def watch() -> None:  # the stages so far, for a run stopped by --timeout
        while not done.wait(WATCH_S):
            eng = current.get("engine")
            if eng is None:
                continue
            print("STAGES " + json.dumps({
                "model": current["model"], "stages_s": dict(eng.stages.seconds),
                "model_elapsed_s": round(time.perf_counter() - current["t0"], 1),
                "driver_peak_mb": round(peak_mb(), 1), "jvm_peak_mb": jvm_peak_mb(spark),
                "load_avg": os.getloadavg()}), flush=True)

    threading.Thread(target=watch, daemon=True).start()
    for name, params in models.items():
        engine = SparkEngine(spark)
        current.update(engine=engine, model=name, t0=time.perf_counter())
        release = starmin.anonymize(table, QI, SENSITIVE, engine=engine, seed=SEED, **params)
        target = check_output(out_dir / f"{name}.csv", replace_folder=True)
        t0 = time.perf_counter()
        engine.write(release.frame, target, release.report)
        write = time.perf_counter() - t0
        release.frame.unpersist()
        shutil.rmtree(target.path, ignore_errors=True)
        runs[name] = _summary(release, write)
        runs[name].update(driver_peak_mb=round(peak_mb(), 1), jvm_peak_mb=jvm_peak_mb(spark))
        print("PARTIAL " + json.dumps({"model": name, "summary": runs[name],
                                       "driver_peak_mb": round(peak_mb(), 1),
                                       "jvm_peak_mb": jvm_peak_mb(spark),
                                       "load_avg": os.getloadavg()}), flush=True)
    done.set()
    result = {"engine": "spark", "master": master, "rows": n, "session_start_s": start,
              "generate_s": "in read", "models": runs,
              "load_avg_start": load_start, "load_avg_end": os.getloadavg(),
              "driver_peak_mb": round(peak_mb(), 1), "jvm_peak_mb": jvm_peak_mb(spark),
              "spark_driver_memory": memory}
    spark.stop()
    return result


def run_local(n: int, out_dir: Path, models: dict[str, dict[str, Any]]) -> dict[str, Any]:
    import starmin
    from starmin.datasets import synthetic_census
    from starmin.engines.local import LocalEngine
    from starmin.io.output import check_output

    t0 = time.perf_counter()
    table = synthetic_census(n, seed=SEED)
    generate = time.perf_counter() - t0
    runs = {}
    for name, params in models.items():
        engine = LocalEngine()
        release = starmin.anonymize(table, QI, SENSITIVE, engine=engine, seed=SEED, **params)
        target = check_output(out_dir / f"{name}.csv")
        t0 = time.perf_counter()
        engine.write(release.frame, target, release.report)
        write = time.perf_counter() - t0
        for p in target.paths:
            p.unlink(missing_ok=True)
        runs[name] = _summary(release, write)
        runs[name]["driver_peak_mb"] = round(peak_mb(), 1)
    return {"engine": "local", "rows": n, "generate_s": round(generate, 3), "models": runs,
            "driver_peak_mb": round(peak_mb(), 1)}


def _summary(release: Any, write: float) -> dict[str, Any]:
    r = release.report
    stages = {k: round(float(v), 3) for k, v in r["timings_s"].items()}
    stages["write"] = round(write, 3)
    return {"method": release.plan.method, "stars": int(release.plan.stars),
            "t_in": int(r["input"]["t_in"]),
            "verified": bool(release.verification.passed), "stages_s": stages}


def child(args: argparse.Namespace) -> None:
    out_dir = Path(tempfile.mkdtemp(prefix="starmin-spark-scale-"))
    models = {name: MODELS[name] for name in args.models}
    try:
        if args.engine == "spark":
            result = run_spark(args.rows[0], args.masters[0], args.memory, out_dir, models)
        else:
            result = run_local(args.rows[0], out_dir, models)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    print("RESULT " + json.dumps(result), flush=True)


def _run(cmd: list[str], env: dict[str, str], timeout: float | None,
         log: str | None) -> tuple[str, str, int]:
    """Run a child; its stdout lines also go to ``log`` as they come; stopped (and its
    whole process group, the JVM included) after ``timeout`` seconds."""
    import signal

    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env,
                                start_new_session=True)
        lines: list[str] = []
        timer = None
        if timeout is not None:
            timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
            timer.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if log:
                with open(log, "a") as f:
                    f.write(line)
        code = proc.wait()
        if timer is not None:
            timer.cancel()
        err.seek(0)
        stderr = err.read()
        if code == -9 and timeout is not None:
            stderr += f"\nstopped after --timeout {timeout:.0f} s"
    return "".join(lines), stderr, code


STAGES = ("read", "aggregate", "solve", "lower_bounds", "apply", "verify", "write")


def markdown(runs: list[dict[str, Any]]) -> str:
    """The stage table of docs/scaling.md, from the recorded runs."""
    head = ("| engine | rows | model | t_in | stars | " + " | ".join(STAGES)
            + " | total (s) | driver / JVM peak (MB) |")
    lines = [head, "|" + " --- |" * (len(STAGES) + 7)]
    for r in sorted(runs, key=lambda r: (r["rows"], r["engine"], r.get("master", ""))):
        if r.get("failed") and not r.get("models"):
            lines.append(f"| {r['engine']} {r.get('master', '')} | {r['rows']:,} | failed: "
                         f"{' '.join(r.get('error') or [])} |")
            continue
        name = f"{r['engine']} {r.get('master', '')}".strip()
        for model, m in r["models"].items():
            mem = _memory(m if "driver_peak_mb" in m else r)
            st = m["stages_s"]
            total = sum(st.get(x, 0.0) for x in STAGES)
            cells = " | ".join(f"{st.get(x, 0.0):.1f}" for x in STAGES)
            lines.append(f"| {name} | {r['rows']:,} | {model} ({m['method']}) | {m['t_in']:,} "
                         f"| {m['stars']:,} | {cells} | {total:.1f} | {mem} |")
    return "\n".join(lines)


def _memory(r: dict[str, Any]) -> str:
    """``driver / JVM`` peak (MB) of a record that has them."""
    jvm = r.get("jvm_peak_mb")
    return f"{r['driver_peak_mb']:.0f}" + (f" / {jvm:.0f}" if jvm else "")


def _commit() -> str:
    """The commit the benchmark runs (``+`` when the work tree has changes)."""
    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *a], capture_output=True,
                              text=True).stdout.strip()
    return git("rev-parse", "--short", "HEAD") + ("+" if git("status", "--porcelain",
                                                             "--", "src", "bench") else "")


def _merge(earlier: dict[str, Any] | None, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with the models of ``earlier`` (the same configuration) it did not run."""
    if not earlier or not earlier.get("models"):
        return result
    kept = {}
    for name, m in earlier["models"].items():
        if name in result.get("models", {}):
            continue
        m = dict(m)
        m.setdefault("measured", earlier.get("measured"))
        if "driver_peak_mb" not in m:  # a run from before per-model peaks: its process's
            m["driver_peak_mb"] = earlier.get("driver_peak_mb")
            m["jvm_peak_mb"] = earlier.get("jvm_peak_mb")
        kept[name] = m
    return {**result, "models": {**kept, **result.get("models", {})}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--masters", nargs="+", default=["local[1]", "local[2]"])
    p.add_argument("--local", action="store_true", help="also run the local engine")
    p.add_argument("--memory", default="8g", help="spark.driver.memory (default 8g)")
    p.add_argument("--markdown", action="store_true",
                   help="print the table of docs/scaling.md from the recorded results")
    p.add_argument("--timeout", type=float, default=None,
                   help="stop a configuration after this many seconds (the models it "
                        "finished are recorded)")
    p.add_argument("--log", help="append the children's progress lines to this file")
    p.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                   help="the models to run (default all); an earlier run's other models of "
                        "the same configuration are kept")
    p.add_argument("--engine", help=argparse.SUPPRESS)  # set in the child processes
    args = p.parse_args()
    if args.markdown:
        print(markdown(json.loads(RESULT.read_text())["runs"]))
        return
    if args.engine:
        child(args)
        return
    runs = json.loads(RESULT.read_text())["runs"] if RESULT.exists() else []
    configs = [("spark", n, m) for n in args.rows for m in args.masters]
    if args.local:
        configs += [("local", n, "") for n in args.rows]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "SPARK_LOCAL_IP": "127.0.0.1"}
    code_at = _commit()
    for engine, n, master in configs:
        cmd = [sys.executable, __file__, "--engine", engine, "--rows", str(n),
               "--memory", args.memory, "--models", *args.models] + (
                   ["--masters", master] if master else [])
        print(f"== {engine} {master} n={n:,}", flush=True)
        t0 = time.perf_counter()
        load_start = os.getloadavg()
        stdout, stderr, code = _run(cmd, env, args.timeout, args.log)
        lines = [x for x in stdout.splitlines() if x.startswith("RESULT ")]
        if code or not lines:
            print(stderr[-3000:], file=sys.stderr)
            result = {"engine": engine, "master": master, "rows": n, "failed": True,
                      "load_avg_start": load_start, "load_avg_end": os.getloadavg(),
                      "error": stderr.strip().splitlines()[-1:] if stderr else []}
            partial = [json.loads(x.removeprefix("PARTIAL ")) for x in stdout.splitlines()
                       if x.startswith("PARTIAL ")]
            if partial:  # the models that finished before the failure or the time limit
                result["models"] = {p["model"]: p["summary"] for p in partial}
                result["driver_peak_mb"] = partial[-1]["driver_peak_mb"]
                result["jvm_peak_mb"] = partial[-1]["jvm_peak_mb"]
            stages = [x for x in stdout.splitlines() if x.startswith("STAGES ")]
            if stages:  # how far the unfinished model got
                last = json.loads(stages[-1].removeprefix("STAGES "))
                if last["model"] not in result.get("models", {}):
                    result["unfinished"] = last
                    result["jvm_peak_mb"] = last["jvm_peak_mb"]
                    result["driver_peak_mb"] = last["driver_peak_mb"]
        else:
            result = json.loads(lines[-1].removeprefix("RESULT "))
        result["process_wall_s"] = round(time.perf_counter() - t0, 1)
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        for m in result.get("models", {}).values():
            m.update(measured=stamp, code=code_at)
        print(json.dumps(result, indent=1), flush=True)
        same = [r for r in runs if (r.get("engine"), r.get("master", ""), r.get("rows"))
                == (engine, master, n)]
        runs = [r for r in runs if r not in same] + [_merge(same[-1] if same else None, result)]
        RESULT.write_text(json.dumps({
            "benchmark": "spark_scale", "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                        "python": platform.python_version(),
                        "load_avg_at_end": os.getloadavg()},
            "qi": QI, "sensitive": SENSITIVE, "models": MODELS, "seed": SEED,
            "runs": runs}, indent=1) + "\n")


if __name__ == "__main__":
    main()
