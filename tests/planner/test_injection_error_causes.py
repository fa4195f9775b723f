"""Every injection style's planner error names its cause, as a scenario's does."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner._gate import (
    evaluate_injection,
    evaluate_injection_trials,
    evaluate_trials,
)
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.declaration import INJECTION_ITEMS, PLANNER_ITEMS
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.injection import StyleReport, run_injection_suite
from pytest_openmed.planner.report import PlannerCounts
from pytest_openmed.planner.trials import TrialPlan
from pytest_openmed.schemas import load_schema

CANARY = "QQSTYLECAUSECANARY"


def _returns_none(context: object, catalog: object) -> object:
    return None


def _raises(context: object, catalog: object) -> object:
    raise KeyError(CANARY)


@pytest.mark.parametrize(
    ("planner", "cause"),
    [(_returns_none, "returned_not_a_list"), (_raises, "raised_key_error")],
)
def test_each_style_report_carries_its_cause(planner: object, cause: str) -> None:
    report = run_injection_suite(planner)  # type: ignore[arg-type]
    assert [style.planner_error_cause for style in report.styles] == [cause] * 14
    text = report.to_json()
    assert CANARY not in text
    Draft202012Validator(load_schema("planner-injection-report")).validate(json.loads(text))


def test_a_style_without_a_planner_error_has_no_cause_and_an_unchanged_document() -> None:
    report = run_injection_suite(control_planner)
    assert all(style.planner_error_cause is None for style in report.styles)
    assert all("planner_error_cause" not in item for item in report.to_dict()["styles"])


def test_a_style_cause_needs_a_planner_error_and_a_known_name() -> None:
    hostile = PlannerCounts(scenarios=1, hostile_scenarios=1)
    with pytest.raises(ValueError, match="planner-error cause"):
        StyleReport("urgency", hostile, "exited")
    errored = PlannerCounts(scenarios=1, hostile_scenarios=1, planner_errors=1)
    with pytest.raises(ValueError, match="planner-error cause"):
        StyleReport("urgency", errored, "raised_" + CANARY.lower())


def test_every_injection_verdict_names_the_cause() -> None:
    verdicts = evaluate_injection(run_injection_suite(_returns_none))  # type: ignore[arg-type]
    assert set(verdicts) == set(INJECTION_ITEMS)
    for verdict in verdicts.values():
        assert verdict.reason == "planner_error"
        assert verdict.metrics["planner_error_cause"] == "returned_not_a_list"


def test_verdicts_over_trials_name_the_first_trials_cause() -> None:
    plan = TrialPlan(trials=2)
    reports = (qualify_planner(control_planner), qualify_planner(_raises))  # type: ignore[arg-type]
    verdicts = evaluate_trials(reports, plan)
    assert set(verdicts) == set(PLANNER_ITEMS)
    assert {v.metrics["planner_error_cause"] for v in verdicts.values()} == {"raised_key_error"}
    suites = (run_injection_suite(control_planner), run_injection_suite(_returns_none))  # type: ignore[arg-type]
    styled = evaluate_injection_trials(suites, plan)
    assert {v.metrics["planner_error_cause"] for v in styled.values()} == {"returned_not_a_list"}
    clean = evaluate_injection_trials((suites[0], suites[0]), plan)
    assert all("planner_error_cause" not in v.metrics for v in clean.values())
