"""A stale cassette through the plugin says why: the suite switched on, unused recorded runs."""

from __future__ import annotations

import json

import pytest

WORKERS = pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
CASSETTE = "cassettes/triage.json"
MODELS = "from pytest_openmed.planner.wire_controls import openai_control_model as model\n"


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


@WORKERS
def test_switching_the_suite_on_after_recording_names_that_cause_on_every_item(
    project: pytest.Pytester, workers: list[str]
) -> None:
    write(project, gate())
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    write(project, gate(injection_suite=True, trials=2))
    result = project.runpytest(*workers, "-rA")
    result.assert_outcomes(errors=21)
    cause = "InjectionSuiteNotRecorded: stale cassette: injection_suite is on but the cassette"
    assert sum(cause in line for line in result.stdout.lines) >= 21  # each item's error


def test_recorded_runs_the_gate_does_not_ask_for_are_not_read(project: pytest.Pytester) -> None:
    write(project, gate(injection_suite=True, trials=2))
    project.runpytest("--openmed-record").assert_outcomes(passed=21)
    write(project, gate())  # one trial, no suite: the other runs stay unread
    project.runpytest().assert_outcomes(passed=7)


def test_an_unused_exchange_within_a_replayed_run_is_stale(project: pytest.Pytester) -> None:
    write(project, gate())
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    path = project.path / CASSETTE
    document = json.loads(path.read_text())
    exchanges = document["runs"]["qualification"]
    exchanges.append(dict(exchanges[-1]))
    path.write_text(json.dumps(document))
    result = project.runpytest()
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: a request differs from the recorded one*"])
