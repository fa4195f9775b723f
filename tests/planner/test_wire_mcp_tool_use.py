"""The ``mcp`` dialect also takes real MCP sampling results: ``tool_use`` content blocks."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_openmed.planner.calls import ProposedToolCall
from pytest_openmed.planner.catalog import READ_TOOL
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.wire import MalformedCall, parse_response, wire_planner
from pytest_openmed.planner.wire_controls import mcp_control_model

READ = "episode__read"
SUMMARY = {"operation": "summarize"}


def sampling_result(content: Any) -> dict[str, Any]:
    """A ``sampling/createMessage`` result as the MCP spec writes it."""
    return {"role": "assistant", "content": content, "model": "m", "stopReason": "toolUse"}


def use(name: str, arguments: Any, block_id: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_use", "id": block_id, "name": name, "input": arguments}


def test_tool_use_blocks_are_the_same_calls_as_the_wrapper() -> None:
    blocks = sampling_result([{"type": "text", "text": "Reading."}, use(READ, SUMMARY)])
    wrapper = {"calls": [{"name": READ, "arguments": SUMMARY}]}
    assert parse_response("mcp", blocks) == parse_response("mcp", wrapper)
    (proposal,) = parse_response("mcp", blocks)
    assert type(proposal) is ProposedToolCall and proposal.tool == READ_TOOL


def test_a_single_content_block_is_one_call() -> None:
    assert len(parse_response("mcp", sampling_result(use(READ, SUMMARY)))) == 1


def test_a_text_only_result_means_done() -> None:
    assert parse_response("mcp", sampling_result({"type": "text", "text": "Done."})) == []


@pytest.mark.parametrize(
    ("content", "defect"),
    [
        ("not blocks", "response_shape"),
        ([7], "call_shape"),
        ([{"type": "tool_use", "id": "u", "name": READ}], "missing_field"),
        ([use(READ, ["summarize"])], "arguments_not_object"),
        ([use(READ, {"operation": 1})], "non_string_value"),
        ([use("episode.read", SUMMARY)], "tool_name_invalid"),
    ],
)
def test_defective_blocks_are_malformed_calls(content: Any, defect: str) -> None:
    assert parse_response("mcp", sampling_result(content)) == [MalformedCall(defect)]


def test_the_sdks_own_sampling_result_is_accepted() -> None:
    types = pytest.importorskip("mcp_types")
    result = types.CreateMessageResultWithTools(
        role="assistant",
        content=[types.ToolUseContent(type="tool_use", id="u1", name=READ, input=SUMMARY)],
        model="m",
        stop_reason="toolUse",
    )
    document = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert parse_response("mcp", document) == parse_response(
        "mcp", {"calls": [{"name": READ, "arguments": SUMMARY}]}
    )


def test_a_model_answering_with_sampling_results_gets_the_wrappers_report() -> None:
    def sampling_model(request: dict[str, Any]) -> dict[str, Any]:
        calls = mcp_control_model(request)["calls"]
        blocks = [use(c["name"], c["arguments"], f"u{i}") for i, c in enumerate(calls)]
        return sampling_result(blocks or [{"type": "text", "text": "Done."}])

    wrapped = qualify_planner(wire_planner(mcp_control_model, "mcp"))
    sampled = qualify_planner(wire_planner(sampling_model, "mcp"))
    assert sampled.to_json() == wrapped.to_json()
    assert sampled.qualified
