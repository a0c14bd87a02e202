"""The page's form as a ``starmin anonymize`` command line (starmin.ui.form)."""

from __future__ import annotations

import pytest

from starmin.errors import InvalidInput
from starmin.ui.form import command, release_name, roles_of

COLUMNS = ("id", "age", "zip", "disease", "note")
ROLES = {"id": "identifier", "age": "qi", "zip": "qi", "disease": "sensitive", "note": "ignore"}


def argv(**form: object) -> tuple[str, ...]:
    form.setdefault("roles", ROLES)
    return command(form, "/data/t.csv", COLUMNS, "/w/t.anon.csv").argv


def test_roles_become_the_column_flags_and_the_input_comes_last() -> None:
    a = argv(k="5")
    assert a == ("anonymize", "--qi=age,zip", "--sensitive=disease", "--identifiers=id",
                 "--k=5", "--method=auto", "--seed=0", "-o", "/w/t.anon.csv", "--",
                 "/data/t.csv")


def test_fields_pass_as_typed_so_the_cli_checks_them() -> None:
    a = argv(k=" abc ", t="1.5", seed="-3", method="tp+")
    assert "--k=abc" in a and "--t=1.5" in a and "--seed=-3" in a and "--method=tp+" in a


def test_method_options_pass_one_flag_each_in_the_order_typed() -> None:
    a = argv(method="merge-repair", options=" start=levels   rules=spread,fill ")
    i = a.index("--method=merge-repair")
    assert a[i + 1:i + 3] == ("--option=start=levels", "--option=rules=spread,fill")
    assert not any(x.startswith("--option") for x in argv(options="  "))
    cmd = command({"roles": ROLES, "options": "budget=16"}, "/data/t.csv", COLUMNS, "/w/o.csv")
    assert "--option budget=16" in cmd.text


def test_choices_and_their_dependent_fields() -> None:
    a = argv(l="2", l_kind="recursive", c="3", t="0.2", distance="hierarchical",
             sa_hierarchy="h.csv", distance_matrix="m.csv")
    assert a[4:10] == ("--l=2", "--l-kind=recursive", "--c=3", "--t=0.2",
                       "--distance=hierarchical", "--sa-hierarchy=h.csv")
    assert not any(x.startswith("--distance-matrix") for x in a)  # hidden with hierarchical
    b = argv(l="2", l_kind="frequency", c="3", distance="equal")  # defaults: not passed
    assert not any(x.startswith(("--l-kind", "--c=", "--distance")) for x in b)
    # a choice without its number still goes through: the CLI says what is missing
    assert "--l-kind=distinct" in argv(l_kind="distinct")


def test_a_sample_gets_an_explicit_sensitive_list() -> None:
    cmd = command({"roles": {"age": "qi"}, "k": "2"}, "sample:census", ("age", "occupation"),
                  "/w/o.csv")
    assert "--sensitive=" in cmd.argv  # the sample's default is not filled in behind the page
    assert cmd.text.startswith("starmin anonymize sample:census --qi age --sensitive '' --k 2")


def test_no_quasi_identifier_is_the_cli_message() -> None:
    with pytest.raises(InvalidInput, match=r"^--qi is required: name the quasi-identifier"):
        argv(roles={"age": "ignore"})


def test_unknown_column_or_role() -> None:
    with pytest.raises(InvalidInput, match="unknown column 'nope'"):
        roles_of({"roles": {"nope": "qi"}}, COLUMNS)
    with pytest.raises(InvalidInput, match="unknown role 'secret'"):
        roles_of({"roles": {"age": "secret"}}, COLUMNS)
    with pytest.raises(InvalidInput, match="give text"):
        argv(k=["5"])


@pytest.mark.parametrize(("label", "fmt", "name"), [
    ("sample:census", "csv", "census.anon.csv"),
    ("/home/me/data/adult.csv", "parquet", "adult.anon.parquet"),
    ("C:\\data\\my table.tsv", "tsv", "my_table.anon.tsv"),
    ("../.hidden", "csv", "hidden.anon.csv"),
    ("...", "csv", "release.anon.csv"),
])
def test_release_name(label: str, fmt: str, name: str) -> None:
    assert release_name(label, fmt) == name


def test_hierarchy_files_and_generalize_follow_the_qi_roles() -> None:
    a = argv(k="2", hierarchies={"zip": "z.csv", "age": " a.csv "}, generalize="1")
    # table order (age before zip), the file as typed but trimmed, --generalize after them
    assert a[5:8] == ("--hierarchy=age=a.csv", "--hierarchy=zip=z.csv", "--generalize")
    assert "--generalize" not in argv(k="2", generalize="")
    assert "--generalize" in argv(k="2", generalize=True)
    assert not any(x.startswith("--hierarchy") for x in argv(k="2", hierarchies={"age": ""}))
    cmd = command({"roles": ROLES, "k": "2", "hierarchies": {"age": "my h.csv"},
                   "generalize": "on"}, "/data/t.csv", COLUMNS, "/w/o.csv")
    assert "--hierarchy 'age=my h.csv' --generalize --method auto" in cmd.text
    assert "--objective=loss" in argv(k="2", generalize="1", objective="loss")
    assert not any(x.startswith("--objective") for x in argv(k="2", objective="stars"))


def test_a_hierarchy_for_a_column_that_is_not_a_qi_is_refused() -> None:
    with pytest.raises(InvalidInput, match=r"^a hierarchy is given for 'disease', which is "
                                           r"not a quasi-identifier: set its role to QI"):
        argv(k="2", hierarchies={"disease": "d.csv"})
    with pytest.raises(InvalidInput, match="unknown column 'nope' for a hierarchy"):
        argv(k="2", hierarchies={"nope": "d.csv"})
    with pytest.raises(InvalidInput, match="must map column names to files"):
        argv(k="2", hierarchies=["age=a.csv"])
