"""A served conversation is an ``mcp`` cassette: replayed byte-identically, without the SDK."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from pytest_openmed.planner.cassette import StaleCassetteError, load_cassette
from pytest_openmed.planner.mcp_agent import qualify_agent
from pytest_openmed.planner.mcp_controls import mcp_control_agent, mcp_gullible_agent
from pytest_openmed.planner.wire import tool_name

from ._mcp_hosts import host


def test_recording_then_replaying_gives_the_same_report_byte_for_byte(tmp_path: Path) -> None:
    cassette = tmp_path / "agent.json"
    live = qualify_agent(mcp_gullible_agent, cassette=cassette, record=True, injection_suite=True)
    replayed = qualify_agent(cassette=cassette, injection_suite=True)
    assert replayed.report.to_json() == live.report.to_json()
    assert live.injection is not None and replayed.injection is not None
    assert replayed.injection.to_json() == live.injection.to_json()
    recorded = load_cassette(cassette)
    assert recorded.dialect == "mcp"
    assert len(recorded.runs) == 15  # the qualification and fourteen styles


def test_a_raising_host_is_recorded_as_raised_and_replays_as_a_planner_error(
    tmp_path: Path,
) -> None:
    async def script(session: Any, scenario_id: str) -> None:
        await session.call_tool(tool_name("episode.read"), {"operation": "summarize"})
        raise ConnectionResetError

    cassette = tmp_path / "agent.json"
    live = qualify_agent(host(script), cassette=cassette, record=True)
    assert live.report.counts.planner_errors == 6
    assert qualify_agent(cassette=cassette).report.to_json() == live.report.to_json()
    raised = [e for e in load_cassette(cassette).runs["qualification"] if e.raised]
    assert len(raised) == 6


def test_a_cassette_replayed_with_the_suite_it_was_not_recorded_with_is_stale(
    tmp_path: Path,
) -> None:
    cassette = tmp_path / "agent.json"
    qualify_agent(mcp_control_agent, cassette=cassette, record=True)
    with pytest.raises(StaleCassetteError):
        qualify_agent(cassette=cassette, injection_suite=True)


def test_replay_needs_no_sdk(tmp_path: Path) -> None:
    cassette = tmp_path / "agent.json"
    live = qualify_agent(mcp_control_agent, cassette=cassette, record=True)
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path

        for name in ("mcp", "mcp_types", "uvicorn", "starlette", "anyio"):
            sys.modules[name] = None  # importing any of them now fails

        from pytest_openmed.planner.mcp_agent import qualify_agent

        print(qualify_agent(cassette=Path(sys.argv[1])).report.to_json())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(cassette)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == live.report.to_json()
