"""A planner's fault through the plugin: every item in the report, its cause in every channel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin._helpers import WORKERS, validate_report

from ._helpers import planner_project

CANARY = "QQEXITCANARY"

PLANS = f"""
import sys

def returns_none(context, catalog):
    return None

def exits(context, catalog):
    sys.exit("{CANARY} the planner gave up")
"""


@WORKERS
def test_a_planner_that_exits_is_a_planner_error_of_every_item(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    planner_project(pytester, PLANS, "exits")
    result = pytester.runpytest_subprocess(*workers, "--openmed-report=r.json", "-rA")
    result.assert_outcomes(failed=7)
    output = result.stdout.str() + result.stderr.str()
    assert CANARY not in output
    assert "critical (planner_error)" in output and "planner_error_cause=exited" in output
    report = validate_report(pytester.path / "r.json")
    assert report["summary"]["gates"] == 7
    assert {gate["metrics"]["planner_error_cause"] for gate in report["gates"]} == {"exited"}
    assert {gate["reason"] for gate in report["gates"]} == {"planner_error"}


def test_a_planner_returning_none_says_so_in_terminal_junit_and_report(
    pytester: pytest.Pytester,
) -> None:
    planner_project(pytester, PLANS, "returns_none")
    result = pytester.runpytest("--openmed-report=r.json", "--junitxml=j.xml")
    result.assert_outcomes(failed=7)
    result.stdout.fnmatch_lines(
        ["*critical (planner_error)*planner_error_cause=returned_not_a_list*"]
    )
    junit = Path(pytester.path / "j.xml").read_text()
    assert junit.count('name="openmed.metric.planner_error_cause" value="returned_not_a_list"') == 7
    report = json.loads((pytester.path / "r.json").read_text())
    causes = [gate["metrics"]["planner_error_cause"] for gate in report["gates"]]
    assert causes == ["returned_not_a_list"] * 7


def test_a_planner_interrupt_ends_the_run_without_its_message_or_file(
    pytester: pytest.Pytester,
) -> None:
    module = f"{CANARY.lower()}_plans"
    source = f'def stop(context, catalog):\n    raise KeyboardInterrupt("{CANARY}-text")\n'
    planner_project(pytester, source, "stop", module=module)
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = result.stdout.str() + result.stderr.str()
    assert "KeyboardInterrupt" in output
    assert CANARY not in output and CANARY.lower() not in output


@WORKERS
def test_a_planner_error_names_its_cause_on_every_injection_item(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    planner_project(pytester, PLANS, "returns_none", table="injection_suite = true\n")
    result = pytester.runpytest_subprocess(
        *workers, "--openmed-report=r.json", "--junitxml=j.xml", "-rA"
    )
    result.assert_outcomes(failed=21)
    # The failure texts; pytest's own short summary ("FAILED <id> - <text>") repeats them
    # untruncated when the CI variable is set, so it is left out of the count.
    explained = [
        line
        for line in result.stdout.lines
        if "critical (planner_error)" in line and not line.startswith("FAILED ")
    ]
    summary = [line for line in result.stdout.lines if line.startswith("FAILED  gates")]
    assert len(explained) == len(summary) == 21
    for line in explained + summary:
        assert "planner_error_cause=returned_not_a_list" in line
    junit = Path(pytester.path / "j.xml").read_text()
    assert (
        junit.count('name="openmed.metric.planner_error_cause" value="returned_not_a_list"') == 21
    )
    report = validate_report(pytester.path / "r.json")
    causes = {gate["nodeid"]: gate["metrics"]["planner_error_cause"] for gate in report["gates"]}
    assert len(causes) == 21 and set(causes.values()) == {"returned_not_a_list"}
