"""Planner gates through the plugin: seven items per planner, outcomes, selection, xdist."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner.controls import CONTROLS
from pytest_openmed.planner.declaration import PLANNER_ITEMS
from pytest_openmed.schemas import load_schema
from tests.plugin._helpers import without_timing

CANARY = "QQPLANCANARY"

PLANS = f"""
import sys
from pathlib import Path
from pytest_openmed.planner import ProposedToolCall, READ_TOOL
from pytest_openmed.planner.controls import control_planner, exporting_planner

def note(name, line):
    with Path(name).open("a", encoding="utf-8") as handle:
        handle.write(line + "\\n")

note("imports.log", "import")

def propose(context, catalog):
    note("calls.log", "call")
    return control_planner(context, catalog)

def leaky(context, catalog):
    print("{CANARY}-printed")
    print("{CANARY}-printed", file=sys.stderr)
    if context.scenario_id == "in-scope" and context.turn == 0:
        return [ProposedToolCall("{CANARY}-tool", {{"{CANARY}": "{CANARY}"}},
                                 approval_token="{CANARY}")]
    if context.scenario_id == "review-stop":
        raise ValueError("{CANARY}-exception")
    return control_planner(context, catalog)

bad = exporting_planner
not_callable = 1
"""


def esc(text: str) -> str:
    return "".join(f"[{char}]" if char in "[]" else char for char in text)


def report_of(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator(load_schema("gate-report")).validate(document)
    return document


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(plans=textwrap.dedent(PLANS))
    pytester.syspathinsert()
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    return pytester


def test_seven_items_per_planner_pass_for_the_control(project: pytest.Pytester) -> None:
    result = project.runpytest("-v", "--openmed-planner", "plans:propose", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [f"{esc('planner(plans:propose)::' + item)} PASSED*" for item in PLANNER_ITEMS]
        + ["*= openmed gates =*"]
    )
    # imported once per session, harness run once: 14 planner calls for the control
    assert (project.path / "imports.log").read_text().count("import") == 1
    assert (project.path / "calls.log").read_text().count("call") == 14


def test_every_control_reaches_its_documented_outcome_from_a_gate_file(
    project: pytest.Pytester,
) -> None:
    tables = "".join(
        f'[[planner]]\nname = "{control.name}"\nplanner = "{control.reference}"\n'
        for control in CONTROLS
    )
    (project.path / "controls.openmed.toml").write_text(tables, encoding="utf-8")
    result = project.runpytest("--openmed-report", "r.json", "-p", "no:cacheprovider")
    failing = sum(
        status.value != "passed" for control in CONTROLS for status in control.expected.values()
    )
    result.assert_outcomes(passed=7 * len(CONTROLS) - failing, failed=failing)
    gates = report_of(project.path / "r.json")["gates"]
    statuses = {gate["nodeid"]: gate["status"] for gate in gates}
    expected = {
        f"controls.openmed.toml::planner({control.name})::{item}": status.value
        for control in CONTROLS
        for item, status in control.expected.items()
    }
    assert statuses == expected


def test_keyword_selection_and_last_failed(project: pytest.Pytester) -> None:
    args = ("--openmed-planner", "plans:bad", "--openmed-planner", "plans:propose")
    project.runpytest(*args, "-k", "review-stop").assert_outcomes(passed=2)
    project.runpytest(*args, "-k", "bad and grant").assert_outcomes(failed=1)
    project.runpytest(*args).assert_outcomes(passed=12, failed=2)
    last = project.runpytest(*args, "--lf", "-v")
    last.assert_outcomes(failed=2)
    last.stdout.fnmatch_lines(
        [
            f"{esc('planner(plans:bad)::grant-temptation')} FAILED*",
            f"{esc('planner(plans:bad)::qualification')} FAILED*",
        ]
    )


def test_ini_planners_and_xdist_give_the_serial_report(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nopenmed_planners =\n    plans:bad\n    plans:propose\n")
    serial = project.runpytest("--openmed-report", "serial.json", "-p", "no:cacheprovider")
    serial.assert_outcomes(passed=12, failed=2)
    parallel = project.runpytest_subprocess(
        "-n", "2", "--openmed-report", "parallel.json", "-p", "no:cacheprovider"
    )
    parallel.assert_outcomes(passed=12, failed=2)
    serial, parallel = (
        report_of(project.path / "serial.json"),
        report_of(project.path / "parallel.json"),
    )
    assert without_timing(serial) == without_timing(parallel)


def test_failure_texts_name_counts_only_and_nothing_leaks(project: pytest.Pytester) -> None:
    result = project.runpytest(
        "-vv", "-rA", "-s", "--openmed-planner", "plans:leaky",
        "--junitxml", "junit.xml", "--openmed-report", "r.json", "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(passed=4, failed=3)
    result.stdout.fnmatch_lines(
        [
            "schema_invalid_calls 1 > 0; openmed planner gate: critical (schema_invalid); *out_of_grant_proposals=1*schema_invalid_calls=1*",
            "planner_errors 1 > 0; openmed planner gate: critical (planner_error); *planner_errors=1*",
        ]
    )
    for text in (
        result.stdout.str(),
        result.stderr.str(),
        (project.path / "junit.xml").read_text(),
        (project.path / "r.json").read_text(),
    ):
        assert CANARY not in text


@pytest.mark.parametrize(
    ("reference", "code"),
    [
        ("plans:not_callable", "OPENMED-PLANNER-NOT-CALLABLE"),
        ("plans:absent_attribute", "OPENMED-PLANNER-NO-ATTRIBUTE"),
        (f"{CANARY}_missing:plan", "OPENMED-PLANNER-NOT-FOUND"),
        (f"{CANARY}_exits:plan", "OPENMED-PLANNER-IMPORT-RAISED"),
    ],
)
def test_unloadable_planner_is_one_collection_error(
    project: pytest.Pytester, reference: str, code: str
) -> None:
    (project.path / f"{CANARY}_exits.py").write_text(
        f"print('{CANARY}-printed')\nraise SystemExit('{CANARY}-exit')\n", encoding="utf-8"
    )
    (project.path / "p.openmed.toml").write_text(
        f'[[planner]]\nname = "broken"\nplanner = "{reference}"\n', encoding="utf-8"
    )
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error, never INTERNALERROR
    result.stdout.fnmatch_lines([f"*{code})"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert CANARY not in result.stdout.str() + result.stderr.str()


def test_qualify_planner_fixture_records_gate_evidence(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_mine="""
        from pytest_openmed.planner.controls import control_planner, crashing_planner

        def test_control_qualifies(qualify_planner):
            report = qualify_planner(control_planner)
            assert report.qualified
            assert report.counts.proposals == 8

        def test_crashing_is_refused(qualify_planner):
            report = qualify_planner(crashing_planner)
            assert not report.qualified
            assert report.counts.planner_errors == 6
        """
    )
    result = project.runpytest("--openmed-report", "r.json", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    gates = report_of(project.path / "r.json")["gates"]
    by_test: dict[str, dict[str, str]] = {}
    for gate in gates:
        by_test.setdefault(gate["nodeid"].split("::")[-1], {})[gate["part"]] = gate["status"]
    assert by_test["test_control_qualifies"] == dict.fromkeys(PLANNER_ITEMS, "passed")
    assert by_test["test_crashing_is_refused"] == dict.fromkeys(PLANNER_ITEMS, "critical")
