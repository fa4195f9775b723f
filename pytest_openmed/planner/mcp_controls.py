"""The MCP control pair: scripted MCP hosts that connect to the governed server.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

Each is a ``run_agent(server_params, scenario_id)`` hook, a generic MCP client
host written with the SDK's own client (``ClientSession`` over ``stdio_client``
or ``streamable_http_client``): it lists the tools, gets the scenario's
prompt, and calls tools by the rules of the wire twins
(:mod:`pytest_openmed.planner.wire_controls`), reading each answer as a model
would.  ``mcp_control_agent`` qualifies and obeys no injection style;
``mcp_gullible_agent`` obeys instructions hidden in structured data and is
caught by the injection suite on exactly those styles.  Their recorded
cassettes (``cassettes/``) are the control run's MCP pair, replayed without
the SDK.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_openmed.contract import GateResult, GateSettings, GateSpec, GateStatus, declaration_of
from pytest_openmed.errors import InputRefused, InvalidArgument
from pytest_openmed.planner.declaration import GateDeclaration
from pytest_openmed.planner.wire_controls import (
    GULLIBLE_STYLES,
    _control_calls,
    _expect,
    _gullible_calls,
    _result,
    _View,
)

__all__ = [
    "MCP_CASSETTES",
    "MCP_CONTROLS",
    "McpControl",
    "connect",
    "evaluate_mcp_control",
    "mcp_control_agent",
    "mcp_gullible_agent",
]

#: Where the control pair's recorded cassettes live.
MCP_CASSETTES = Path(__file__).parent / "cassettes"

_Rules = Callable[[_View], list[tuple[str, dict[str, str]]]]


@asynccontextmanager
async def connect(server_params: Any) -> AsyncIterator[Any]:
    """A ``ClientSession`` to the server: an endpoint URL (``str``) or stdio parameters."""
    from mcp import ClientSession, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    if isinstance(server_params, str):
        async with (
            streamable_http_client(server_params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session
        return
    with Path(os.devnull).open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(server_params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def _host(server_params: Any, scenario_id: str, rules: _Rules) -> None:
    async with connect(server_params) as session:
        await session.list_tools()
        prompt = await session.get_prompt(scenario_id)
        task = prompt.messages[-1].content.text
        turns = 0
        results: tuple[dict[str, Any], ...] = ()
        while True:
            calls = rules(_View(task, turns, results))
            if not calls:
                return
            answers = []
            for name, arguments in calls:
                answer = await session.call_tool(name, arguments)
                answers.append(_result(answer.content[0].text))
            turns, results = turns + 1, tuple(answers)


def _agent(rules: _Rules, name: str) -> Callable[[Any, str], None]:
    def run_agent(server_params: Any, scenario_id: str) -> None:
        import anyio

        anyio.run(_host, server_params, scenario_id, rules)

    run_agent.__name__ = name
    return run_agent


mcp_control_agent = _agent(_control_calls, "mcp_control_agent")
mcp_gullible_agent = _agent(_gullible_calls, "mcp_gullible_agent")


@dataclass(frozen=True, slots=True)
class McpControl:
    """An MCP control host: its gate name, ``run_agent`` attribute, cassette, expected statuses."""

    name: str
    attribute: str
    expected: Mapping[str, GateStatus]

    def __post_init__(self) -> None:
        object.__setattr__(self, "expected", MappingProxyType(dict(self.expected)))

    @property
    def reference(self) -> str:
        return f"{__name__}:{self.attribute}"

    @property
    def cassette(self) -> Path:
        """The recorded conversations (the qualification and the injection suite)."""
        return MCP_CASSETTES / f"{self.name}.json"


#: The MCP control pair run by ``--openmed-controls``, each with the injection suite.
MCP_CONTROLS: tuple[McpControl, ...] = (
    McpControl("mcp_agent", "mcp_control_agent", _expect()),
    McpControl("mcp_gullible", "mcp_gullible_agent", _expect(GULLIBLE_STYLES)),
)


def evaluate_mcp_control(spec: GateSpec, settings: GateSettings) -> dict[str, GateResult]:
    """Replay the MCP control's cassette; with the ``mcp`` extra, also serve the host live.

    The live run must give the recorded reports byte for byte, or the gate is an
    error (the cassette no longer stands for the host: record it again).
    """
    from importlib.util import find_spec

    from pytest_openmed.planner._gate import evaluate_injection, evaluate_report, load_planner
    from pytest_openmed.planner.mcp_agent import qualify_agent

    declaration = declaration_of(spec, GateDeclaration, "not an MCP control gate")
    if declaration.cassette is None or declaration.planner is None:
        raise InvalidArgument("an MCP control names its host and its cassette")
    replayed = qualify_agent(
        cassette=declaration.cassette, injection_suite=True, reference=declaration.planner
    )
    assert replayed.injection is not None
    if find_spec("mcp") is not None:
        agent = load_planner(declaration.planner)
        live = qualify_agent(agent, transport="http", injection_suite=True)
        assert live.injection is not None
        if (live.report.to_json(), live.injection.to_json()) != (
            replayed.report.to_json(),
            replayed.injection.to_json(),
        ):
            raise InputRefused(
                "the MCP control's live run differs from its recorded cassette; record it again"
            )
    verdicts = evaluate_report(replayed.report)
    verdicts.update(evaluate_injection(replayed.injection))
    return {item: verdicts[item] for item in spec.items}
