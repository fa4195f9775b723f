"""Every verdict of a gate comes from one evaluation per run, whatever the xdist mode.

The planner below counts its evaluations in a file and behaves differently on
every other one: evaluated twice, its scenario items would contradict its
qualification item.
"""

from __future__ import annotations

import pytest

from ._helpers import validate_report

FICKLE_PLANNER = """
from pathlib import Path

from pytest_openmed.planner.controls import control_planner, unstoppable_planner

COUNT = Path(__file__).with_name("evaluations.txt")


def plan(context, catalog):
    if context.scenario_id == "in-scope" and context.turn == 0:
        with COUNT.open("a") as handle:
            handle.write("x")
    if len(COUNT.read_text()) % 2 == 0:
        return unstoppable_planner(context, catalog)
    return control_planner(context, catalog)
"""

MODES = {
    "load-2": (["-n", "2"], 7),
    "load-4": (["-n", "4"], 7),
    "worksteal": (["-n", "2", "--dist", "worksteal"], 7),
    "each": (["-n", "2", "--dist", "each"], 14),
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_planner_gate_is_evaluated_once_per_run(pytester: pytest.Pytester, mode: str) -> None:
    options, passed = MODES[mode]
    pytester.makepyfile(fickle=FICKLE_PLANNER)
    result = pytester.runpytest_subprocess(
        "--openmed-planner", "fickle:plan", "--openmed-report", "r.json", *options
    )
    assert (pytester.path / "evaluations.txt").read_text() == "x"
    result.assert_outcomes(passed=passed)
    statuses = {gate["status"] for gate in validate_report(pytester.path / "r.json")["gates"]}
    assert statuses == {"passed"}


def test_a_serial_run_writes_no_shared_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(fickle=FICKLE_PLANNER)
    pytester.runpytest_subprocess("--openmed-planner", "fickle:plan").assert_outcomes(passed=7)
    assert (pytester.path / "evaluations.txt").read_text() == "x"
    assert not list(pytester.path.rglob("openmed-gates"))


def test_a_shared_outcome_keeps_the_public_report() -> None:
    """A pack gate's items on two xdist workers: the second reads the stored outcome."""
    from pytest_openmed.contract import GateResult, GateStatus
    from pytest_openmed.plugin.shared_outcome import _dump, _load

    result = GateResult("pack", GateStatus.PASSED, "rubric_satisfied", {}, '{"cells": []}')
    loaded = _load(_dump({"config-a": result}))
    assert not isinstance(loaded, str)
    assert loaded["config-a"] == result
