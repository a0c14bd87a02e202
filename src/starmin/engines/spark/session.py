"""The Spark session the engine runs on: the active one, else a local one started here.

A local session binds to loopback only (``SPARK_LOCAL_IP=127.0.0.1`` unless set), runs its
Python workers with this interpreter (so they see the same packages), has no web UI and no
console progress bar, and uses as many shuffle partitions as cores (Spark's default of 200 is
meant for clusters).
"""

from __future__ import annotations

import os
import sys
from typing import Any


def session(master: str | None = None, **conf: str) -> Any:
    """The active :class:`pyspark.sql.SparkSession`, or a new local one (``master``, default
    ``local[*]``; ``conf``: further Spark settings, e.g. ``{"spark.driver.memory": "8g"}``)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    master = master or "local[*]"
    cores = master.removeprefix("local[").removesuffix("]")
    parts = str(os.cpu_count() or 2) if cores in ("*", master) else cores
    builder = (SparkSession.builder.master(master).appName("starmin")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.shuffle.partitions", parts))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
