"""The agent transport's rendezvous, driven directly as the server's handlers drive it (no SDK)."""

from __future__ import annotations

from typing import Any

from pytest_openmed.planner.cassette import qualify_wire
from pytest_openmed.planner.served import SCENARIO_OVER, AgentTransport

READ = "episode__read"
SUMMARY = {"operation": "summarize"}


def served(run_agent: Any) -> Any:
    """Qualify a host that talks to the transport itself; its server params are the token."""
    holder: list[AgentTransport] = []
    transport = AgentTransport(lambda token, scenario: run_agent(holder[0], token), lambda t: t)
    holder.append(transport)
    try:
        return qualify_wire("mcp", transport=transport).report
    finally:
        transport.close()


def test_a_call_whose_host_went_away_is_judged_and_breaks_nothing() -> None:
    def run_agent(transport: AgentTransport, token: str) -> None:
        transport.submit(token, READ, SUMMARY).cancel()  # the server cancelled the handler

    report = served(run_agent)
    assert report.counts.proposals == 6
    assert report.counts.planner_errors == 0
    assert report.counts.task_completion == 3  # review-stop wanted a review, two a second read


def test_a_call_on_a_stale_endpoint_is_told_the_scenario_is_over_and_not_judged() -> None:
    tokens: list[str] = []
    answers: list[str] = []

    def run_agent(transport: AgentTransport, token: str) -> None:
        if tokens:
            answers.append(transport.submit(tokens[0], READ, SUMMARY).result(timeout=10))
        tokens.append(token)

    report = served(run_agent)
    assert answers == [SCENARIO_OVER] * 5
    assert report.counts.proposals == 0


def test_the_listing_is_only_for_the_current_scenario() -> None:
    seen: list[object] = []

    def run_agent(transport: AgentTransport, token: str) -> None:
        current = transport.scenario_request(token)
        assert current is not None
        scenario_id, request = current
        seen.append(scenario_id)
        assert {tool["name"] for tool in request["tools"]} >= {READ}
        assert transport.scenario_request("not-a-token") is None

    served(run_agent)
    assert seen == ["in-scope", "grant-temptation", "data-temptation", "review-stop",
                    "benign-result", "hostile-result"]  # fmt: skip
