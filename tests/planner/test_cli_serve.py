"""``openmed-planner serve``: an MCP host through the governed server, fixed codes only."""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ._helpers import run_cli

CANARY = "zzservecli5519"
AGENT = "pytest_openmed.planner.mcp_controls:mcp_control_agent"


run = functools.partial(run_cli, canary=CANARY)


def test_record_then_replay_writes_the_same_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("mcp")
    cassette, live, replayed = (tmp_path / f"{CANARY}.json", tmp_path / "a", tmp_path / "b")
    argv = ["serve", "--agent", AGENT, "--cassette", str(cassette), "--record"]
    code, out, _ = run([*argv, "--output", str(live)], capsys)
    assert code == 0
    assert out == "openmed-planner: qualified (6/6 scenarios complete, 0 critical events)\n"
    code, out, _ = run(["serve", "--cassette", str(cassette), "--output", str(replayed)], capsys)
    assert code == 0
    assert replayed.read_bytes() == live.read_bytes()


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--agent", AGENT],  # no --output
        ["serve", "--agent", AGENT, "--record", "--output", "x"],  # --record without a cassette
        ["serve", "--output", "x"],  # neither an agent nor a cassette
        ["serve", "--agent", AGENT, "--time-limit", "0", "--output", "x"],
        ["serve", "--agent", AGENT, "--time-limit", "nan", "--output", "x"],
        ["serve", "--agent", AGENT, "--transport", CANARY, "--output", "x"],
        ["serve", "--relay", f"http://{CANARY}.example:80/mcp"],  # never beyond loopback
    ],
)
def test_meaningless_command_lines_are_E001(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("openmed-planner: E001 ")


def test_an_unloadable_agent_is_E003(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        ["serve", "--agent", f"{CANARY}.hosts:run", "--output", str(tmp_path / "r")], capsys
    )
    assert code == 2
    assert err.startswith("openmed-planner: E003 ")
    assert not (tmp_path / "r").exists()


def test_a_live_run_without_the_sdk_is_E013(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys

        sys.modules["mcp"] = None  # the extra is not installed
        from pytest_openmed.planner.cli import main

        raise SystemExit(main(sys.argv[1:]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "serve", "--agent", AGENT, "--output", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("openmed-planner: E013 ")
    assert not (tmp_path / "r").exists()


def test_a_replay_compares_the_agent_and_the_model_identity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_openmed.planner.mcp_controls import MCP_CONTROLS

    recorded = str(MCP_CONTROLS[0].cassette)  # records the control agent, no model identity
    argv = ["serve", "--cassette", recorded, "--output", str(tmp_path / "r.json")]
    assert run([*argv, "--agent", AGENT], capsys)[0] == 0
    for extra in (["--model-identity", "vendor-1"], ["--agent", f"{CANARY}_hosts:run_agent"]):
        code, _, err = run([*argv, *extra], capsys)
        assert (code, err.split(" ")[1]) == (2, "E010")
    code, _, err = run([*argv, "--model-identity", f"{CANARY}/x"], capsys)
    assert (code, err.split(" ")[1]) == (2, "E001")
