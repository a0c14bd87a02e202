"""The verifier is independent of every algorithm: it may import only starmin.data,
starmin.models and starmin.errors (DESIGN.md, 'Import direction')."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import starmin.verifier

FORBIDDEN = ("starmin.algorithms", "starmin.transform", "starmin.engines", "starmin.io",
             "starmin.api", "starmin.cli", "starmin.report")
ALLOWED = ("starmin.data", "starmin.models", "starmin.errors", "starmin.verifier")

PROBE = """
import importlib.util, json, sys, types
# load the subpackage without running starmin/__init__.py (the public API imports algorithms)
spec = importlib.util.find_spec("starmin")
pkg = types.ModuleType("starmin")
pkg.__path__ = list(spec.submodule_search_locations)
sys.modules["starmin"] = pkg
import starmin.verifier
print(json.dumps(sorted(m for m in sys.modules if m.startswith("starmin."))))
"""


def test_importing_the_verifier_loads_no_algorithm_code() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, timeout=120)
    loaded = json.loads(out.stdout)
    assert "starmin.verifier.verifier" in loaded  # the probe did import the verifier
    bad = [m for m in loaded if m.startswith(FORBIDDEN)]
    assert not bad, f"starmin.verifier pulls in {bad}"
    assert all(m.startswith(ALLOWED) for m in loaded), loaded


SPARK_PROBE = PROBE.replace("import starmin.verifier\n",
                            "import starmin.verifier\nimport starmin.verifier.spark\n")


def test_the_spark_path_loads_no_engine_code() -> None:
    """The verifier's Spark path (verifier/spark.py, which a Spark release is checked by)
    imports no engine, algorithm or transform code either; and importing the verifier alone
    does not load it (nor PySpark)."""
    out = subprocess.run([sys.executable, "-c", SPARK_PROBE], capture_output=True, text=True,
                         check=True, timeout=120)
    loaded = json.loads(out.stdout)
    assert "starmin.verifier.spark" in loaded
    assert not [m for m in loaded if m.startswith(FORBIDDEN)], loaded
    assert all(m.startswith(ALLOWED) for m in loaded), loaded
    plain = subprocess.run([sys.executable, "-c", PROBE + "print(json.dumps('pyspark' in "
                            "sys.modules))"], capture_output=True, text=True, check=True,
                           timeout=120).stdout.splitlines()
    assert "starmin.verifier.spark" not in json.loads(plain[0])
    assert json.loads(plain[1]) is False


def test_verifier_sources_import_only_allowed_modules() -> None:
    root = Path(starmin.verifier.__file__).parent
    files = sorted(root.glob("*.py"))
    assert len(files) >= 3
    assert root / "spark.py" in files  # the Spark path is held to the same rule
    for f in files:
        tree = ast.parse(f.read_text(), filename=str(f))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{f.name}: use absolute imports"
                names = [node.module or ""]
            for name in names:
                if name.startswith("starmin"):
                    assert name.startswith(ALLOWED), f"{f.name} imports {name}"
