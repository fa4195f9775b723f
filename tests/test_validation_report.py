"""The one target report of the validation scripts: a line per target, the exit status last.

``validation/_report.py`` is what every ``validation/*.py`` script prints
through: a failing target is counted and makes the run exit 1; a measured
figure that is no target (``holds=None``) is shown as ``info`` and never fails.
"""

from __future__ import annotations

import re

import pytest

from validation._report import TARGET_WIDTH, Report, Target, peak_target


def test_each_line_shows_the_verdict_the_target_and_its_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = Report()
    report.line("frame count = pydicom's", "22/22 files", True)
    report.add(Target("every compressed file refused", "57/58", False))
    report.line("shifted 1 level pixel", "6/8 caught", None)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"holds  {'frame count = pydicom' + chr(39) + 's':<{TARGET_WIDTH}} 22/22 files",
        f"FAILS  {'every compressed file refused':<{TARGET_WIDTH}} 57/58",
        f"info   {'shifted 1 level pixel':<{TARGET_WIDTH}} 6/8 caught",
    ]


def test_a_failing_target_makes_the_exit_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    report = Report()
    report.line("a", "1", True)
    report.line("b", "0", False)
    report.line("c", "0", False)
    assert report.summary() == 1
    assert capsys.readouterr().out.endswith("\n2 target(s) fail\n")


def test_figures_that_are_no_target_never_fail_the_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = Report()
    report.line("a", "1", True)
    report.line("edge of the operating range", "6/8", None)
    assert report.verdict(None) == "info"
    assert report.summary() == 0
    assert capsys.readouterr().out.endswith("\nall targets hold\n")


def test_a_verdict_word_counts_like_a_line() -> None:
    report = Report()
    assert [report.verdict(True), report.verdict(False)] == ["holds", "FAILS"]
    assert report.failed == 1


def test_a_resource_bound_line_holds_only_for_the_expected_outcome_under_the_target(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pytest_openmed.development.sources.oversized import declared_dicom

    asset = declared_dicom(1, 8192, 8192, pixel_bytes=1024)
    report = Report()
    peak_target(report, "one 8192² frame", "dicom_frames", asset, "DecodedSizeTooLarge")
    peak_target(report, "one 8192² frame", "dicom_frames", asset, "ran")
    first, second = capsys.readouterr().out.splitlines()
    measured = r" +DecodedSizeTooLarge, \d+ MiB peak"
    assert re.fullmatch(r"holds  one 8192² frame: DecodedSizeTooLarge, < 512 MiB" + measured, first)
    assert re.fullmatch(r"FAILS  one 8192² frame: ran, < 512 MiB" + measured, second)
    assert report.failed == 1
