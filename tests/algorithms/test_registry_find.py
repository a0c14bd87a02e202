"""``registry.find``: a named method is looked up in the module named after it (so a run with
``--method tp`` loads no other algorithm), with the same entry :func:`algorithms` gives."""

from __future__ import annotations

import pytest

from starmin.algorithms import registry
from starmin.errors import InvalidInput
from starmin.model_params import check_method


def test_find_gives_the_registry_entry_for_every_name() -> None:
    table = registry.algorithms()
    for name, entry in table.items():
        assert registry.find(name) is entry, name


def test_names_are_unique_across_modules() -> None:
    # find stops at the module named after a method: no later module may register that name
    names = [a.name for m in registry._MODULES for a in registry._entries(m)]
    assert len(names) == len(set(names))


def test_most_names_have_a_module_named_after_them() -> None:
    # the look-up that loads one module must actually apply (else every run loads all)
    named = {n: registry._named_after(n) for n in registry.algorithms()}
    assert named["tp"] == "starmin.algorithms.approx.tp"
    assert named["tp+"] == "starmin.algorithms.approx.tp_plus"
    assert named["m-approx"] == "starmin.algorithms.approx.m_approx"
    assert named["fpt-k-anonymity"] == "starmin.algorithms.fpt.k_anonymity"
    for name, mod in named.items():
        if mod is not None:  # a module named after a method registers it
            assert name in {a.name for a in registry._entries(mod)}, name
    assert sum(m is not None for m in named.values()) >= len(named) - 3


def test_a_module_named_after_a_name_that_does_not_register_it_falls_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the guessed module registers another method: every module is searched
    monkeypatch.setattr(registry, "_named_after", lambda name: "starmin.algorithms.approx.tp")
    assert registry.find("m-approx") is registry.algorithms()["m-approx"]
    assert registry.find("nope") is None


@pytest.mark.parametrize("name", ["nope", "", "TP", 5, None])
def test_unknown_names(name: object) -> None:
    assert registry.find(name) is None
    with pytest.raises(InvalidInput, match="names no algorithm"):
        check_method(name)


def test_get_unknown_lists_the_names() -> None:
    with pytest.raises(InvalidInput, match="choose one of auto, brute-force"):
        registry.get("nope")
    assert registry.get("tp").name == "tp"
    check_method("tp")
    check_method("auto")
    check_method("exact")
