"""An output that cannot be written at the end of the run exits 6, never pytest's INTERNALERROR 3."""

from __future__ import annotations

import pytest

from pytest_openmed.plugin.recorder import WRITE_FAILED_EXIT


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_late_write_failure_has_its_own_exit_status(
    claims_project: pytest.Pytester, workers: list[str]
) -> None:
    """The directory exists when pytest configures and is gone when the report is written."""
    out = claims_project.mkdir("out-CANARY")
    claims_project.makepyfile(
        test_remove="import shutil\n\n"
        "def test_removes_the_output_directory():\n"
        f"    shutil.rmtree({str(out)!r})\n"
    )
    result = claims_project.runpytest(f"--openmed-report={out}/gates.json", *workers)
    output = result.stdout.str() + result.stderr.str()
    assert WRITE_FAILED_EXIT not in (0, 1, 2, 3, 4, 5)
    assert result.ret == WRITE_FAILED_EXIT
    assert "could not write a requested gate output file (OPENMED-REPORT-WRITE)" in output
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert "CANARY" not in output
