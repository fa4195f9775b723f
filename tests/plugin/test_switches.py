"""--openmed-max-rate overrides a missing threshold; --openmed-only and --openmed-skip select gate items."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ._helpers import validate_report, write_claims_project

#: Sets an interval threshold but no max_unsupported_rate (a gate with none at all is refused).
NO_RATE = (
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\nmax_upper = 1.0\n"
)
OWN_RATE = NO_RATE.replace("max_upper = 1.0\n", "max_unsupported_rate = 0.5\n")
PLAIN_TEST = "def test_plain():\n    assert True\n"
OVERALL = "gates.openmed.toml::claims(notes)::overall"


def test_max_rate_applies_to_a_gate_that_sets_none_and_is_recorded(
    pytester: pytest.Pytester,
) -> None:
    write_claims_project(pytester.path, NO_RATE)  # overall rate 0.1
    pytester.runpytest().assert_outcomes(passed=1)
    result = pytester.runpytest("--openmed-max-rate=0.05", "--openmed-report=r.json")
    result.assert_outcomes(failed=1)
    report = validate_report(pytester.path / "r.json")
    assert report["overrides"] == {"max_unsupported_rate": 0.05}
    assert report["gates"][0]["metrics"]["max_unsupported_rate"] == 0.05
    pytester.makeini("[pytest]\nopenmed_max_rate = 0.05\n")
    pytester.runpytest().assert_outcomes(failed=1)


def test_max_rate_never_overrides_a_gate_s_own_threshold(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, OWN_RATE)
    pytester.runpytest("--openmed-max-rate=0.0", "--openmed-report=r.json").assert_outcomes(
        passed=1
    )
    gate = validate_report(pytester.path / "r.json")["gates"][0]
    assert gate["metrics"]["max_unsupported_rate"] == 0.5


def test_max_rate_applies_to_the_claim_scorer_fixture(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, OWN_RATE)
    pytester.makepyfile(
        test_scored="""
        import json
        from pathlib import Path

        def test_scored(claim_scorer):
            claims = json.loads(Path("claims.json").read_text())
            rows = [json.loads(line) for line in Path("evidence.jsonl").read_text().splitlines()]
            claim_scorer(claims, rows)
        """
    )
    pytester.runpytest("test_scored.py", "--openmed-max-rate=0.05").assert_outcomes(failed=1)


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "lots"])
def test_a_bad_max_rate_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest(f"--openmed-max-rate={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_only_runs_gate_items(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, OWN_RATE)
    pytester.makepyfile(test_plain=PLAIN_TEST)
    result = pytester.runpytest("--openmed-only", "--openmed-report=r.json")
    result.assert_outcomes(passed=1, deselected=1)
    assert validate_report(pytester.path / "r.json")["deselected_gates"] == []


def test_skip_deselects_gate_items_and_reports_them(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, OWN_RATE)
    pytester.makepyfile(test_plain=PLAIN_TEST)
    result = pytester.runpytest(
        "--openmed-skip", "--openmed-report=r.json", "--openmed-html=r.html"
    )
    result.assert_outcomes(passed=1, deselected=1)
    report = validate_report(pytester.path / "r.json")
    assert report["deselected_gates"] == [OVERALL]
    assert report["gates"] == []
    assert "gate items deselected" in (pytester.path / "r.html").read_text()


def test_skip_reports_deselected_gates_under_xdist(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, OWN_RATE)
    pytester.makepyfile(test_plain=PLAIN_TEST)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:benchmark",
            "-n",
            "2",
            "--openmed-skip",
            "--openmed-report=r.json",
            "-q",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert validate_report(pytester.path / "r.json")["deselected_gates"] == [OVERALL]


def test_only_and_skip_exclude_each_other(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--openmed-only", "--openmed-skip")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*exclude each other*"])
