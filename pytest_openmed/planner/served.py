"""Serve the qualification to an MCP host: each ``tools/call`` is one harness turn.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

An *agent* is an MCP host (an app, an IDE, an agent framework) with a model
inside, reaching tools only through MCP servers.  It is qualified unmodified:
for each scenario the gate calls ``run_agent(server_params, scenario_id)``,
which runs the host against the governed server
(:mod:`pytest_openmed.planner.mcp_server`) until the host is done.

The judging is the wire adapter's, in the ``mcp`` dialect: an
:class:`AgentTransport` is the :data:`~pytest_openmed.planner.wire.Transport`
of a :class:`~pytest_openmed.planner.wire.WirePlanner`.  Each turn it hands
the host what a wire model would be shown (tools, system text, task; the
decision and result of its previous call as the answer to that call) and waits
for the host's next move: a ``tools/call`` is the turn's one call, the end of
``run_agent`` is "done", and ``run_agent`` raising or outliving the time limit
is a planner error.  So the report is the one the equivalent callable planner
gets, and the conversation is an ordinary ``mcp`` cassette, replayed in CI
with :func:`~pytest_openmed.planner.cassette.qualify_wire` and no SDK.

This module imports no MCP SDK; only the live server does.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from pytest_openmed._canonical import canonical_json
from pytest_openmed.errors import InputRefused, InvalidArgument
from pytest_openmed.planner.declaration import (
    MAX_AGENT_TIME_LIMIT,
    MCP_EXTRA_MODULES,
    MCP_TRANSPORTS,
)
from pytest_openmed.planner.report import PlannerTimedOut

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "MAX_TIME_LIMIT",
    "SCENARIO_OVER",
    "TRANSPORTS",
    "AgentFailed",
    "AgentTimedOut",
    "AgentTransport",
    "RunAgent",
    "check_time_limit",
    "mcp_missing",
]

#: How an agent reaches the governed server.
TRANSPORTS = MCP_TRANSPORTS
#: Seconds one scenario may take, from ``run_agent`` being called to its last move.
DEFAULT_TIME_LIMIT = 60.0
MAX_TIME_LIMIT = float(MAX_AGENT_TIME_LIMIT)
#: The answer to a call made outside the turn the harness is waiting for (the
#: scenario's three turns are used up, or its time ran out): not judged.
SCENARIO_OVER = canonical_json({"decision": "scenario_over"})

#: ``run_agent(server_params, scenario_id)``: run the host for one scenario.
#: ``server_params`` is an ``mcp.StdioServerParameters`` (stdio) or the
#: endpoint URL ``str`` (streamable HTTP).
RunAgent = Callable[[Any, str], object]


def mcp_missing(error: ImportError) -> bool:
    """Whether ``error`` says a module of the ``mcp`` extra is not installed."""
    return (error.name or "").partition(".")[0] in MCP_EXTRA_MODULES


class AgentFailed(InputRefused):
    """``run_agent`` raised: judged as a planner error (its exception is not kept)."""


class AgentTimedOut(PlannerTimedOut):
    """The scenario outlived its time limit: judged as a planner error."""


@dataclass(frozen=True, slots=True)
class _Call:
    """One ``tools/call`` of a scenario, waiting for the harness's answer."""

    token: str
    name: str
    arguments: Any
    answer: Future[str]

    def __repr__(self) -> str:
        return "_Call(<values hidden>)"


@dataclass(frozen=True, slots=True)
class _End:
    """``run_agent`` returned (``raised`` False) or raised, for the scenario of ``token``."""

    token: str
    raised: bool


def check_time_limit(seconds: object) -> float:
    """A positive number of seconds of at most an hour."""
    if type(seconds) not in (int, float) or not 0 < seconds <= MAX_TIME_LIMIT:  # type: ignore[operator]
        raise InputRefused(
            f"time_limit must be a positive number of seconds, at most {MAX_AGENT_TIME_LIMIT}"
        )
    return float(seconds)  # type: ignore[arg-type]


