"""``openmed_require``: a gate that must run but is never collected fails the run (exit 4).

Without it, a misnamed gate file (``gates.toml``) or one outside ``testpaths``
is simply not collected, and the run exits 0 beside the other tests.
"""

from __future__ import annotations

import pytest

from ._helpers import (
    NOTES_GATE,
    WORKERS,
    misnamed_project,
    ordinary_test,
    project_outside_testpaths,
    write_claims_project,
)


@pytest.fixture
def misnamed(pytester: pytest.Pytester) -> pytest.Pytester:
    """A claims gate in ``gates.toml``: not a gate file, so nothing is collected from it."""
    misnamed_project(pytester.path)
    return pytester


def _usage_error(result: pytest.RunResult) -> str:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "OPENMED-GATE-MISSING" in output
    assert "INTERNALERROR" not in output and "Traceback" not in output
    return output


def test_without_the_setting_a_misnamed_gate_file_is_not_a_failure(
    misnamed: pytest.Pytester,
) -> None:
    """The harm the setting exists for: the gate vanished and the run is green."""
    result = misnamed.runpytest("-p", "no:randomly", "-W", "ignore::pytest.PytestWarning")
    result.assert_outcomes(passed=1)


@WORKERS
def test_a_required_count_not_reached_is_a_usage_error(
    misnamed: pytest.Pytester, workers: list[str]
) -> None:
    misnamed.makeini("[pytest]\nopenmed_require = 1\n")
    output = _usage_error(misnamed.runpytest_subprocess(*workers))
    assert "0 gates collected, fewer than the 1 required by openmed_require" in output


@WORKERS
def test_a_required_gate_outside_testpaths_is_a_usage_error(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    project_outside_testpaths(pytester.path)
    pytester.makeini("[pytest]\ntestpaths = tests\nopenmed_require =\n    claims(notes)\n")
    output = _usage_error(pytester.runpytest_subprocess(*workers))
    assert "required gate #1 of openmed_require was not collected" in output
    assert "notes" not in output


def test_collected_gates_satisfy_counts_and_names(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, NOTES_GATE)
    pytester.makeini("[pytest]\nopenmed_require =\n    1\n    claims(notes)\n")
    pytester.runpytest().assert_outcomes(passed=1)
    full = "gates.openmed.toml::claims(notes)"
    pytester.runpytest(f"--openmed-require={full}").assert_outcomes(passed=1)
    result = pytester.runpytest("--openmed-require=2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_a_deliberate_deselection_is_not_refused(pytester: pytest.Pytester) -> None:
    """``-k`` or ``--openmed-skip`` narrows a run on purpose; the report says it was partial."""
    write_claims_project(pytester.path, NOTES_GATE)
    ordinary_test(pytester.path)
    result = pytester.runpytest("--openmed-require=claims(notes)", "--openmed-skip")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("value", ["0", "10001", " ", "a\tb"])
def test_a_bad_requirement_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest(f"--openmed-require={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*a required gate must be a whole number from 1 to 10000*"])


def test_a_bad_ini_requirement_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nopenmed_require = 0\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini option openmed_require: a required gate must be*"])
