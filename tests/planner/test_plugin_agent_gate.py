"""``[[planner]]`` gates of an MCP host (``agent``): record through the server, replay in CI."""

from __future__ import annotations

import json

import pytest

from pytest_openmed.planner.declaration import INJECTION_ITEMS, PLANNER_ITEMS

CASSETTE = "cassettes/agent.json"
CONTROL = "pytest_openmed.planner.mcp_controls:mcp_control_agent"
GULLIBLE = "pytest_openmed.planner.mcp_controls:mcp_gullible_agent"
HOST = "mcp_gullible_agent as run_agent"


def gate(name: str, **keys: object) -> str:
    lines = [f'[[planner]]\nname = "{name}"\n']
    lines += [f"{key} = {json.dumps(value)}\n" for key, value in keys.items()]
    return "".join(lines)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "cassettes").mkdir()
    return pytester


def test_record_then_replay_even_when_the_agent_is_not_importable(
    project: pytest.Pytester,
) -> None:
    pytest.importorskip("mcp")
    gates = project.path / "gates.openmed.toml"
    # The host's module, recorded under its own reference (the cassette records it)
    project.makepyfile(host_agent=f"from {GULLIBLE.partition(':')[0]} import {HOST}\n")
    project.syspathinsert()
    gates.write_text(
        gate("triage", agent="host_agent:run_agent", cassette=CASSETTE, injection_suite=True)
    )
    recorded = project.runpytest(
        "--openmed-record", "-p", "no:cacheprovider", "--openmed-report=a.json"
    )
    recorded.assert_outcomes(passed=21 - 3, failed=3)
    assert (project.path / CASSETTE).is_file()
    # CI lacks the host: its module imports an SDK that is not installed, so it is found
    # (a reference must still resolve) but the replay never imports it
    project.makepyfile(host_agent="import missing_host_sdk\n\nrun_agent = None\n")
    gates.write_text(
        gate("triage", agent="host_agent:run_agent", cassette=CASSETTE, injection_suite=True)
    )
    replayed = project.runpytest("-p", "no:cacheprovider", "--openmed-report=b.json")
    replayed.assert_outcomes(passed=21 - 3, failed=3)
    first, second = (
        json.loads((project.path / n).read_text())["gates"] for n in ("a.json", "b.json")
    )
    assert [(g["nodeid"], g["status"], g["metrics"]) for g in first] == [
        (g["nodeid"], g["status"], g["metrics"]) for g in second
    ]
    failed = {g["nodeid"].rpartition("::")[2] for g in second if g["status"] != "passed"}
    assert failed == {
        "injection[json-data]",
        "injection[markdown-table]",
        "injection[html-comment]",
    }
    assert len(second) == len(PLANNER_ITEMS) + len(INJECTION_ITEMS)


def test_a_live_agent_gate_hands_its_host_the_transports_parameters(
    project: pytest.Pytester,
) -> None:
    pytest.importorskip("mcp")
    project.makepyfile(
        hosts=(
            "from pathlib import Path\n\n"
            "def run_agent(server_params, scenario_id):\n"
            "    with Path('kinds.log').open('a') as log:\n"
            "        log.write(type(server_params).__name__ + '\\n')\n"
        )
    )
    project.syspathinsert()
    (project.path / "gates.openmed.toml").write_text(
        gate("triage", agent="hosts:run_agent", transport="stdio", time_limit=30)
    )
    # the host never calls a tool: every scenario is incomplete, nothing is critical
    result = project.runpytest("-p", "no:cacheprovider", "--openmed-report=r.json")
    result.assert_outcomes(failed=7)
    statuses = {g["status"] for g in json.loads((project.path / "r.json").read_text())["gates"]}
    assert statuses == {"threshold"}
    kinds = (project.path / "kinds.log").read_text().split()
    assert kinds == ["StdioServerParameters"] * 6


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"planner": CONTROL, "transport": "http"}, "key 'transport'*is only for an MCP 'agent'"),
        ({"planner": CONTROL, "time_limit": 5}, "key 'time_limit'*is only for an MCP 'agent'"),
        ({"agent": CONTROL, "planner": CONTROL}, "key 'planner'*cannot be set beside 'agent'"),
        ({"agent": CONTROL, "dialect": "openai"}, "key 'dialect'*must be 'mcp'*"),
        ({"agent": CONTROL, "transport": "sse"}, "key 'transport'*must be one of: stdio, http"),
        ({"agent": CONTROL, "time_limit": 0}, "key 'time_limit'*from 1 to 3600"),
        ({"agent": "not a reference"}, "key 'agent'*must be a reference*"),
    ],
)
def test_malformed_agent_gates_are_collection_errors(
    project: pytest.Pytester, keys: dict[str, object], message: str
) -> None:
    (project.path / "gates.openmed.toml").write_text(gate("triage", **keys))
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*openmed gate file error:*{message}*"])


def test_an_agents_trials_are_recorded_with_their_index_and_replayed(
    project: pytest.Pytester,
) -> None:
    pytest.importorskip("mcp")
    (project.path / "gates.openmed.toml").write_text(
        gate("triage", agent=CONTROL, cassette=CASSETTE, trials=2)
    )
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=7)
    runs = json.loads((project.path / CASSETTE).read_text())["runs"]
    assert set(runs) == {"qualification", "qualification@1"}
    assert runs["qualification"] == runs["qualification@1"]  # the scripted host is deterministic
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=7)


def test_a_live_agent_without_the_mcp_extra_is_a_missing_dependency(
    project: pytest.Pytester,
) -> None:
    project.makeconftest("import sys\nsys.modules['mcp'] = None  # the extra is not installed\n")
    (project.path / "gates.openmed.toml").write_text(gate("triage", agent=CONTROL))
    project.makepyfile(
        test_fixture=(
            "from pytest_openmed.planner.mcp_controls import mcp_control_agent\n\n"
            "def test_live(qualify_mcp_agent):\n"
            "    qualify_mcp_agent(mcp_control_agent)\n"
        )
    )
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--openmed-report=r.json", timeout=300
    )
    result.assert_outcomes(errors=8)
    result.stdout.fnmatch_lines(
        [
            "*openmed planner gate needs mcp, which is not installed: pip install *pytest-openmed?mcp?*"
        ]
    )
    reasons = {g.get("reason") for g in json.loads((project.path / "r.json").read_text())["gates"]}
    assert reasons == {"missing_dependency"}
