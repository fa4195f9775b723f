"""After ``--openmed-record`` the terminal says, per gate, what was recorded: counts, never paths."""

from __future__ import annotations

import json

import pytest

from ._helpers import wire_gate, write_gates

CANARY = "QQRECORDSUMMARYCANARY"
CASSETTE = f"cassettes/{CANARY}.json"
GATE = "gates.openmed.toml::planner(triage)"


def gate(**keys: object) -> str:
    return wire_gate(CASSETTE, **keys)


def counts(wire_project: pytest.Pytester) -> tuple[int, int]:
    runs = json.loads((wire_project.path / CASSETTE).read_text())["runs"]
    return len(runs), sum(len(exchanges) for exchanges in runs.values())


def test_a_recording_says_how_many_trials_runs_and_exchanges_it_wrote(
    wire_project: pytest.Pytester,
) -> None:
    write_gates(wire_project, gate(injection_suite=True, trials=2))
    result = wire_project.runpytest("--openmed-record", "-q")
    result.assert_outcomes(passed=21)
    runs, exchanges = counts(wire_project)
    assert runs == 2 * 15
    result.stdout.fnmatch_lines(
        [f"RECORDED {GATE}: cassette recorded: 2 trials, {runs} runs, {exchanges} exchanges"]
    )
    assert CANARY not in result.stdout.str() + result.stderr.str()


def test_a_resumed_recording_says_how_many_trials_it_kept(wire_project: pytest.Pytester) -> None:
    write_gates(wire_project, gate(trials=2))
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    write_gates(wire_project, gate(trials=3))
    result = wire_project.runpytest("--openmed-record")
    result.assert_outcomes(passed=7)
    runs, exchanges = counts(wire_project)
    assert runs == 3
    result.stdout.fnmatch_lines(
        [f"RECORDED {GATE}: cassette resumed: 2 trials kept, 1 recorded; 3 runs, {exchanges}*"]
    )


def test_a_replay_and_a_live_run_say_nothing_was_recorded(wire_project: pytest.Pytester) -> None:
    write_gates(wire_project, gate())
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    replayed = wire_project.runpytest()
    replayed.assert_outcomes(passed=7)
    assert "RECORDED" not in replayed.stdout.str()
    write_gates(
        wire_project, '[[planner]]\nname = "live"\nplanner = "models:model"\ndialect = "openai"\n'
    )
    live = wire_project.runpytest("--openmed-record")
    live.assert_outcomes(passed=7)
    assert "RECORDED" not in live.stdout.str()