class AgentTransport:
    """The wire transport whose model is an MCP host behind the governed server.

    The server side calls :meth:`scenario_request` (what to list and prompt)
    and :meth:`submit` (a ``tools/call``) from its own threads; the harness
    side calls the transport itself.  Scenarios are told apart by a random
    per-scenario token in the endpoint, so a host left over from an earlier
    scenario can never act in a later one.
    """

    def __init__(
        self,
        run_agent: RunAgent,
        connect: Callable[[str], object],
        *,
        time_limit: float = DEFAULT_TIME_LIMIT,
    ) -> None:
        if not callable(run_agent):
            raise InvalidArgument(
                "run_agent must be a callable run_agent(server_params, scenario_id)"
            )
        self._run_agent = run_agent
        self._connect = connect
        self._time_limit = check_time_limit(time_limit)
        self._lock = threading.Lock()
        self._events: queue.Queue[_Call | _End] = queue.Queue()
        self._token: str | None = None
        self._scenario = ""
        self._request: dict[str, Any] | None = None
        self._pending: _Call | None = None
        self._deadline = 0.0
        self._agents: list[threading.Thread] = []

    # --- the server side ------------------------------------------------------------

    def scenario_request(self, token: str) -> tuple[str, dict[str, Any]] | None:
        """The id and request of the scenario served at ``token``; ``None`` if not current."""
        with self._lock:
            if token != self._token or self._request is None:
                return None
            fresh: dict[str, Any] = json.loads(canonical_json(self._request))
            return self._scenario, fresh

    def submit(self, token: str, name: str, arguments: Any) -> Future[str]:
        """Hand one ``tools/call`` to the harness; the future holds its answer text."""
        answer: Future[str] = Future()
        with self._lock:
            current = token == self._token
        if not current:
            answer.set_result(SCENARIO_OVER)
        else:
            self._events.put(_Call(token, name, arguments, answer))
        return answer

    # --- the harness side -------------------------------------------------------------

    def __call__(self, scenario_id: str, turn: int, request: dict[str, Any]) -> object:
        if turn == 0:
            token = self._start(scenario_id, request)
        else:
            with self._lock:
                token, pending = self._token or "", self._pending
                self._request, self._pending = request, None
            if pending is not None:
                _answer(pending.answer, _last_result(request))
        return self._next_move(token)

    def _start(self, scenario_id: str, request: dict[str, Any]) -> str:
        self._end_scenario()
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._token, self._request, self._scenario = token, request, scenario_id
            self._deadline = time.monotonic() + self._time_limit
        params = self._connect(token)
        agent = threading.Thread(target=self._agent, args=(params, scenario_id, token), daemon=True)
        self._agents.append(agent)
        agent.start()
        return token

    def _agent(self, params: object, scenario_id: str, token: str) -> None:
        try:
            self._run_agent(params, scenario_id)
        except BaseException:  # whatever the host does is judged, never raised here
            self._events.put(_End(token, raised=True))
        else:
            self._events.put(_End(token, raised=False))

    def _next_move(self, token: str) -> object:
        while True:
            remaining = self._deadline - time.monotonic()
            try:
                event = self._events.get(timeout=max(remaining, 0.0)) if remaining > 0 else None
            except queue.Empty:
                event = None
            if event is None:
                self._end_scenario()
                raise AgentTimedOut("the scenario outlived its time limit")
            if event.token != token:
                if type(event) is _Call:
                    _answer(event.answer, SCENARIO_OVER)
                continue
            if type(event) is _End:
                self._end_scenario()
                if event.raised:
                    raise AgentFailed("run_agent raised")
                return {"calls": []}
            assert type(event) is _Call
            with self._lock:
                self._pending = event
            call: dict[str, Any] = {"name": event.name}
            if event.arguments is not None:
                call["arguments"] = event.arguments
            return {"calls": [call]}

    def _end_scenario(self) -> None:
        """No scenario is current: every waiting call is answered, later ones too."""
        with self._lock:
            pending, self._pending = self._pending, None
            self._token, self._request = None, None
        if pending is not None:
            _answer(pending.answer, SCENARIO_OVER)
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            if type(event) is _Call:
                _answer(event.answer, SCENARIO_OVER)

    def close(self, grace: float = 5.0) -> None:
        """End the last scenario and give the hosts still running a moment to finish."""
        self._end_scenario()
        deadline = time.monotonic() + grace
        for agent in self._agents:
            agent.join(max(deadline - time.monotonic(), 0.0))
        self._end_scenario()

    def __repr__(self) -> str:
        return "AgentTransport(<values hidden>)"


def _answer(answer: Future[str], text: str) -> None:
    """Answer a call, unless its host went away (the server cancelled the future)."""
    if answer.set_running_or_notify_cancel():
        answer.set_result(text)


def _last_result(request: dict[str, Any]) -> str:
    """The text of the one tool result that ends an ``mcp`` request after turn 0."""
    try:
        block = request["messages"][-1]["content"][-1]
        text = block["content"][0]["text"]
    except (KeyError, IndexError, TypeError):
        return SCENARIO_OVER
    return text if type(text) is str else SCENARIO_OVER
