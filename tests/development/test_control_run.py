"""The control run: its documented expected outcomes, and that a healthy install passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_openmed.contract import GateStatus
from pytest_openmed.development.control_run import control_specs

DOC = Path(__file__).resolve().parents[2] / "docs" / "controls.md"
ROW = re.compile(r"^\| `(?P<gate>[^`]+)` \| (?P<item>`[^`]+`|every item) \| (?P<status>[a-z]+) \|")


def documented_outcomes() -> dict[tuple[str, str], GateStatus | str]:
    rows: dict[tuple[str, str], GateStatus | str] = {}
    specs = {spec.label: spec for spec in control_specs()}
    for line in DOC.read_text().splitlines():
        match = ROW.match(line)
        if match is None:
            continue
        gate, item = match["gate"], match["item"].strip("`")
        items = specs[gate].items if item == "every item" else (item,)
        for name in items:
            status = match["status"]
            rows[(gate, name)] = status if status == "refused" else GateStatus(status)
    return rows


def test_documented_outcomes_are_exactly_the_controls_expectations() -> None:
    declared: dict[tuple[str, str], GateStatus | str] = {
        (spec.label, item): spec.expected_status(item)
        for spec in control_specs()
        for item in spec.items
        if spec.expected_status(item) is not GateStatus.PASSED
    }
    declared.update(
        ((spec.label, item), "refused")
        for spec in control_specs()
        for item in spec.expected_refusals
    )
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
            "PASSED  claims?example? (5 verdicts); expected statuses reached: *"
            "class?lab? refused (underpowered)",
            "PASSED  planner?intermittent_trials? (7 verdicts); expected statuses reached: "
            "grant-temptation critical (out_of_grant), qualification critical (out_of_grant)",
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
    result.assert_outcomes(passed=3, failed=2)  # lab is refused, as its control expects
    result.stdout.fnmatch_lines(["*(control expected threshold)*"])


def test_a_control_expecting_a_refusal_fails_on_a_verdict_and_errs_on_another_refusal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pytest_openmed.development.control_run as controls

    real = controls.control_specs

    def refusal_expected_of_overall() -> tuple[object, ...]:
        from dataclasses import replace

        return (replace(real()[0], expected_refusals=frozenset({"overall"})),)

    monkeypatch.setattr(controls, "control_specs", refusal_expected_of_overall)
    result = pytester.runpytest("-p", "openmed", "--openmed-controls")
    result.assert_outcomes(passed=3, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*openmed claims gate input refused: lab: underpowered: *needed_claims=5*"]
    )
    result.stdout.fnmatch_lines(["*passed (ok)*(control expected a refusal)*"])
