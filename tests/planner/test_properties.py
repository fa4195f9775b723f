"""Property: arbitrary planner behaviour never crashes the harness and keeps the counts true."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner.calls import PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import (
    EXPORT_TOOL,
    GRANTED_ACTION,
    GRANTED_POLICY,
    GRANTED_RESOURCE,
    READ_TOOL,
    RESTRICTED_TOOL,
    REVIEW_TOOL,
    ToolCatalog,
)
from pytest_openmed.planner.report import PlannerQualificationReport
from pytest_openmed.planner.scenarios import SCENARIO_IDS
from pytest_openmed.schemas import load_schema

_VALIDATOR = Draft202012Validator(load_schema("planner-report"))


class Boom:
    """A scripted turn that raises."""


def _sized(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map(lambda n: "x" * n)


_junk = st.one_of(st.none(), st.integers(), st.binary(max_size=4), st.floats(allow_nan=True),
                  st.lists(st.integers(), max_size=2), st.just(object()))  # fmt: skip
_text = st.one_of(st.text(max_size=12), _sized(500, 520))
_tool = st.one_of(
    st.sampled_from([READ_TOOL, REVIEW_TOOL, EXPORT_TOOL, RESTRICTED_TOOL,
                     READ_TOOL + "@1.0.0", EXPORT_TOOL + "@1.0.0", ""]),
    _text,
    _junk,
)  # fmt: skip
_scope = st.one_of(st.just(None), _text, _junk)  # None = keep the granted default
_value = st.one_of(st.sampled_from(["summarize", "reveal"]), st.text(max_size=8),
                   _sized(4090, 4100), _junk, st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2))  # fmt: skip
_key = st.one_of(st.just("operation"), st.text(max_size=6), _sized(60, 70), st.integers())
_arguments = st.one_of(st.dictionaries(_key, _value, max_size=6), _junk)
_token = st.one_of(st.none(), st.none(), st.text(max_size=10), _junk)


@st.composite
def _proposal(draw: st.DrawFn) -> ProposedToolCall:
    resource, action, policy = draw(_scope), draw(_scope), draw(_scope)
    return ProposedToolCall(
        draw(_tool),
        draw(_arguments),
        resource=GRANTED_RESOURCE if resource is None else resource,
        action=GRANTED_ACTION if action is None else action,
        policy_profile=GRANTED_POLICY if policy is None else policy,
        approval_token=draw(_token),
    )


_proposals = st.lists(st.one_of(_proposal(), _proposal(), _junk), max_size=18)
_turn = st.one_of(
    _proposals,
    _proposals.map(tuple),
    st.just([]),
    st.just(Boom()),
    _junk,
    st.sampled_from([set(), frozenset(), {}, "", b""]),
)
_script = st.dictionaries(
    st.tuples(st.sampled_from(SCENARIO_IDS), st.integers(0, 2)), _turn, max_size=18
)


def _expected_asks(script: dict[tuple[str, int], Any], scenario_id: str) -> tuple[int, int]:
    """Proposals the harness must count and whether the scenario ends in a planner error."""
    proposals = 0
    for turn in range(3):
        value = script.get((scenario_id, turn), [])
        if isinstance(value, Boom) or type(value) not in (list, tuple) or len(value) > 16:
            return proposals, 1
        if not value:
            return proposals, 0
        proposals += len(value)
    return proposals, 0


@settings(max_examples=150, deadline=None)
@given(script=_script)
def test_arbitrary_planners_keep_the_count_invariants(
    script: dict[tuple[str, int], Any],
) -> None:
    def planner(context: PlannerContext, catalog: ToolCatalog) -> object:
        value = script.get((context.scenario_id, context.turn), [])
        if isinstance(value, Boom):
            raise RuntimeError("scripted failure")
        return value

    report = qualify_planner(planner)
    assert tuple(s.scenario_id for s in report.scenarios) == SCENARIO_IDS
    for scenario in report.scenarios:
        counts = scenario.counts
        proposals, error = _expected_asks(script, scenario.scenario_id)
        assert counts.proposals == proposals
        assert counts.planner_errors == error
        assert counts.schema_valid_calls + counts.schema_invalid_calls == counts.proposals
        assert counts.out_of_grant_proposals <= counts.proposals
        assert counts.approval_evasion_retries <= counts.proposals
        assert counts.hostile_instruction_compliance <= counts.hostile_scenarios
        assert counts.hostile_scenarios == int(scenario.scenario_id == "hostile-result")
        assert counts.task_completion + counts.planner_errors <= 1
    totals = report.counts
    assert totals.scenarios == 6
    assert totals.schema_valid_calls + totals.schema_invalid_calls == totals.proposals
    assert report.qualified is False or totals.critical_events == 0
    document = report.to_dict()
    _VALIDATOR.validate(document)
    assert PlannerQualificationReport.from_json(report.to_json()) == report
