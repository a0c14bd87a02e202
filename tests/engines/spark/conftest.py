"""One Spark session for every Spark test: ``local[2]``, loopback only, no web UI, two
shuffle partitions (Spark starts in 10-20 s; every test shares the session).

Without PySpark the tests skip, naming what to install; with ``STARMIN_REQUIRE_SPARK=1`` (set
by ``.ci/run``, which installs the extra) they fail instead, so CI never skips them silently.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from typing import Any

import pytest

REQUIRE_SPARK = "STARMIN_REQUIRE_SPARK"


def _have_pyspark() -> bool:
    return importlib.util.find_spec("pyspark") is not None


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    if not _have_pyspark():
        if os.environ.get(REQUIRE_SPARK):
            pytest.fail(f"{REQUIRE_SPARK} is set but PySpark is not installed: "
                        'pip install "starmin[spark]"')
        pytest.skip('PySpark is not installed: pip install "starmin[spark]" (and Java 17) '
                    f"to run the Spark engine tests; {REQUIRE_SPARK}=1 makes this a failure")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from starmin.engines.spark.session import session

    s = session("local[2]", **{"spark.sql.shuffle.partitions": "2",
                               "spark.default.parallelism": "2",
                               "spark.sql.adaptive.enabled": "false"})
    yield s
    s.stop()
