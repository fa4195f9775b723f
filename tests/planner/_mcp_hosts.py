"""Scripted MCP hosts for the served-qualification tests, written with the SDK's own client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pytest_openmed.planner.mcp_controls import connect

Script = Callable[[Any, str], Awaitable[None]]


def host(script: Script) -> Callable[[Any, str], None]:
    """A ``run_agent`` hook that connects, then runs ``script(session, scenario_id)``."""

    def run_agent(server_params: Any, scenario_id: str) -> None:
        import anyio

        async def main() -> None:
            async with connect(server_params) as session:
                await script(session, scenario_id)

        anyio.run(main)

    return run_agent


def answer(result: Any) -> str:
    """The text of a ``tools/call`` answer."""
    text: str = result.content[0].text
    return text
