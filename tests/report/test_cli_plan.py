"""``openmed-report plan``: how many claims or conversations a threshold needs."""

from __future__ import annotations

import pytest

from pytest_openmed.report.cli import EXIT_INVALID, EXIT_OK, EXIT_USAGE, main


def test_the_claims_example_needs_twenty_nine(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--threshold", "0.10"]) == EXIT_OK
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "threshold 0.1000 at confidence 0.9500 (exact one-sided Clopper-Pearson upper bound)",
        "with no event: 29 claims or conversations",
    ]


def test_trials_of_six_scenarios_and_an_expected_rate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--threshold", "0.05", "--per-trial", "6", "--expected-rate", "0.01"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "with no event: 59 claims or conversations, 10 trials of 6"
    assert out[2] == "with an observed rate of 0.0100: 90 claims or conversations, 15 trials of 6"


def test_an_expected_rate_at_the_threshold_can_never_pass(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", "--threshold", "0.05", "--expected-rate", "0.05"]) == EXIT_INVALID
    assert "no size meets the threshold" in capsys.readouterr().out


@pytest.mark.parametrize(
    "arguments",
    [
        ["--threshold", "1.5"],
        ["--threshold", "0.1", "--confidence", "1"],
        ["--threshold", "0.1", "--expected-rate", "-0.1"],
        ["--threshold", "0.1", "--per-trial", "0"],
        ["--threshold", "nan"],
        ["--threshold", "QQPLANCANARY"],
    ],
)
def test_bad_arguments_are_usage_errors_that_echo_nothing(
    capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    assert main(["plan", *arguments]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert "QQPLANCANARY" not in captured.out + captured.err
    assert captured.out == ""
