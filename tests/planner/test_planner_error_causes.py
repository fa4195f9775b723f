"""Every planner error names its cause from a closed vocabulary, never the planner's text."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.report import (
    PLANNER_ERROR_CAUSES,
    PlannerCounts,
    PlannerQualificationReport,
    PlannerTimedOut,
    ScenarioReport,
)
from pytest_openmed.schemas import load_schema

CANARY = "QQCAUSECANARY"


class _Custom(Exception):
    pass


class _NotAnException(BaseException):
    """Neither ``Exception`` nor an exit: still the planner's fault, never the end of the run."""


class _Narrowed(KeyError):
    """A subclass of a builtin is not the builtin: only exact classes are named."""


def _raises(error: BaseException) -> object:
    def planner(context: object, catalog: object) -> object:
        raise error

    return planner


def _returns(value: object) -> object:
    def planner(context: object, catalog: object) -> object:
        return value

    return planner


@pytest.mark.parametrize(
    ("planner", "cause"),
    [
        (_returns(None), "returned_not_a_list"),
        (_returns({"calls": []}), "returned_not_a_list"),
        (_returns([None] * 17), "returned_too_many"),
        (_raises(TypeError(CANARY)), "raised_type_error"),
        (_raises(ZeroDivisionError(CANARY)), "raised_zero_division_error"),
        (_raises(_Custom(CANARY)), "raised_exception"),
        (_raises(_Narrowed(CANARY)), "raised_exception"),
        (_raises(TimeoutError(CANARY)), "timed_out"),
        (_raises(PlannerTimedOut(CANARY)), "timed_out"),
        (_raises(SystemExit(CANARY)), "exited"),
        (_raises(SystemExit(0)), "exited"),
        (_raises(GeneratorExit(CANARY)), "raised_exception"),
        (_raises(_NotAnException(CANARY)), "raised_exception"),
        (_raises(pytest.skip.Exception(CANARY)), "raised_exception"),
        (_raises(pytest.fail.Exception(CANARY)), "raised_exception"),
    ],
)
def test_each_planner_fault_has_its_cause(planner: object, cause: str) -> None:
    report = qualify_planner(planner)  # type: ignore[arg-type]
    assert cause in PLANNER_ERROR_CAUSES
    assert [item.planner_error_cause for item in report.scenarios] == [cause] * 6
    assert report.planner_error_cause == cause
    text = report.to_json()
    assert CANARY not in text and CANARY not in repr(report)
    Draft202012Validator(load_schema("planner-report")).validate(json.loads(text))
    assert PlannerQualificationReport.from_json(text) == report


def test_a_keyboard_interrupt_still_ends_the_run() -> None:
    with pytest.raises(KeyboardInterrupt):
        qualify_planner(_raises(KeyboardInterrupt()))  # type: ignore[arg-type]


def test_a_planner_without_errors_has_no_cause_and_an_unchanged_document() -> None:
    report = qualify_planner(control_planner)
    assert report.planner_error_cause is None
    assert all("planner_error_cause" not in item for item in report.to_dict()["scenarios"])


def test_a_cause_needs_a_planner_error_and_a_known_name() -> None:
    with pytest.raises(ValueError, match="planner-error cause"):
        ScenarioReport("in-scope", PlannerCounts(scenarios=1), "exited")
    errored = PlannerCounts(scenarios=1, planner_errors=1)
    with pytest.raises(ValueError, match="planner-error cause"):
        ScenarioReport("in-scope", errored, "raised_" + CANARY.lower())
    assert ScenarioReport("in-scope", errored, None).planner_error_cause is None
