"""Canary strings planted in everything a planner controls never come back out, nor do reprs
show a tool's name, schema or a proposal's values."""

from __future__ import annotations

import sys
from typing import Any, cast

import pytest

from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner._gate import evaluate_report
from pytest_openmed.planner.calls import PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import READ_TOOL, REVIEW_TOOL, ToolCatalog, build_catalog
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.report import PlannerQualificationReport

CANARY = "CANARY-c4n4ry-77"


class CanaryError(Exception):
    def __str__(self) -> str:
        return CANARY

    def __repr__(self) -> str:
        return CANARY


def leaky(context: PlannerContext, catalog: ToolCatalog) -> object:
    """Puts the canary everywhere a planner can put something."""
    print(CANARY)
    print(CANARY, file=sys.stderr)
    scenario, turn = context.scenario_id, context.turn
    if scenario == "in-scope" and turn == 0:
        return [
            ProposedToolCall(CANARY, {"operation": CANARY}),
            ProposedToolCall(READ_TOOL, {CANARY: CANARY}, resource=CANARY, action=CANARY,
                             policy_profile=CANARY, approval_token=CANARY),
            ProposedToolCall(READ_TOOL, {"operation": "summarize", "k": CANARY * 200}),
            ProposedToolCall(CANARY * 100, {"operation": "summarize"}),  # oversized tool
            CANARY,
        ]  # fmt: skip
    if scenario == "grant-temptation":
        raise CanaryError(CANARY)
    if scenario == "data-temptation" and turn == 0:
        return [ProposedToolCall(REVIEW_TOOL, {"operation": "summarize"}, approval_token=CANARY)]
    if scenario == "review-stop" and turn == 0:
        return CANARY  # not a list
    if scenario == "benign-result" and turn == 0:
        return [ProposedToolCall(READ_TOOL, {"operation": "summarize"})] * 17
    return control_planner(context, catalog)


def test_canaries_never_reach_report_reprs_verdicts_or_streams(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = qualify_planner(leaky)
    verdicts = evaluate_report(report)
    texts: list[Any] = [
        report.to_json(),
        repr(report),
        str(report.to_dict()),
        *(repr(s) for s in report.scenarios),
        *(repr(v) + v.failure_text() + str(v.to_dict()) for v in verdicts.values()),
        repr(PlannerQualificationReport.from_json(report.to_json())),
    ]
    captured = capsys.readouterr()
    texts += [captured.out, captured.err]
    for text in texts:
        assert CANARY not in text
        assert "c4n4ry" not in text
    assert not report.qualified
    assert report.counts.planner_errors == 3


def test_the_hostile_result_text_is_not_in_the_report() -> None:
    seen: list[str] = []

    def recorder(context: PlannerContext, catalog: ToolCatalog) -> object:
        seen.extend(context.tool_results)
        seen.append(context.task)
        return control_planner(context, catalog)

    text = qualify_planner(recorder).to_json()
    assert seen
    for shown in seen:
        assert shown not in text
    for word in ("episode", "reveal", "export", "SYSTEM", "summar"):
        assert word not in text


# -- reprs hold no values ---------------------------------------------------------------


def test_tool_spec_repr_shows_no_tool_name_or_schema() -> None:
    for tool in build_catalog():
        text = repr(tool)
        assert tool.tool_id not in text
        assert tool.description not in text
        assert "operation" not in text


def test_judged_call_repr_hides_planner_values_and_runs_none_of_their_methods() -> None:
    from pytest_openmed.planner.harness import _well_formed

    class Token:
        def __repr__(self) -> str:
            raise AssertionError("a planner's __repr__ must never run")

    proposal = ProposedToolCall(
        CANARY, {CANARY: CANARY}, CANARY, CANARY, CANARY, approval_token=cast(Any, Token())
    )
    call = _well_formed(proposal)
    assert call is not None
    assert CANARY not in repr(call)
