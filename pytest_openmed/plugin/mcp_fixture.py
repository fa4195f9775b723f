"""The ``qualify_mcp_agent`` fixture: qualify an MCP host inside an ordinary test.

It starts the governed MCP server for the call (loopback streamable HTTP, or
the stdio relay a host launches), hands ``run_agent`` the connection
parameters of each scenario, records the planner verdicts (and, with the
suite, one per injection style) as gate evidence, and stops the server.  Like
``qualify_planner`` it returns the outcome and leaves the expectation to the
test.  The SDK loads only on a live call, so the plugin's import stays cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_openmed.planner.cassette import WireQualification


class McpAgentQualifier:
    """What ``qualify_mcp_agent`` returns: call it with ``run_agent`` and the run's options."""

    def __init__(self, item: pytest.Item) -> None:
        self._item = item
        self._calls = 0

    def __call__(
        self,
        run_agent: Any = None,
        *,
        transport: str = "http",
        injection_suite: bool = False,
        time_limit: float | None = None,
        cassette: Path | None = None,
        record: bool = False,
        reference: str | None = None,
        model_identity: str | None = None,
    ) -> WireQualification:
        """Serve the qualification to the host ``run_agent`` runs; record the verdicts.

        ``run_agent(server_params, scenario_id)`` receives the endpoint URL
        (``http``) or ``mcp.StdioServerParameters`` (``stdio``).  With a
        ``cassette`` and no ``record`` the recorded conversations are replayed
        and ``run_agent`` is never called.  ``reference`` (the host's
        ``module:function``) and ``model_identity`` (your name for the model)
        are recorded into the cassette and compared on replay, as a gate
        file's ``planner`` and ``model``.  Refused input (a stale cassette, a
        live run without the ``mcp`` extra, …) is an error of the test.
        """
        __tracebackhide__ = True
        self._calls += 1
        held = (reference, model_identity)
        outcome = self._judge(
            run_agent, transport, injection_suite, time_limit, cassette, record, held
        )
        del run_agent, cassette, reference, model_identity, held
        if isinstance(outcome, BaseException):
            raise outcome from None
        return outcome

    def _judge(
        self,
        run_agent: Any,
        transport: str,
        injection_suite: bool,
        time_limit: float | None,
        cassette: Path | None,
        record: bool,
        held: tuple[str | None, str | None],
    ) -> WireQualification | BaseException:
        from pytest_openmed.contract import MISSING_DEPENDENCY
        from pytest_openmed.planner._gate import evaluate_injection, evaluate_report
        from pytest_openmed.planner.mcp_agent import qualify_agent
        from pytest_openmed.planner.served import DEFAULT_TIME_LIMIT
        from pytest_openmed.plugin.fixtures import call_prefix
        from pytest_openmed.plugin.items import (
            REFUSED,
            GateInputError,
            input_refused,
            missing_dependency,
            record_gate_result,
            record_refusal,
        )

        prefix = call_prefix(self._calls)
        refusal: GateInputError | None = None
        try:
            outcome = qualify_agent(
                run_agent,
                transport=transport,
                cassette=cassette,
                record=record,
                injection_suite=injection_suite,
                time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit,
                reference=held[0],
                model_identity=held[1],
            )
        except REFUSED as error:
            refusal = input_refused("planner gate", error)
        except ImportError as error:
            dependency = missing_dependency("planner", error)
            if dependency is None:
                raise
            part = prefix.rstrip(".") or None
            record_refusal(self._item, "planner", part, reason=MISSING_DEPENDENCY)
            return dependency
        if refusal is not None:
            record_refusal(self._item, "planner", prefix.rstrip(".") or None)
            return refusal
        verdicts = evaluate_report(outcome.report)
        if outcome.injection is not None:
            verdicts.update(evaluate_injection(outcome.injection))
        for part, verdict in verdicts.items():
            record_gate_result(self._item, verdict, part=prefix + part)
        return outcome

    def __repr__(self) -> str:
        return "McpAgentQualifier()"


@pytest.fixture
def qualify_mcp_agent(request: pytest.FixtureRequest) -> McpAgentQualifier:
    """Qualify an MCP host through the governed server; record its verdicts as gate evidence."""
    return McpAgentQualifier(request.node)
