"""Qualify an MCP agent: live through the governed server, recording, or from a cassette.

The one entry point shared by the CLI (``openmed-planner serve``), the gate
and the fixture.  Replaying needs no MCP SDK: the conversations are ``mcp``
cassettes (:mod:`pytest_openmed.planner.cassette`), trials included (trial
``i`` is run ``<run>@<i>``); only a live run imports
:mod:`pytest_openmed.planner.mcp_server`.  An agent's trials run one after
another: one server serves one scenario at a time.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pytest_openmed.errors import InputRefused
from pytest_openmed.planner.cassette import (
    RecordingPolicy,
    WireQualification,
    WireTrials,
    qualify_wire_trials,
)
from pytest_openmed.planner.served import (
    DEFAULT_TIME_LIMIT,
    TRANSPORTS,
    RunAgent,
    check_time_limit,
)

__all__ = ["qualify_agent", "qualify_agent_trials"]


def qualify_agent(
    run_agent: RunAgent | None = None,
    *,
    transport: str = "http",
    cassette: Path | None = None,
    record: bool = False,
    injection_suite: bool = False,
    time_limit: float = DEFAULT_TIME_LIMIT,
    reference: str | None = None,
    model_identity: str | None = None,
) -> WireQualification:
    """Qualify an MCP host live through the governed server, recording, or from a cassette.

    Replaying (``cassette`` without ``record``) needs no MCP SDK and never
    calls ``run_agent``; a live run needs the ``mcp`` extra (without it: the
    ``ImportError`` of the missing module).  ``reference`` and
    ``model_identity`` say which host the cassette holds (see
    :func:`~pytest_openmed.planner.cassette.qualify_wire_trials`).  One trial;
    :func:`qualify_agent_trials` runs k.
    """
    return qualify_agent_trials(
        run_agent,
        transport=transport,
        cassette=cassette,
        record=record,
        injection_suite=injection_suite,
        time_limit=time_limit,
        reference=reference,
        model_identity=model_identity,
    ).trials[0]


def qualify_agent_trials(
    run_agent: RunAgent | None = None,
    *,
    transport: str = "http",
    cassette: Path | None = None,
    record: bool = False,
    injection_suite: bool = False,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    trials: int = 1,
    policy: RecordingPolicy | None = None,
    reference: str | None = None,
    model_identity: str | None = None,
) -> WireTrials:
    """``trials`` independent qualifications of an MCP host (see :func:`qualify_wire_trials`).

    ``time_limit`` ``None`` is the default limit.  The policy's concurrency is
    one: the trials of an agent run one after another.
    """
    if transport not in TRANSPORTS:
        raise InputRefused("transport must be one of: " + ", ".join(TRANSPORTS))
    limit = check_time_limit(DEFAULT_TIME_LIMIT if time_limit is None else time_limit)
    policy = replace(policy or RecordingPolicy(), concurrency=1)
    if cassette is not None and not record:
        return qualify_wire_trials(
            "mcp",
            cassette=cassette,
            injection_suite=injection_suite,
            trials=trials,
            reference=reference,
            model_identity=model_identity,
        )
    if run_agent is None:
        raise InputRefused("a live MCP qualification needs run_agent")
    # an ImportError naming a module of the ``mcp`` extra when it is not installed
    from pytest_openmed.planner.mcp_server import governed_server

    with governed_server(run_agent, transport=transport, time_limit=limit) as agent:
        return qualify_wire_trials(
            "mcp",
            transport=agent,
            cassette=cassette,
            record=record,
            injection_suite=injection_suite,
            trials=trials,
            policy=policy,
            reference=reference,
            model_identity=model_identity,
        )
