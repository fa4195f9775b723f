"""A gate that will never run is warned about: misnamed gate files, gate files outside testpaths."""

from __future__ import annotations

import pytest

from ._helpers import (
    NOTES_GATE,
    WORKERS,
    esc,
    misnamed_project,
    ordinary_test,
    project_outside_testpaths,
    write_claims_project,
)

MISNAMED = esc("*openmed: gates.toml holds [[claims]], *but is not a gate file*GATE-FILE-NAME)")
UNCOLLECTED = "*openmed: gate file gates.openmed.toml is outside the collected paths*"


@WORKERS
@pytest.mark.parametrize("name", ["gates.toml", "openmed.toml"])
def test_a_toml_file_of_gate_tables_that_is_not_a_gate_file_is_warned_about(
    pytester: pytest.Pytester, workers: list[str], name: str
) -> None:
    misnamed_project(pytester.path, name)
    result = pytester.runpytest_subprocess(*workers)
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines([f"{name}:1", MISNAMED.replace("gates.toml", name)])


@WORKERS
def test_a_gate_file_outside_testpaths_is_warned_about(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    project_outside_testpaths(pytester.path)
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    result = pytester.runpytest_subprocess(*workers)
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines([UNCOLLECTED])


def test_collected_gate_files_and_other_toml_files_are_quiet(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, NOTES_GATE)
    (pytester.path / "pyproject.toml").write_text('[tool.x]\nclaims = "[[claims]]"\n')
    hidden = pytester.mkdir(".venv")
    (hidden / "gates.toml").write_text(NOTES_GATE)
    result = pytester.runpytest("-W", "error::pytest.PytestConfigWarning")
    result.assert_outcomes(passed=1)


def test_a_run_given_explicit_paths_does_not_warn_about_gate_files_it_left_out(
    pytester: pytest.Pytester,
) -> None:
    write_claims_project(pytester.path, NOTES_GATE)
    ordinary_test(pytester.path)
    result = pytester.runpytest("test_other.py", "-W", "error::pytest.PytestConfigWarning")
    result.assert_outcomes(passed=1)


@WORKERS
def test_with_warnings_as_errors_a_stray_gate_file_is_a_usage_error(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    misnamed_project(pytester.path)
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    result = pytester.runpytest_subprocess(*workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "OPENMED-GATE-FILE-NAME" in output
    assert "INTERNALERROR" not in output and "Traceback" not in output
