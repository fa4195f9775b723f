"""After ``--openmed-record`` the terminal says, per gate, what was recorded: counts, never paths."""

from __future__ import annotations

import json

import pytest

CANARY = "QQRECORDSUMMARYCANARY"
CASSETTE = f"cassettes/{CANARY}.json"
MODELS = "from pytest_openmed.planner.wire_controls import openai_control_model as model\n"
GATE = "gates.openmed.toml::planner(triage)"


def gate(**keys: object) -> str:
    table = {"planner": "models:model", "dialect": "openai", "cassette": CASSETTE, **keys}
    return '[[planner]]\nname = "triage"\n' + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in table.items()
    )


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(models=MODELS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    (pytester.path / "cassettes").mkdir()
    return pytester


def write(project: pytest.Pytester, table: str) -> None:
    (project.path / "gates.openmed.toml").write_text(table, encoding="utf-8")


def counts(project: pytest.Pytester) -> tuple[int, int]:
    runs = json.loads((project.path / CASSETTE).read_text())["runs"]
    return len(runs), sum(len(exchanges) for exchanges in runs.values())


def test_a_recording_says_how_many_trials_runs_and_exchanges_it_wrote(
    project: pytest.Pytester,
) -> None:
    write(project, gate(injection_suite=True, trials=2))
    result = project.runpytest("--openmed-record", "-q")
    result.assert_outcomes(passed=21)
    runs, exchanges = counts(project)
    assert runs == 2 * 15
    result.stdout.fnmatch_lines(
        [f"RECORDED {GATE}: cassette recorded: 2 trials, {runs} runs, {exchanges} exchanges"]
    )
    assert CANARY not in result.stdout.str() + result.stderr.str()


def test_a_resumed_recording_says_how_many_trials_it_kept(project: pytest.Pytester) -> None:
    write(project, gate(trials=2))
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    write(project, gate(trials=3))
    result = project.runpytest("--openmed-record")
    result.assert_outcomes(passed=7)
    runs, exchanges = counts(project)
    assert runs == 3
    result.stdout.fnmatch_lines(
        [f"RECORDED {GATE}: cassette resumed: 2 trials kept, 1 recorded; 3 runs, {exchanges}*"]
    )


def test_a_replay_and_a_live_run_say_nothing_was_recorded(project: pytest.Pytester) -> None:
    write(project, gate())
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    replayed = project.runpytest()
    replayed.assert_outcomes(passed=7)
    assert "RECORDED" not in replayed.stdout.str()
    write(project, '[[planner]]\nname = "live"\nplanner = "models:model"\ndialect = "openai"\n')
    live = project.runpytest("--openmed-record")
    live.assert_outcomes(passed=7)
    assert "RECORDED" not in live.stdout.str()
