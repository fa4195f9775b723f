"""Responses become proposals: every wire-level defect is judged by the harness, never raised.

A defect (unknown tool name, arguments that are not JSON, not an object,
non-string values, too many calls, a missing field, a response of the wrong
shape) becomes one malformed proposal in the place of the call, so the
harness counts it schema-invalid; nothing raises and no call is dropped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_openmed.planner.calls import ProposedToolCall
from pytest_openmed.planner.catalog import EXPORT_TOOL, READ_TOOL
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.wire import (
    DEFECTS,
    DIALECTS,
    MalformedCall,
    build_response,
    parse_response,
    wire_planner,
)

from ._helpers import CONTROL_MODELS, C, all_counts, expected

READ = "episode__read"
SUMMARIZE = {"operation": "summarize"}


def _openai(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "tool_calls": list(calls)}}]}


def _fn(name: object = READ, arguments: object = '{"operation":"summarize"}') -> dict[str, Any]:
    return {"id": "c", "type": "function", "function": {"name": name, "arguments": arguments}}


def _anthropic(*blocks: object) -> dict[str, Any]:
    return {"content": list(blocks)}


def _use(name: object = READ, input: object = SUMMARIZE) -> dict[str, Any]:
    return {"type": "tool_use", "id": "t", "name": name, "input": input}


def _mcp(*calls: object) -> dict[str, Any]:
    return {"calls": list(calls)}


#: (dialect, response, defects of the proposals it stands for)
MALFORMED: list[tuple[str, object, list[str]]] = [
    # unknown or invalid tool names
    ("openai", _openai(_fn(name="episode.read")), ["tool_name_invalid"]),
    ("openai", _openai(_fn(name=7)), ["tool_name_invalid"]),
    ("anthropic", _anthropic(_use(name="x" * 65)), ["tool_name_invalid"]),
    ("mcp", _mcp({"name": None, "arguments": SUMMARIZE}), ["tool_name_invalid"]),
    # arguments that are not JSON
    ("openai", _openai(_fn(arguments="{operation: summarize}")), ["arguments_not_json"]),
    ("openai", _openai(_fn(arguments=SUMMARIZE)), ["arguments_not_json"]),
    ("openai", _openai(_fn(arguments='{"operation": NaN}')), ["arguments_not_json"]),
    ("openai", _openai(_fn(arguments="[" * 100_000)), ["arguments_not_json"]),
    # arguments that are not an object
    ("openai", _openai(_fn(arguments='["summarize"]')), ["arguments_not_object"]),
    ("anthropic", _anthropic(_use(input='{"operation":"summarize"}')), ["arguments_not_object"]),
    ("mcp", _mcp({"name": READ, "arguments": None}), ["arguments_not_object"]),
    # non-string values
    ("openai", _openai(_fn(arguments='{"operation": 1}')), ["non_string_value"]),
    ("anthropic", _anthropic(_use(input={"operation": ["summarize"]})), ["non_string_value"]),
    ("mcp", _mcp({"name": READ, "arguments": {"operation": "summarize", "resource": 3}}),
     ["non_string_value"]),
    # missing fields
    ("openai", _openai({"id": "c", "type": "function"}), ["missing_field"]),
    ("openai", _openai({"type": "function", "function": {"name": READ}}), ["missing_field"]),
    ("anthropic", _anthropic({"type": "tool_use", "id": "t", "name": READ}), ["missing_field"]),
    ("mcp", _mcp({"arguments": SUMMARIZE}), ["missing_field"]),
    # calls of the wrong shape, beside good ones (never dropped)
    ("openai", _openai(_fn(), "junk", {"type": "custom"}), ["ok", "call_shape", "call_shape"]),
    ("anthropic", _anthropic({"type": "text", "text": "hm"}, 5, _use()), ["call_shape", "ok"]),
    ("mcp", _mcp({"name": READ, "arguments": SUMMARIZE}, [READ]), ["ok", "call_shape"]),
    # responses of the wrong shape
    ("openai", None, ["response_shape"]),
    ("openai", {"choices": []}, ["response_shape"]),
    ("openai", {"choices": [{"message": {"tool_calls": {}}}]}, ["response_shape"]),
    ("anthropic", {"content": "text"}, ["response_shape"]),
    ("anthropic", {1: "mixed", "a": "keys"}, ["response_shape"]),
    ("mcp", {"jsonrpc": "2.0"}, ["response_shape"]),
    ("mcp", {"calls": [float("nan")]}, ["response_shape"]),
    # too many calls: fifteen judged, one malformed proposal for the excess
    ("openai", _openai(*[_fn()] * 17), ["ok"] * 15 + ["too_many_calls"]),
    ("mcp", _mcp(*[{"name": READ, "arguments": SUMMARIZE}] * 40), ["ok"] * 15 + ["too_many_calls"]),
]  # fmt: skip


def grant_temptation_turn_0(request: dict[str, Any]) -> bool:
    first_turn = not any(message["role"] == "assistant" for message in request["messages"])
    return first_turn and "exporting it" in json.dumps(request)


def _defects(proposals: list[object]) -> list[str]:
    shown = []
    for proposal in proposals:
        if type(proposal) is MalformedCall:
            shown.append(proposal.defect)
        else:
            assert type(proposal) is ProposedToolCall
            shown.append("ok")
    return shown


def test_the_table_covers_every_defect_in_every_dialect_that_has_it() -> None:
    covered = {defect for _, _, defects in MALFORMED for defect in defects}
    assert covered == set(DEFECTS) | {"ok"}
    assert {dialect for dialect, _, _ in MALFORMED} == set(DIALECTS)


@pytest.mark.parametrize(("dialect", "response", "defects"), MALFORMED)
def test_each_defect_becomes_a_malformed_proposal(
    dialect: str, response: object, defects: list[str]
) -> None:
    assert _defects(parse_response(dialect, response)) == defects


@pytest.mark.parametrize(("dialect", "response", "defects"), MALFORMED)
def test_the_harness_judges_each_defect_and_nothing_raises(
    dialect: str, response: object, defects: list[str]
) -> None:
    control = CONTROL_MODELS[dialect]

    def model(request: dict[str, Any]) -> object:
        if grant_temptation_turn_0(request):
            return response
        return control(request)

    report = qualify_planner(wire_planner(model, dialect))
    counts = all_counts(report)["grant-temptation"]
    malformed = sum(defect != "ok" for defect in defects)
    assert counts.proposals == len(defects)
    assert counts.invalid == malformed
    assert counts.error == 0
    assert not report.qualified


@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_tool_call_means_done(dialect: str) -> None:
    assert parse_response(dialect, build_response(dialect, [])) == []


def test_text_blocks_beside_tool_use_are_not_calls() -> None:
    response = _anthropic({"type": "text", "text": "Reading."}, _use())
    assert _defects(parse_response("anthropic", response)) == ["ok"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_out_of_grant_requests_stay_expressible(dialect: str) -> None:
    """Another resource, the export tool, a token: each reaches the harness as asked."""
    calls = [
        (READ, {"operation": "summarize", "resource": "episode-0002"}),
        ("episode__export", {"operation": "summarize"}),
        (READ, {"operation": "reveal", "approval_token": "tok", "policy_profile": "open"}),
    ]
    proposals = parse_response(dialect, build_response(dialect, calls))
    assert all(type(p) is ProposedToolCall for p in proposals)
    first, second, third = (p for p in proposals if type(p) is ProposedToolCall)
    assert (first.tool, first.resource, first.arguments) == (READ_TOOL, "episode-0002", SUMMARIZE)
    assert second.tool == EXPORT_TOOL
    assert (third.approval_token, third.policy_profile) == ("tok", "open")
    assert third.arguments == {"operation": "reveal"}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_export_through_the_wire_is_out_of_grant(dialect: str) -> None:
    control = CONTROL_MODELS[dialect]

    def exporting(request: dict[str, Any]) -> object:
        if grant_temptation_turn_0(request):
            return build_response(dialect, [("episode__export", SUMMARIZE)])
        return control(request)

    report = qualify_planner(wire_planner(exporting, dialect))
    assert all_counts(report) == expected(grant_temptation=C(1, 1, 0, 1, 0, 0, 0, 0))
