"""The report says how the run went; junit and Markdown speak their formats' language."""

from __future__ import annotations

import pytest

from tests.report._reports import RUN as FULL_RUN

from ._helpers import claim, evidence, validate_report


def _run(project: pytest.Pytester, *args: str) -> dict[str, object]:
    project.runpytest("--openmed-report", "r.json", *args)
    run: dict[str, object] = validate_report(project.path / "r.json")["run"]
    return run


def test_a_full_run_records_its_exit_status_and_defaults(claims_project: pytest.Pytester) -> None:
    run = _run(claims_project, "--openmed-seed", "7", "--openmed-resamples", "300")
    # when and on what it ran: tests/plugin/test_run_provenance.py
    assert {key: run[key] for key in run if key not in ("timing", "environment")} == {
        **FULL_RUN,
        "exit_status": 1,
        "seed": 7,
        "resamples": 300,
    }


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["-k", "medication"], "keyword_selection"),
        (["-m", "not slow"], "marker_selection"),
        (["--lf"], "last_failed"),
        (["-x"], "stopped_early"),
        (["--deselect", "gates.openmed.toml::claims(notes)::overall"], "deselected"),
    ],
)
def test_a_partial_selection_is_recorded(
    claims_project: pytest.Pytester, args: list[str], flag: str
) -> None:
    claims_project.runpytest()  # gives --lf something to select
    run = _run(claims_project, *args)
    assert run["partial_selection"] is True
    assert run[flag] not in (False, 0)


def test_short_summary_and_junit_show_the_gate_text_not_an_exception_path(
    claims_project: pytest.Pytester,
) -> None:
    result = claims_project.runpytest("-rA", "--junitxml", "junit.xml")
    result.stdout.fnmatch_lines(["FAILED *class[[]medication[]] - unsupported_rat*"])
    xml = (claims_project.path / "junit.xml").read_text()
    assert 'message="unsupported_rate 0.2000 &gt; max 0.10; openmed claims gate' in xml
    assert "pytest_openmed.plugin.items" not in result.stdout.str() + xml


def test_junit_metric_properties_are_json_literals(claims_project: pytest.Pytester) -> None:
    claims_project.runpytest("--junitxml", "junit.xml")
    xml = (claims_project.path / "junit.xml").read_text()
    assert 'name="openmed.metric.degenerate" value="false"' in xml
    assert 'name="openmed.metric.max_upper" value="null"' in xml
    assert 'value="False"' not in xml and 'value="None"' not in xml


def test_a_pipe_in_a_node_id_is_escaped_in_markdown(pytester: pytest.Pytester) -> None:
    import json

    (pytester.path / "c.json").write_text(json.dumps([claim(0, "lab", [])]))
    (pytester.path / "e.json").write_text(json.dumps([evidence(0)]))
    pytester.makepyfile(
        """
        import json
        from pathlib import Path
        import pytest

        @pytest.mark.parametrize("case", ["a|b"])
        def test_scored(claim_scorer, case):
            claim_scorer(json.loads(Path("c.json").read_text()), json.loads(Path("e.json").read_text()))
        """
    )
    pytester.runpytest("-p", "openmed", "--openmed-markdown", "s.md").assert_outcomes(passed=1)
    rows = [line for line in (pytester.path / "s.md").read_text().splitlines() if "a\\|b" in line]
    # the compact table has six columns: five inner separators, none added by the pipe
    assert rows and all(line.count(" | ") == 5 for line in rows)
