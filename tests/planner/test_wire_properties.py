"""Property: no response, however malformed, makes the adapter raise or drop a call."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.planner.calls import ProposedToolCall
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.wire import DIALECTS, MalformedCall, parse_response, wire_planner

_names = st.sampled_from(["episode__read", "episode__export", "episode.read", "", "x" * 70])
_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    _names,
)  # fmt: skip
_keys = st.sampled_from(
    ["name", "arguments", "input", "type", "function", "operation", "resource", "tool_calls",
     "message", "content", "calls", "x"]
)  # fmt: skip
_json = st.recursive(
    _leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=5)),
    max_leaves=20,
)
_call = st.fixed_dictionaries(
    {"name": _names},
    optional={
        "arguments": _json,
        "input": _json,
        "type": st.sampled_from(["function", "tool_use"]),
    },
)


def _response(dialect: str, calls: list[Any], noise: Any) -> Any:
    if dialect == "openai":
        wrapped = [{"type": "function", "function": call} for call in calls]
        return {"choices": [{"message": {"tool_calls": [*wrapped, noise]}}]}
    if dialect == "anthropic":
        return {"content": [*({**call, "type": "tool_use"} for call in calls), noise]}
    return {"calls": [*calls, noise]}


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(DIALECTS), st.lists(_call, max_size=20), _json, st.one_of(_json, st.floats())
)
def test_parsing_never_raises_and_keeps_every_call(
    dialect: str, calls: list[Any], noise: Any, raw: Any
) -> None:
    for response in (_response(dialect, calls, noise), raw):
        proposals = parse_response(dialect, response)
        assert len(proposals) <= 16
        assert all(type(p) in (ProposedToolCall, MalformedCall) for p in proposals)
    shaped = parse_response(dialect, _response(dialect, calls, noise))
    # a JSON response: every call is one proposal (the noise entry too, unless it is a
    # non-call block); a response that is not JSON is one response_shape proposal
    assert len(shaped) >= min(len(calls), 16)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(DIALECTS), st.lists(_json, min_size=1, max_size=6))
def test_qualifying_a_model_of_arbitrary_answers_always_gives_a_report(
    dialect: str, answers: list[Any]
) -> None:
    turn = iter(range(10_000))

    def model(request: dict[str, Any]) -> Any:
        return answers[next(turn) % len(answers)]

    report = qualify_planner(wire_planner(model, dialect))
    assert report.counts.scenarios == 6
    assert report.counts.planner_errors == 0
