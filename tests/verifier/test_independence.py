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


def test_verifier_sources_import_only_allowed_modules() -> None:
    root = Path(starmin.verifier.__file__).parent
    files = sorted(root.glob("*.py"))
    assert len(files) >= 3
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
