"""The headline speaks of the gates, says separately how pytest ended, and carries the caveats."""

from __future__ import annotations

import pytest

from tests.plugin._helpers import write_claims_project

PASSING_GATE = (
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\nmax_unsupported_rate = 0.5\n"
)


def headline(html: str) -> str:
    return html.partition("<header>")[2].partition('<p class="nondiag">')[0]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(pytester.path, PASSING_GATE)
    pytester.makepyfile(test_unit="def test_unrelated():\n    assert False\n")
    return pytester


def test_a_failing_unit_test_does_not_fail_a_passing_gate(project: pytest.Pytester) -> None:
    project.runpytest("--openmed-html", "r.html").assert_outcomes(passed=1, failed=1)
    top = headline((project.path / "r.html").read_text())
    assert "✓ GATES PASSED" in top and "GATES FAILED" not in top
    assert "pytest exit status 1 (some tests failed)" in top


def test_a_partial_run_says_so_in_the_headline(project: pytest.Pytester) -> None:
    project.runpytest("--openmed-html", "r.html", "-k", "notes").assert_outcomes(passed=1)
    top = headline((project.path / "r.html").read_text())
    assert "✓ GATES PASSED<" not in top
    assert "GATES PASSED IN A PARTIAL RUN" in top
    assert "Partial run" in top and "-k" in top
    assert "pytest exit status 0" in top


def test_a_failing_gate_is_the_headline_whatever_pytest_says(project: pytest.Pytester) -> None:
    (project.path / "gates.openmed.toml").write_text(PASSING_GATE.replace("0.5", "0.01"))
    project.runpytest("--openmed-html", "r.html").assert_outcomes(failed=2)
    top = headline((project.path / "r.html").read_text())
    assert "✗ GATES FAILED" in top and "1 verdict failing" in top
