"""Which modules load: the package, the help texts and ``starmin verify`` stay light.

Each case runs in a fresh interpreter and lists the top-level packages in ``sys.modules``
afterwards. Solver libraries (scipy, OR-Tools) load only when a method solves; the plotting
and test-only libraries never load in these paths. (A test of which modules load, not of time:
bench/startup.py measures the time.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SOLVERS = {"scipy", "ortools"}
SPARK = {"pyspark", "py4j"}
"""The Spark engine's libraries: loaded only with ``--engine spark`` / ``engine="spark"``."""
NEVER = SOLVERS | SPARK | {"pandas", "pyarrow", "matplotlib", "hypothesis"}
ARRAYS = {"numpy", "polars"}

_PROBE = """
import json, sys
{code}
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""
_CLI = """
from starmin.cli.main import main
try:
    status = main({argv!r})
except SystemExit as exc:
    status = exc.code
"""


def modules(code: str) -> set[str]:
    """Every module loaded after running ``code`` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _PROBE.format(code=code)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return set(json.loads(out.stderr.strip().splitlines()[-1]))


def loaded(code: str) -> set[str]:
    """Top-level packages loaded after running ``code`` in a fresh interpreter."""
    return {m.partition(".")[0] for m in modules(code)}


def cli(*argv: str) -> set[str]:
    return loaded(_CLI.format(argv=list(argv)))


def test_probe_sees_what_loads() -> None:
    """The probe itself works: a solver library imported on purpose is listed."""
    assert "scipy" in loaded("import scipy.optimize")
    assert "starmin" in loaded("import starmin")


def test_import_starmin_loads_no_arrays_nor_solvers() -> None:
    assert not loaded("import starmin") & (NEVER | ARRAYS)


def test_public_names_still_import() -> None:
    mods = loaded("from starmin import Release, RowTypes, Schema, anonymize, solve\n"
                  "import starmin\n"
                  "assert set(starmin.__all__) <= set(dir(starmin))\n"
                  "assert all(getattr(starmin, n) is not None for n in starmin.__all__)")
    assert not mods & NEVER


@pytest.mark.parametrize("argv", [("--help",), ("verify", "--help"), ("info", "--help"),
                                  ("report", "--help"), ("ui", "--help")])
def test_help_loads_no_arrays_nor_solvers(argv: tuple[str, ...]) -> None:
    assert not cli(*argv) & (NEVER | ARRAYS)


@pytest.mark.parametrize("argv", [("methods",), ("anonymize", "--help")])
def test_methods_list_loads_no_solver(argv: tuple[str, ...]) -> None:
    mods = cli(*argv)
    assert "starmin" in mods
    assert not mods & (NEVER | {"polars"})  # the guarantees need numpy at most


def test_anonymize_help_still_lists_the_methods(capsys: pytest.CaptureFixture[str]) -> None:
    from starmin.algorithms.registry import algorithms
    from starmin.cli.main import main

    with pytest.raises(SystemExit):
        main(["anonymize", "--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in algorithms())


def test_verify_loads_no_solver(tmp_path: Path) -> None:
    table = tmp_path / "release.csv"
    table.write_text("age;zip;disease\n3*;47*;flu\n3*;47*;cold\n3*;47*;flu\n3*;47*;cancer\n")
    argv = ["verify", str(table), "--qi", "age,zip", "--sensitive", "disease",
            "--k", "2", "--l", "2", "--t", "0.9"]
    mods = modules(_CLI.format(argv=argv) + "\nassert status == 0, status")
    top = {m.partition(".")[0] for m in mods}
    assert {"starmin", "polars", "numpy"} <= top  # it did read and check the table
    assert "starmin.verifier._classes" in mods
    assert not top & NEVER
    # np.unique loads numpy.ma (a sixth of numpy's import time); the verifier avoids it
    assert "numpy.ma" not in mods


def test_local_anonymize_and_info_load_no_spark(tmp_path: Path) -> None:
    """The local engine (the default) never loads PySpark, not even to look for it."""
    table = tmp_path / "t.csv"
    table.write_text("age;zip;disease\n31;4701;flu\n32;4701;cold\n33;4702;flu\n34;4702;x\n")
    out = tmp_path / "out.csv"
    mods = cli("anonymize", str(table), "--qi", "age,zip", "--k", "2", "-q", "-o", str(out))
    assert not mods & SPARK
    assert not cli("info", str(table), "--qi", "age,zip", "-q") & SPARK


def test_a_named_method_loads_no_other_algorithm(tmp_path: Path) -> None:
    """``--method tp`` loads tp's module, not the registry's other algorithms, and the
    report's LP bound loads no LP machinery when no relaxation fits its budget (l = 2 over
    5,000 row types of 12 QI columns: 4,096 patterns, about 33 work units, over the 20)."""
    qi = [f"q{j}" for j in range(12)]
    table = tmp_path / "t.csv"
    table.write_text(",".join([*qi, "s"]) + "\n" + "".join(
        ",".join([str(i), *(str(i % (j + 2)) for j in range(11)), str(i % 3)]) + "\n"
        for i in range(5000)))
    out = tmp_path / "out.csv"
    argv = ["anonymize", str(table), "--qi", ",".join(qi), "--sensitive", "s", "--l", "2",
            "--method", "tp", "-q", "-o", str(out)]
    mods = modules(_CLI.format(argv=argv) + "\nassert status == 0, status")
    assert "starmin.algorithms.approx.tp" in mods
    others = {m for m in mods if m.startswith("starmin.algorithms.")
              and m.rpartition(".")[2] in {"brute_force", "m_approx", "tp_plus", "hilbert",
                                            "milp_exact", "lp_rounding", "merge_repair"}}
    assert not others
    assert "starmin.algorithms.lp.report_bound" in mods  # the report did weigh its LP bound
    assert "starmin.algorithms.lp.colgen" not in mods
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert "lp" not in report["lower_bounds"]


def test_auto_loads_no_lp_machinery_when_no_member_solves_an_lp(tmp_path: Path) -> None:
    """``--method auto`` loads every member's module to weigh it, but column generation and
    the MILP's modules only load when an LP is solved: here the first member's release has no
    star (the table is 2-anonymous as it is), so no other member runs."""
    table = tmp_path / "t.csv"
    table.write_text("a,b,s\n" + "".join(f"{i % 50},{i % 7},{i % 3}\n" for i in range(700)))
    out = tmp_path / "out.csv"
    argv = ["anonymize", str(table), "--qi", "a,b", "--sensitive", "s", "--k", "2",
            "-q", "-o", str(out)]
    mods = modules(_CLI.format(argv=argv) + "\nassert status == 0, status")
    assert {"starmin.algorithms.lp.milp_exact", "starmin.algorithms.lp.lp_rounding"} <= mods
    lp = {"colgen", "master", "incremental", "pricing", "rounding", "aggregate",
          "highs_cutoff"}
    assert not {m for m in mods if m.startswith("starmin.algorithms.lp.")
                and m.rpartition(".")[2] in lp}
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert report["stars"] == 0
