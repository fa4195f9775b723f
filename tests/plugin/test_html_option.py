"""--openmed-html (and its ini twin) writes the HTML report; nothing without it; refused paths are usage errors."""

from __future__ import annotations

import pytest

from pytest_openmed.report.html import render_html

from ._helpers import CANARY, validate_report


def test_the_ini_twin_writes_the_page_rendered_from_the_json(
    claims_project: pytest.Pytester,
) -> None:
    claims_project.makeini("[pytest]\nopenmed_html = out/gates.html\nopenmed_report = r.json\n")
    (claims_project.path / "out").mkdir()
    claims_project.runpytest()
    page = (claims_project.path / "out" / "gates.html").read_text()
    assert page == render_html(validate_report(claims_project.path / "r.json"))
    assert "gates.openmed.toml::claims(notes)" in page
    assert CANARY not in page


def test_no_page_without_the_option(claims_project: pytest.Pytester) -> None:
    claims_project.runpytest()
    assert not list(claims_project.path.rglob("*.html"))


def test_a_page_that_cannot_be_written_fails_the_run(claims_project: pytest.Pytester) -> None:
    result = claims_project.runpytest("--openmed-html=missing-dir/gates.html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # refused before any gate runs
    result.stderr.fnmatch_lines(["*--openmed-html names a file that cannot be written*"])
    assert "missing-dir" not in result.stdout.str() + result.stderr.str()


def test_a_history_directory_that_cannot_be_made_is_refused_up_front(
    claims_project: pytest.Pytester,
) -> None:
    (claims_project.path / "afile").write_text("")
    for value in ("missing/hist", "afile"):
        result = claims_project.runpytest(f"--openmed-history={value}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["*--openmed-history*(OPENMED-REPORT-PATH)*"])
