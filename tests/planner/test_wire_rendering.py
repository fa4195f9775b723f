"""The context is rendered as a request in each dialect, exactly as documented.

The untrusted result text reaches the model only inside a tool result, never as
system or user text; earlier calls come back as the model's own tool calls,
each answered by the harness's decision.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_openmed.planner.calls import PlannerContext
from pytest_openmed.planner.catalog import build_catalog
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.scenarios import SCENARIOS
from pytest_openmed.planner.wire import (
    DIALECTS,
    ENVELOPE_FIELDS,
    SYSTEM_TEMPLATE,
    build_response,
    wire_planner,
)
from pytest_openmed.planner.wire_controls import openai_control_model

HOSTILE_TEXT = next(s.result_text for s in SCENARIOS if s.scenario_id == "hostile-result")
assert HOSTILE_TEXT is not None


def requests_of(dialect: str, scenario_id: str) -> list[dict[str, Any]]:
    """Every request a well-behaved model receives in one scenario."""
    seen: list[dict[str, Any]] = []
    from pytest_openmed.planner.wire_controls import (
        anthropic_control_model,
        mcp_control_model,
    )

    model = {
        "openai": openai_control_model,
        "anthropic": anthropic_control_model,
        "mcp": mcp_control_model,
    }[dialect]

    def spy(request: dict[str, Any]) -> object:
        seen.append(request)
        return model(request)

    planner = wire_planner(spy, dialect)

    def only(context: PlannerContext, catalog: Any) -> object:
        if context.scenario_id != scenario_id:
            return control_planner(context, catalog)
        return planner(context, catalog)

    qualify_planner(only)
    return seen


def system_and_user_text(dialect: str, request: dict[str, Any]) -> str:
    if dialect == "openai":
        return " ".join(
            m["content"] for m in request["messages"] if m["role"] in ("system", "user")
        )
    system = request["system" if dialect == "anthropic" else "systemPrompt"]
    first = request["messages"][0]["content"]
    task = first[0]["text"] if dialect == "anthropic" else first["text"]
    return system + " " + task


def tool_result_texts(dialect: str, request: dict[str, Any]) -> list[str]:
    texts = []
    for message in request["messages"]:
        if dialect == "openai" and message["role"] == "tool":
            texts.append(message["content"])
        elif dialect != "openai" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]
                    texts.append(content if dialect == "anthropic" else content[0]["text"])
    return texts


@pytest.mark.parametrize("dialect", DIALECTS)
def test_tools_are_published_in_the_dialect_s_own_shape(dialect: str) -> None:
    request = requests_of(dialect, "in-scope")[0]
    tools = request["tools"]
    assert len(tools) == 4
    for tool in tools:
        if dialect == "openai":
            assert tool["type"] == "function"
            definition, schema_key = tool["function"], "parameters"
        else:
            definition, schema_key = (
                tool,
                "input_schema" if dialect == "anthropic" else "inputSchema",
            )
        assert set(definition) == {"name", "description", schema_key}
        schema = definition[schema_key]
        assert schema["required"] == ["operation"]
        assert set(schema["properties"]) == {"operation", *ENVELOPE_FIELDS}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_result_text_arrives_only_as_a_tool_result(dialect: str) -> None:
    first, second, third = requests_of(dialect, "hostile-result")
    for request in (first, second, third):
        assert HOSTILE_TEXT not in system_and_user_text(dialect, request)
    assert tool_result_texts(dialect, first) == []
    # turn 1: the turn-0 read is answered by its decision and the result text
    assert [json.loads(t) for t in tool_result_texts(dialect, second)] == [
        {"decision": "allowed", "result": HOSTILE_TEXT}
    ]
    # turn 2: the whole transcript; the result is not delivered again by the harness
    assert [json.loads(t) for t in tool_result_texts(dialect, third)] == [
        {"decision": "allowed", "result": HOSTILE_TEXT},
        {"decision": "allowed"},
    ]


def test_the_openai_request_is_exactly_the_documented_rendering() -> None:
    second = requests_of("openai", "benign-result")[1]
    catalog = build_catalog()
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    system = second["messages"][0]["content"]
    assert system == SYSTEM_TEMPLATE.format(
        purpose="care-team-summary",
        data_classes="clinical-summary",
        grants="\n".join(
            f"- {name}: synthetic-episode-0001 / summarize-for-care-team / minimum-necessary-v1"
            for name in ("episode__read", "episode__annotate", "episode__read_identifiers")
        ),
    )
    assistant = second["messages"][2]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_0_0",
                "type": "function",
                "function": {"name": "episode__read", "arguments": '{"operation":"summarize"}'},
            }
        ],
    }
    assert second["messages"][3]["tool_call_id"] == "call_0_0"
    assert len(catalog) == len(second["tools"])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_rendering_is_deterministic(dialect: str) -> None:
    assert requests_of(dialect, "hostile-result") == requests_of(dialect, "hostile-result")


def test_a_model_cannot_change_what_later_requests_say_by_mutating_its_request() -> None:
    seen: list[str] = []

    def vandal(request: dict[str, Any]) -> object:
        seen.append(json.dumps(request, sort_keys=True))
        request["messages"].clear()
        request["tools"].append("junk")
        return build_response("openai", [])

    planner = wire_planner(vandal, "openai")
    qualify_planner(planner)
    assert all('"junk"' not in text for text in seen)
