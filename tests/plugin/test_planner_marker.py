"""The openmed_planner marker: qualify_planner judges k trials; too few are refused first."""

from __future__ import annotations

import json

import pytest

TESTS = """
import pytest
from pathlib import Path
from pytest_openmed.planner.controls import control_planner

def counted(context, catalog):
    with Path("calls.log").open("a") as handle:
        handle.write("x")
    return control_planner(context, catalog)

@pytest.mark.openmed_planner(trials=10, max_critical_rate=0.05)
def test_enough_trials(qualify_planner):
    assert qualify_planner(counted).qualified

@pytest.mark.openmed_planner(trials=9, max_critical_rate=0.05)
def test_too_few_trials(qualify_planner):
    qualify_planner(counted)

@pytest.mark.openmed_planner(trials=3, retries=2)
def test_unknown_argument(qualify_planner):
    qualify_planner(counted)

def test_one_trial_as_before(qualify_planner):
    assert qualify_planner(control_planner).qualified
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_the_marker_runs_trials_and_refuses_too_few(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(test_marked=TESTS)
    result = pytester.runpytest(*workers, "--openmed-report", "r.json")
    result.assert_outcomes(passed=2, errors=2)  # marker mistakes are errors of the test
    result.stdout.fnmatch_lines(
        [
            "*openmed_planner too few trials for max_critical_rate: even with no "
            "event the exact upper bound needs 59 conversations, so trials must be at least 10*"
        ]
    )
    result.stdout.fnmatch_lines(
        ["*openmed_planner: unknown argument 'retries'; it takes: trials, max_critical_rate,*"]
    )
    log = pytester.path / "calls.log"
    # Ten trials of six scenarios, each asked one to three turns; the refused tests call nothing.
    assert log.exists() and 60 <= len(log.read_text()) <= 180
    gates = json.loads((pytester.path / "r.json").read_text())["gates"]
    marked = [g for g in gates if g["nodeid"].endswith("test_enough_trials")]
    qualification = next(g for g in marked if g["part"] == "qualification")["metrics"]
    assert qualification["trials"] == 10 and qualification["conversations"] == 60
    assert qualification["critical_rate_upper"] < 0.05
    plain = [g for g in gates if g["nodeid"].endswith("test_one_trial_as_before")]
    assert "trials" not in next(g for g in plain if g["part"] == "qualification")["metrics"]
