"""Hosts that misbehave are judged, never crash the server, never hang the gate."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

pytest.importorskip("mcp")

from pytest_openmed.planner.mcp_agent import qualify_agent
from pytest_openmed.planner.scenarios import SCENARIO_IDS
from pytest_openmed.planner.served import SCENARIO_OVER
from pytest_openmed.planner.wire import tool_name

from ._mcp_hosts import answer, host

READ = tool_name("episode.read")
SUMMARY = {"operation": "summarize"}


def test_malformed_arguments_are_schema_invalid_and_the_next_call_is_still_served() -> None:
    answers: list[str] = []

    async def script(session: Any, scenario_id: str) -> None:
        answers.append(answer(await session.call_tool(READ, {"operation": 7})))
        answers.append(answer(await session.call_tool(READ, {**SUMMARY, "extra": "x"})))
        answers.append(answer(await session.call_tool(READ, SUMMARY)))

    report = qualify_agent(host(script)).report
    for scenario_id in SCENARIO_IDS:
        scenario = report.scenario(scenario_id)
        assert scenario is not None
        assert scenario.counts.proposals == 3
        assert scenario.counts.schema_invalid_calls == 2
    assert [json.loads(text)["decision"] for text in answers[:2]] == ["schema_invalid"] * 2
    assert not report.qualified


def test_an_unknown_tool_is_schema_invalid_and_out_of_grant() -> None:
    async def script(session: Any, scenario_id: str) -> None:
        result = await session.call_tool("episode__delete", SUMMARY)
        assert result.is_error

    report = qualify_agent(host(script)).report
    assert report.counts.schema_invalid_calls == 6
    assert report.counts.out_of_grant_proposals == 6
    assert report.counts.planner_errors == 0


def test_a_host_that_disconnects_mid_scenario_is_a_planner_error() -> None:
    async def script(session: Any, scenario_id: str) -> None:
        await session.call_tool(READ, SUMMARY)
        raise ConnectionResetError  # the host crashes and its session closes

    report = qualify_agent(host(script)).report
    assert report.counts.planner_errors == 6
    assert report.counts.proposals == 6  # the call it made was judged


def test_a_host_that_never_calls_leaves_every_scenario_incomplete() -> None:
    async def script(session: Any, scenario_id: str) -> None:
        await session.get_prompt(scenario_id)

    report = qualify_agent(host(script)).report
    assert report.counts.proposals == 0
    assert report.counts.task_completion == 0
    assert report.counts.critical_events == 0
    assert not report.qualified


def test_a_flooding_host_is_judged_on_three_turns_and_told_the_scenario_is_over() -> None:
    answers: list[str] = []

    async def script(session: Any, scenario_id: str) -> None:
        for _ in range(8):
            answers.append(answer(await session.call_tool(READ, SUMMARY)))

    report = qualify_agent(host(script)).report
    assert report.counts.proposals == 6 * 3
    assert report.counts.task_completion == 0
    # two decisions per scenario; the third turn's call is judged, but the scenario ends there
    assert answers.count(SCENARIO_OVER) == 6 * 6


def test_a_host_that_hangs_is_stopped_by_the_time_limit() -> None:
    def hanging(server_params: Any, scenario_id: str) -> None:
        time.sleep(1.0)

    started = time.monotonic()
    report = qualify_agent(hanging, time_limit=0.2).report
    assert report.counts.planner_errors == 6
    assert time.monotonic() - started < 20


def test_over_a_stdio_subprocess_every_misbehaviour_is_judged_too() -> None:
    answers: list[str] = []

    async def script(session: Any, scenario_id: str) -> None:
        answers.append(answer(await session.call_tool("episode__delete", SUMMARY)))
        answers.append(answer(await session.call_tool(READ, {"operation": 7})))
        for _ in range(3):  # one turn left, then the scenario is over
            answers.append(answer(await session.call_tool(READ, SUMMARY)))

    report = qualify_agent(host(script), transport="stdio").report
    assert report.counts.proposals == 6 * 3
    assert report.counts.schema_invalid_calls == 6 * 2
    assert report.counts.out_of_grant_proposals == 6
    assert report.counts.planner_errors == 0
    assert answers.count(SCENARIO_OVER) == 6 * 3


def test_calls_outside_the_grant_stay_expressible_and_are_judged_out_of_grant() -> None:
    async def script(session: Any, scenario_id: str) -> None:
        if scenario_id == "grant-temptation":
            await session.call_tool("episode__export", SUMMARY)
        elif scenario_id == "in-scope":
            await session.call_tool(READ, {**SUMMARY, "resource": "synthetic-episode-0002"})
        else:
            await session.call_tool(READ, SUMMARY)

    report = qualify_agent(host(script)).report
    for scenario_id in ("grant-temptation", "in-scope"):
        scenario = report.scenario(scenario_id)
        assert scenario is not None
        assert scenario.counts.out_of_grant_proposals == 1


def test_the_server_listens_on_loopback_only() -> None:
    seen: list[Any] = []

    def run_agent(server_params: Any, scenario_id: str) -> None:
        seen.append(server_params)

    qualify_agent(run_agent, transport="http")
    qualify_agent(run_agent, transport="stdio")
    urls = [p if isinstance(p, str) else p.args[-1] for p in seen]
    assert len(urls) == 12
    assert all(url.startswith("http://127.0.0.1:") for url in urls)
    assert len({url.split("/")[3] for url in urls}) == 12  # a fresh endpoint per scenario
