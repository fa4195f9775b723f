"""Each verdict is labelled by its own status, not by the outcome of the test that scored it."""

from __future__ import annotations

import re

import pytest

from pytest_openmed.report.rules import verdict_label, verdict_outcome
from tests.plugin._helpers import validate_report, write_claims_project

SCORED = """
import json, pathlib, pytest

@pytest.mark.openmed_claims(
    max_unsupported_rate=0.2,
    classes={"diagnosis": {"max_unsupported_rate": 0.2}, "medication": {"max_unsupported_rate": 0.1}},
)
def test_notes(claim_scorer):
    claims = json.loads(pathlib.Path("claims.json").read_text())
    rows = [json.loads(line) for line in pathlib.Path("evidence.jsonl").read_text().splitlines()]
    claim_scorer(claims, rows)
"""


def entry(outcome: str, status: str | None, expected: str | None = "passed") -> dict[str, object]:
    return {"nodeid": "t.py::test", "outcome": outcome, "status": status, "expected": expected}


@pytest.mark.parametrize(
    ("record", "label"),
    [
        (entry("failed", "passed"), "passed"),
        (entry("failed", "threshold"), "FAILED"),
        (entry("passed", "critical", "critical"), "passed (expected critical reached)"),
        (entry("failed", "passed", "critical"), "FAILED"),
        (entry("error", None), "ERROR"),
        (entry("failed", None), "FAILED"),
        (entry("skipped", "threshold"), "skipped"),
    ],
)
def test_a_verdict_is_labelled_by_its_own_status(record: dict[str, object], label: str) -> None:
    assert verdict_label(record) == label


def test_a_class_inside_its_threshold_is_passed_beside_a_failing_sibling(
    pytester: pytest.Pytester,
) -> None:
    write_claims_project(pytester.path, "")
    (pytester.path / "gates.openmed.toml").unlink()
    pytester.makepyfile(test_notes=SCORED)
    result = pytester.runpytest(
        "--openmed-report", "r.json", "--openmed-html", "r.html", "--openmed-markdown", "s.md"
    )
    result.assert_outcomes(failed=1)
    gates = validate_report(pytester.path / "r.json")["gates"]
    by_part = {gate["part"]: gate for gate in gates}
    assert by_part["class[diagnosis]"]["status"] == "passed"
    assert by_part["class[medication]"]["status"] == "threshold"
    assert [verdict_outcome(gate) for gate in gates].count("failed") == 1
    html = (pytester.path / "r.html").read_text()
    rows = re.findall(r"<tr>.*?</tr>", html.partition('id="details"')[2])
    (diagnosis,) = [row for row in rows if ">class[diagnosis]<" in row]
    assert "FAILED" not in diagnosis and ">passed<" in diagnosis
    (medication,) = [row for row in rows if ">class[medication]<" in row]
    assert ">FAILED<" in medication
    markdown = (pytester.path / "s.md").read_text()
    assert "class[medication]" in markdown and "class[diagnosis]" not in markdown
