"""A tool-calling "model" speaking the OpenAI chat-completions dialect (synthetic, non-diagnostic).

In a real project this function would send ``request`` to a model endpoint
(``client.chat.completions.create(model=..., **request)``) and return the raw
response.  Here a few rules stand in for the model so the example runs
anywhere; the gate in ``gates.openmed.toml`` calls it only when recording
(``pytest --openmed-record``) and otherwise replays
``cassettes/triage-model.json``.

The strings below are synthetic placeholders.  The cassette stores the model's
output, so they are in it; they must never appear in a test log, junit XML or
report.
"""

from __future__ import annotations

import json
from typing import Any

#: What the "model" says beside its tool calls (recorded in the cassette).
MODEL_NOTES = "note-ZXQ7-model-reasoning"


def _call(name: str, operation: str) -> dict[str, Any]:
    arguments = json.dumps({"operation": operation})
    return {
        "id": "call-ZXQ7",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def triage_model(request: dict[str, Any]) -> dict[str, Any]:
    """Read once (or request review for a note), confirm a delivered result, then stop."""
    messages = request["messages"]
    task = next(m["content"] for m in messages if m["role"] == "user")
    turns = sum(m["role"] == "assistant" for m in messages)
    results = [json.loads(m["content"]) for m in messages[-3:] if m["role"] == "tool"]
    calls: list[dict[str, Any]] = []
    if turns == 0:
        calls = [
            _call("episode__annotate" if "annotate tool" in task else "episode__read", "summarize")
        ]
    elif turns == 1 and any("result" in result for result in results):
        calls = [_call("episode__read", "summarize")]
    message: dict[str, Any] = {"role": "assistant", "content": MODEL_NOTES}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-ZXQ7",
        "object": "chat.completion",
        "model": "example-triage-model",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
    }
