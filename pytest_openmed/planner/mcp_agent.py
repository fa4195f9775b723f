"""Qualify an MCP agent: live through the governed server, recording, or from a cassette.

PYTEST_DONT_REWRITE

The one entry point shared by the CLI (``openmed-planner serve``), the gate
and the fixture.  Replaying needs no MCP SDK: the conversations are ``mcp``
cassettes (:mod:`pytest_openmed.planner.cassette`); only a live run imports
:mod:`pytest_openmed.planner.mcp_server`.
"""

from __future__ import annotations

from pathlib import Path

from pytest_openmed.errors import InputRefused
from pytest_openmed.planner.cassette import WireQualification, qualify_wire
from pytest_openmed.planner.served import (
    DEFAULT_TIME_LIMIT,
    TRANSPORTS,
    McpUnavailable,
    RunAgent,
    check_time_limit,
)

__all__ = ["qualify_agent"]


def qualify_agent(
    run_agent: RunAgent | None = None,
    *,
    transport: str = "http",
    cassette: Path | None = None,
    record: bool = False,
    injection_suite: bool = False,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> WireQualification:
    """Qualify an MCP host live through the governed server, recording, or from a cassette.

    Returns a :class:`~pytest_openmed.planner.cassette.WireQualification`.
    Replaying (``cassette`` without ``record``) needs no MCP SDK and never
    calls ``run_agent``; a live run needs the ``mcp`` extra.
    """
    if transport not in TRANSPORTS:
        raise InputRefused("transport must be one of: " + ", ".join(TRANSPORTS))
    check_time_limit(time_limit)
    if cassette is not None and not record:
        return qualify_wire("mcp", cassette=cassette, injection_suite=injection_suite)
    if run_agent is None:
        raise InputRefused("a live MCP qualification needs run_agent")
    try:
        from pytest_openmed.planner.mcp_server import governed_server
    except ImportError:
        raise McpUnavailable() from None

    with governed_server(run_agent, transport=transport, time_limit=time_limit) as agent:
        return qualify_wire(
            "mcp",
            transport=agent,
            cassette=cassette,
            record=record,
            injection_suite=injection_suite,
        )
