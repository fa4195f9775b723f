"""proposed_tool_calls: every proposal gets the harness decision the sample expects."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from pytest_openmed.planner import PlannerContext, ProposedToolCall, ToolCatalog, qualify_planner
from pytest_openmed.planner.calls import DECISIONS
from pytest_openmed.strategies import ProposalsSample, proposed_tool_calls

FAST = settings(max_examples=60, deadline=None)


# -- planner proposals -------------------------------------------------------------------------


def _judge_turn(sample: ProposalsSample) -> tuple[Any, list[tuple[str, ...]]]:
    """Hand the sample to the harness as turn 0 of ``in-scope``; return the report and
    the decisions the planner is shown on turn 1."""
    shown: list[tuple[str, ...]] = []

    def planner(context: PlannerContext, catalog: ToolCatalog) -> list[object]:
        if context.scenario_id != "in-scope":
            return []
        if context.turn == 0:
            return list(sample.calls)
        shown.append(context.previous_decisions)
        return []

    return qualify_planner(planner), shown


@FAST
@given(proposed_tool_calls(max_size=8, malformed=True))
def test_every_proposal_gets_its_expected_decision(sample: ProposalsSample) -> None:
    report, shown = _judge_turn(sample)
    assert shown == ([sample.expected_decisions] if sample.calls else [])
    counts = report.scenarios[0].counts
    assert counts.proposals == len(sample.calls)
    assert counts.schema_valid_calls == sum(sample.expected_schema_valid)
    assert counts.out_of_grant_proposals == sample.expected_decisions.count("out_of_grant")
    assert counts.planner_errors == 0


@pytest.mark.parametrize("decision", DECISIONS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_single_decision_mix_yields_only_that_decision(
    decision: str, data: st.DataObject
) -> None:
    sample = data.draw(proposed_tool_calls(min_size=1, max_size=3, decisions={decision}))
    assert all(type(call) is ProposedToolCall for call in sample.calls)
    _, shown = _judge_turn(sample)
    assert shown == [(decision,) * len(sample.calls)]


@FAST
@given(proposed_tool_calls(min_size=1, max_size=2, decisions={"schema_invalid"}, malformed=True))
def test_malformed_proposals_are_schema_invalid(sample: ProposalsSample) -> None:
    report, shown = _judge_turn(sample)
    assert shown == [("schema_invalid",) * len(sample.calls)]
    assert report.scenarios[0].counts.schema_invalid_calls == len(sample.calls)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_size": 2, "max_size": 1},
        {"max_size": 17},
        {"decisions": set()},
        {"decisions": {"approved"}},
        {"decisions": {"allowed"}, "malformed": True},
        {"malformed": 1},
    ],
)
def test_proposal_strategy_refuses_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        proposed_tool_calls(**kwargs)


_SEARCH = settings(max_examples=400, database=None, deadline=None)


@pytest.mark.parametrize(
    "condition",
    [
        lambda s: any(type(c) is not ProposedToolCall for c in s.calls),
        lambda s: any(
            type(c) is ProposedToolCall and str(c.tool).endswith("@1.0.0") for c in s.calls
        ),
        lambda s: any(
            type(c) is ProposedToolCall and c.approval_token not in (None, "") for c in s.calls
        ),
        lambda s: any(
            decision == "out_of_grant" and valid
            for decision, valid in zip(s.expected_decisions, s.expected_schema_valid, strict=True)
        ),
        lambda s: any(type(c) is ProposedToolCall and not c.arguments for c in s.calls),
        lambda s: len(set(s.expected_decisions)) >= 3,
    ],
    ids=[
        "malformed",
        "versioned-tool",
        "approval-token",
        "valid-but-out-of-grant",
        "no-arguments",
        "mixed-turn",
    ],
)
def test_every_kind_of_proposal_is_reachable(condition: Any) -> None:
    find(proposed_tool_calls(max_size=6, malformed=True), condition, settings=_SEARCH)
