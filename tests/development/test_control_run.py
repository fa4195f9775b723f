"""The control run: its documented expected outcomes, and that a healthy install passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_openmed.contract import GateStatus
from pytest_openmed.development.control_run import control_specs

DOC = Path(__file__).resolve().parents[2] / "docs" / "controls.md"
ROW = re.compile(r"^\| `(?P<gate>[^`]+)` \| (?P<item>`[^`]+`|every item) \| (?P<status>[a-z]+) \|")


def documented_outcomes() -> dict[tuple[str, str], GateStatus]:
    rows: dict[tuple[str, str], GateStatus] = {}
    specs = {spec.label: spec for spec in control_specs()}
    for line in DOC.read_text().splitlines():
        match = ROW.match(line)
        if match is None:
            continue
        gate, item = match["gate"], match["item"].strip("`")
        items = specs[gate].items if item == "every item" else (item,)
        for name in items:
            rows[(gate, name)] = GateStatus(match["status"])
    return rows


def test_documented_outcomes_are_exactly_the_controls_expectations() -> None:
    declared = {
        (spec.label, item): spec.expected_status(item)
        for spec in control_specs()
        for item in spec.items
        if spec.expected_status(item) is not GateStatus.PASSED
    }
    assert documented_outcomes() == declared


def test_every_control_kind_is_present() -> None:
    assert {spec.kind for spec in control_specs()} == {"claims", "planner", "pack"}


def test_a_healthy_install_passes_every_control_and_collects_nothing_else(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_would_fail():\n    assert False\n")
    result = pytester.runpytest("-p", "openmed", "--openmed-controls", "--openmed-report", "r.json")
    total = sum(len(spec.items) for spec in control_specs())
    result.assert_outcomes(passed=total)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*= openmed gates =*",
            "Development controls on synthetic data*",
            "PASSED  claims?example? (4 verdicts); expected statuses reached: *",
            f"openmed: {total} gate items: {total} passed; {total} verdicts: *. "
            "Non-diagnostic evaluation evidence.",
        ]
    )


def test_a_control_that_misses_its_expected_outcome_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pytest_openmed.development.control_run as controls

    real = controls.control_specs

    def claims_expected_everywhere() -> tuple[object, ...]:
        from dataclasses import replace

        spec = real()[0]
        return (replace(spec, expected={item: GateStatus.THRESHOLD for item in spec.items}),)

    monkeypatch.setattr(controls, "control_specs", claims_expected_everywhere)
    result = pytester.runpytest("-p", "openmed", "--openmed-controls")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*(control expected threshold)*"])
