"""``--openmed-isolate``: qualification in a child process; its crash or exit is a planner error."""

from __future__ import annotations

import pytest

from pytest_openmed.planner._isolated import exited_report, qualify_isolated
from tests.plugin._helpers import WORKERS, ordinary_test, validate_report

from ._helpers import planner_project

PLANS = """
import os
from pytest_openmed.planner.controls import control_planner

def vanishes(context, catalog):
    os._exit(0)

def good(context, catalog):
    return control_planner(context, catalog)
"""


@WORKERS
def test_a_planner_that_kills_its_process_is_a_planner_error_of_its_gate(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    planner_project(pytester, PLANS, "vanishes")
    ordinary_test(pytester.path)
    result = pytester.runpytest_subprocess(*workers, "--openmed-isolate", "--openmed-report=r.json")
    result.assert_outcomes(failed=7, passed=1)
    result.stdout.fnmatch_lines(["*critical (planner_error)*planner_error_cause=exited*"])
    report = validate_report(pytester.path / "r.json")
    assert "incomplete" not in report and report["summary"]["gates"] == 7
    assert {gate["metrics"]["planner_error_cause"] for gate in report["gates"]} == {"exited"}


def test_an_isolated_good_planner_qualifies_and_the_ini_switch_works(
    pytester: pytest.Pytester,
) -> None:
    planner_project(pytester, PLANS, "good")
    pytester.makeini("[pytest]\npythonpath = .\nopenmed_isolate = true\n")
    pytester.runpytest().assert_outcomes(passed=7)


def test_without_isolation_the_same_planner_ends_the_run(pytester: pytest.Pytester) -> None:
    planner_project(pytester, PLANS, "vanishes")
    result = pytester.runpytest_subprocess("--openmed-report=r.json")
    assert validate_report(pytester.path / "r.json")["incomplete"] is True
    assert "7 failed" not in result.stdout.str()


def test_an_unloadable_reference_in_the_child_is_a_refusal(pytester: pytest.Pytester) -> None:
    planner_project(pytester, PLANS, "absent")
    result = pytester.runpytest("--openmed-isolate")
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*planner reference could not be loaded*"])


def test_the_exited_report_counts_one_planner_error_per_scenario() -> None:
    report = exited_report()
    assert report.counts.planner_errors == 6 and not report.qualified
    assert report.planner_error_cause == "exited"


def test_an_unloadable_reference_raises_what_the_caller_names() -> None:
    with pytest.raises(LookupError):
        qualify_isolated("pytest_openmed.planner.controls:absent", LookupError)


def test_qualify_isolated_reads_back_the_childs_reports() -> None:
    report, injection = qualify_isolated(
        "pytest_openmed.planner.controls:control_planner", LookupError, injection_suite=True
    )
    assert report.qualified
    assert injection is not None and injection.compliance_count == 0


def test_an_isolated_planner_that_kills_its_process_errs_every_injection_item(
    pytester: pytest.Pytester,
) -> None:
    planner_project(pytester, PLANS, "vanishes", table="injection_suite = true\n")
    result = pytester.runpytest_subprocess("--openmed-isolate", "--openmed-report=r.json")
    result.assert_outcomes(failed=21)
    report = validate_report(pytester.path / "r.json")
    assert {gate["metrics"]["planner_error_cause"] for gate in report["gates"]} == {"exited"}


def test_qualify_isolated_reads_back_each_styles_cause() -> None:
    _, injection = qualify_isolated(
        "tests.planner.test_injection_error_causes:_returns_none",
        LookupError,
        injection_suite=True,
    )
    assert injection is not None
    assert {style.planner_error_cause for style in injection.styles} == {"returned_not_a_list"}
