"""The report says which run it was compared against, and the page shows it (no path)."""

from __future__ import annotations

import pytest

from pytest_openmed.report.history import stored_runs

from ._helpers import validate_report, write_claims_project

GATE = (
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\nmax_unsupported_rate = 0.5\n"
)


def test_compare_records_the_stored_run_and_the_page_names_it(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, GATE)
    pytester.runpytest("--openmed-history=hist", "--openmed-report=first.json")
    (stored,) = stored_runs(pytester.path / "hist")
    first = validate_report(pytester.path / "first.json")
    assert "comparison" not in first["run"]
    pytester.runpytest(
        "--openmed-history=hist",
        "--openmed-compare",
        "--openmed-report=r.json",
        "--openmed-html=r.html",
    ).assert_outcomes(passed=1)
    comparison = validate_report(pytester.path / "r.json")["run"]["comparison"]
    assert comparison == {
        "stored_run": stored.name.removesuffix(".json"),
        "started": first["run"]["timing"]["started"],
        "commit": first["run"]["environment"]["commit"],
    }
    page = (pytester.path / "r.html").read_text()
    assert f"stored run {comparison['stored_run']}" in page
    assert str(pytester.path) not in page


def test_a_baseline_file_is_named_by_its_start_never_its_path(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, GATE)
    pytester.runpytest("--openmed-report=base.json")
    base = validate_report(pytester.path / "base.json")
    pytester.runpytest(
        "--openmed-baseline=base.json", "--openmed-report=r.json", "--openmed-html=r.html"
    )
    comparison = validate_report(pytester.path / "r.json")["run"]["comparison"]
    assert comparison["stored_run"] is None
    assert comparison["started"] == base["run"]["timing"]["started"]
    page = (pytester.path / "r.html").read_text()
    assert "a baseline report (--openmed-baseline)" in page and "base.json" not in page
