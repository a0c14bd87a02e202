"""tests/helpers/shared.py: a missing shared file skips the test, or fails it when
STARMIN_REQUIRE_SHARED is set; and every test locates shared files through it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import shared
from tests.helpers.shared import REQUIRE_SHARED, shared_file, unavailable

MISSING = "data/nowhere/missing.csv"
REASON = r"needs \.\./shared/data/nowhere/missing\.csv \(not in this checkout: "


def test_missing_file_skips_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_SHARED, raising=False)
    with pytest.raises(pytest.skip.Exception, match=REASON) as e:
        shared_file(MISSING)
    assert str(shared.SHARED / MISSING) in str(e.value)


@pytest.mark.parametrize("value", ["", "0"])
def test_empty_or_zero_does_not_require(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(REQUIRE_SHARED, value)
    with pytest.raises(pytest.skip.Exception, match=REASON):
        shared_file(MISSING)


def test_required_missing_file_fails_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_SHARED, "1")
    with pytest.raises(pytest.fail.Exception, match=REASON) as e:
        shared_file(MISSING)
    assert f"{REQUIRE_SHARED}=1" in str(e.value)


def test_present_file_is_returned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(REQUIRE_SHARED, "1")
    monkeypatch.setattr(shared, "SHARED", tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.csv").write_text("a\n1\n")
    assert shared_file("data/x.csv") == tmp_path / "data" / "x.csv"
    assert shared_file("data") == tmp_path / "data"
    with pytest.raises(pytest.fail.Exception, match=r"needs \.\./shared/data/y\.csv"):
        shared_file("data/y.csv")


def test_an_explicit_requirement_fails_without_the_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_SHARED, raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"needs pycanon \[CI=true: "):
        unavailable("needs pycanon", required_by="CI=true")
    with pytest.raises(pytest.skip.Exception, match="needs pycanon"):
        unavailable("needs pycanon")


def _shared_paths(path: Path) -> list[str]:
    """Path pieces in ``path`` that lead into the shared folder: ``... / "shared"`` and string
    literals starting ``../shared`` or ``shared/``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) \
                and isinstance(node.right, ast.Constant) and isinstance(node.right.value, str) \
                and "shared" in node.right.value.split("/"):
            found.append(node.right.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith(("../shared", "shared/")):
            found.append(node.value)
    return found


def test_tests_locate_shared_files_only_through_the_helper() -> None:
    tests = Path(__file__).resolve().parent
    helper = tests / "helpers" / "shared.py"
    assert _shared_paths(helper) == ["shared"]  # the scan finds the helper's own path
    found = {str(p.relative_to(tests)): _shared_paths(p) for p in sorted(tests.rglob("*.py"))
             if p not in (helper, Path(__file__).resolve())}
    assert len(found) > 40
    assert {name: hits for name, hits in found.items() if hits} == {}
