"""``qualify_mcp_agent``: an MCP host qualified inside a test, its verdicts gate evidence.

Canaries a host plants in its tool names, arguments and exception never come
back out: terminal (whatever traceback options), junit XML, the JSON report,
and live logging at DEBUG level.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")

CANARY = "zzmcpfixture8841"

HOSTS = f"""
import anyio

from pytest_openmed.planner.mcp_controls import connect

CANARY = {CANARY!r}


def leaky_host(server_params, scenario_id):
    async def main():
        async with connect(server_params) as session:
            await session.get_prompt(scenario_id)
            await session.call_tool(CANARY, {{"operation": CANARY}})
            await session.call_tool("episode__read", {{CANARY: CANARY, "resource": CANARY}})
            raise RuntimeError(CANARY)

    anyio.run(main)
"""

TESTS = """
from hosts import leaky_host
from pytest_openmed.planner.mcp_controls import mcp_control_agent


def test_compliant_host(qualify_mcp_agent):
    outcome = qualify_mcp_agent(mcp_control_agent, transport="http")
    assert outcome.report.qualified


def test_leaky_host(qualify_mcp_agent):
    outcome = qualify_mcp_agent(leaky_host, transport="http", time_limit=30)
    assert outcome.report.counts.planner_errors == 6
"""


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["-n", "2"],
        ["--showlocals", "--tb=long", "--fulltrace", "-o", "log_cli=true", "--log-level=DEBUG"],
    ],
)
def test_the_fixture_records_verdicts_and_leaks_nothing(
    pytester: pytest.Pytester, options: list[str]
) -> None:
    pytester.makepyfile(hosts=HOSTS, test_agents=TESTS)
    result = pytester.runpytest(
        "-p", "openmed", "--openmed-report=r.json", "--junitxml=j.xml", *options
    )
    result.assert_outcomes(passed=2)
    report = (pytester.path / "r.json").read_text()
    junit = (pytester.path / "j.xml").read_text()
    for text in (result.stdout.str(), result.stderr.str(), report, junit):
        assert CANARY not in text
    gates = json.loads(report)["gates"]
    compliant = [g for g in gates if g["nodeid"].endswith("test_compliant_host")]
    leaky = [g for g in gates if g["nodeid"].endswith("test_leaky_host")]
    assert len(compliant) == len(leaky) == 7
    assert {g["status"] for g in compliant} == {"passed"}
    assert {g["status"] for g in leaky} == {"critical"}
