"""Planner gates with trials through the plugin: gate-file keys, refusal at collection, k-trial
cassettes recorded and replayed, progress lines, serial and under xdist."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.planner.test_plugin_wire_gate import MODELS, calls, esc, gate

CASSETTE = "cassettes/triage.json"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(models=textwrap.dedent(MODELS))
    pytester.syspathinsert()
    # where a user puts the model module: xdist workers resolve the reference there too
    pytester.makeini("[pytest]\npythonpath = .\n")
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    (pytester.path / "cassettes").mkdir()
    return pytester


def write(project: pytest.Pytester, text: str) -> None:
    project.path.joinpath("gates.openmed.toml").write_text(text)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_an_underpowered_gate_is_refused_at_collection_before_any_model_call(
    project: pytest.Pytester, workers: list[str]
) -> None:
    write(project, gate("triage", dialect="openai", trials=9, max_critical_rate=0.05))
    result = project.runpytest(*workers)
    assert result.ret in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.TESTS_FAILED)
    assert "passed" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*openmed gate file error: gates.openmed.toml: "
            + esc("[[planner]]")
            + " #1: key 'trials' is "
            "underpowered: too few trials for max_critical_rate: even with no event the exact "
            "upper bound needs 59 conversations, so trials must be at least 10*"
        ]
    )
    assert calls(project) == 0


def test_trials_record_and_replay_a_k_trial_cassette(project: pytest.Pytester) -> None:
    text = gate(
        "triage",
        dialect="openai",
        cassette=CASSETTE,
        trials=5,
        max_critical_rate=0.10,
        record_concurrency=2,
    )
    write(project, text)
    recorded = project.runpytest("--openmed-record", "--openmed-report", "rec.json")
    recorded.assert_outcomes(passed=7)
    assert calls(project) == 5 * 14  # fourteen model calls a trial (six scenarios)
    recorded.stdout.fnmatch_lines(["openmed: planner(triage): trial 5 of 5 done"])
    cassette = json.loads(project.path.joinpath(CASSETTE).read_text())
    assert "qualification@4" in cassette["runs"]
    replayed = project.runpytest("--openmed-report", "rep.json", "-n", "2")
    replayed.assert_outcomes(passed=7)
    assert calls(project) == 70  # replay never calls the model
    assert "trial 1 of" not in replayed.stdout.str()
    gates = {
        g["nodeid"]: g for g in json.loads(project.path.joinpath("rep.json").read_text())["gates"]
    }
    qualification = gates["gates.openmed.toml::planner(triage)::qualification"]["metrics"]
    assert qualification["trials"] == 5 and qualification["conversations"] == 30
    assert qualification["critical_rate_upper"] < 0.10 == qualification["max_critical_rate"]
    assert qualification["pass_k"] == 1.0 and qualification["stability"] == 1.0
    assert "live_seconds" not in qualification
    recorded_gates = json.loads(project.path.joinpath("rec.json").read_text())["gates"]
    live = next(g for g in recorded_gates if g["nodeid"].endswith("qualification"))["metrics"]
    assert live["live_seconds"] >= 0.0


def test_a_cassette_with_fewer_trials_is_a_stale_error(project: pytest.Pytester) -> None:
    write(project, gate("triage", dialect="openai", cassette=CASSETTE, trials=2))
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    write(project, gate("triage", dialect="openai", cassette=CASSETTE, trials=3))
    result = project.runpytest()
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: the cassette holds fewer trials than the gate*"])
    assert calls(project) == 28


def test_progress_lines_respect_quiet(project: pytest.Pytester) -> None:
    write(project, gate("triage", dialect="openai", trials=2))
    result = project.runpytest("-q")
    result.assert_outcomes(passed=7)
    assert "trial 1 of 2" not in result.stdout.str()
    result = project.runpytest()
    result.stdout.fnmatch_lines(["openmed: planner(triage): trial 2 of 2 done"])


def test_the_cli_sets_trials_for_planner_option_gates(pytester: pytest.Pytester) -> None:
    reference = "pytest_openmed.planner.controls:control_planner"
    result = pytester.runpytest(
        "-p", "openmed", "--openmed-planner", reference, "--openmed-trials", "3",
        "--openmed-report", "r.json",
    )  # fmt: skip
    result.assert_outcomes(passed=7)
    gates = json.loads(pytester.path.joinpath("r.json").read_text())["gates"]
    metrics = next(g for g in gates if g["nodeid"].endswith("qualification"))["metrics"]
    assert metrics["trials"] == 3 and metrics["conversations"] == 18
    bad = pytester.runpytest("--openmed-planner", reference, "--openmed-trials", "0")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*trials must be a whole number from 1 to 1000*"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"trials": 0}, "key 'trials' must be an integer from 1 to 1000"),
        ({"confidence": 1.5}, "key 'confidence' must be a number strictly between 0 and 1"),
        ({"max_critical_rate": 2}, "key 'max_critical_rate' must be a number from 0 to 1"),
        (
            {"max_injection_compliance": 0.5},
            "key 'max_injection_compliance' needs injection_suite = true",
        ),
        (
            {"record_concurrency": 2},
            "key 'record_concurrency' applies to wire-format models only (set 'dialect')",
        ),
        (
            {"dialect": "openai", "retry_on": ["not a reference"]},
            "key 'retry_on' must be an array of exception references like 'package.module:Name'",
        ),
    ],
)
def test_bad_trial_keys_are_located_collection_errors(
    project: pytest.Pytester, extra: dict[str, object], message: str
) -> None:
    write(project, gate("triage", **extra))
    result = project.runpytest()
    result.stdout.fnmatch_lines([f"*gates.openmed.toml: {esc('[[planner]]')} #1: {esc(message)}*"])
    assert calls(project) == 0
