"""A stale cassette through the plugin says why: the suite switched on, unused recorded runs."""

from __future__ import annotations

import json

import pytest

from tests.plugin._helpers import WORKERS

from ._helpers import wire_gate, write_gates

CASSETTE = "cassettes/triage.json"


def gate(**keys: object) -> str:
    return wire_gate(CASSETTE, **keys)


@WORKERS
def test_switching_the_suite_on_after_recording_names_that_cause_on_every_item(
    wire_project: pytest.Pytester, workers: list[str]
) -> None:
    write_gates(wire_project, gate())
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    write_gates(wire_project, gate(injection_suite=True, trials=2))
    result = wire_project.runpytest(*workers, "-rA")
    result.assert_outcomes(errors=21)
    cause = "InjectionSuiteNotRecorded: stale cassette: injection_suite is on but the cassette"
    assert sum(cause in line for line in result.stdout.lines) >= 21  # each item's error


def test_recorded_runs_the_gate_does_not_ask_for_are_not_read(
    wire_project: pytest.Pytester,
) -> None:
    write_gates(wire_project, gate(injection_suite=True, trials=2))
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=21)
    write_gates(wire_project, gate())  # one trial, no suite: the other runs stay unread
    wire_project.runpytest().assert_outcomes(passed=7)


def test_an_unused_exchange_within_a_replayed_run_is_stale(wire_project: pytest.Pytester) -> None:
    write_gates(wire_project, gate())
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    path = wire_project.path / CASSETTE
    document = json.loads(path.read_text())
    exchanges = document["runs"]["qualification"]
    exchanges.append(dict(exchanges[-1]))
    path.write_text(json.dumps(document))
    result = wire_project.runpytest()
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: a request differs from the recorded one*"])
