"""A run that never finishes never leaves a report that looks like a pass.

The named report is written as an incomplete run when the run starts and
replaced atomically at its end; every consumer refuses an incomplete run.
Under xdist, a gate item whose worker crashed is in the report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_openmed.report.cli import main as openmed_report

from ._helpers import validate_report

CANARY = "QQCRASHCANARY"

PLANS = """
import os

def vanishes(context, catalog):
    os._exit(0)
"""

PEEK = """
import json
from pathlib import Path

def test_the_report_says_incomplete_while_the_run_goes():
    assert json.loads(Path("r.json").read_text())["incomplete"] is True
"""


def _project(pytester: pytest.Pytester, attribute: str) -> None:
    pytester.makepyfile(plans=PLANS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    (pytester.path / "gates.openmed.toml").write_text(
        f'[[planner]]\nname = "{CANARY.lower()}"\nplanner = "plans:{attribute}"\n'
    )


def test_a_run_killed_by_its_planner_leaves_an_incomplete_report(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(pytester, "vanishes")
    result = pytester.runpytest_subprocess("--openmed-report=r.json")
    assert result.ret == 0  # os._exit(0): nothing else can be trusted, but the report…
    report = validate_report(pytester.path / "r.json")
    assert report["incomplete"] is True and report["gates"] == []
    assert report["run"]["exit_status"] is None
    path = str(pytester.path / "r.json")
    assert openmed_report(["validate", path]) == 1
    assert openmed_report(["diff", path, path]) == 2
    assert openmed_report(["markdown", path]) == 2
    err = capsys.readouterr().err
    assert "never finished" in err and "OPENMED-REPORT-INCOMPLETE" in err
    (pytester.path / "gates.openmed.toml").unlink()
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    refused = pytester.runpytest("--openmed-baseline=r.json")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*baseline report is of a run that never finished*"])


def test_the_report_is_incomplete_until_the_run_ends(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_peek=PEEK)
    result = pytester.runpytest("--openmed-report=r.json")
    result.assert_outcomes(passed=1)
    report = validate_report(pytester.path / "r.json")
    assert "incomplete" not in report and report["run"]["exit_status"] == 0


def test_a_crashed_xdist_worker_leaves_its_gate_items_in_the_report(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, "vanishes")
    result = pytester.runpytest_subprocess("-n", "2", "--openmed-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = validate_report(pytester.path / "r.json")
    assert "incomplete" not in report
    assert report["summary"]["gates"] == 7 == report["summary"]["items"]["failed"]
    assert {(gate["status"], gate["reason"], gate["outcome"]) for gate in report["gates"]} == {
        (None, "worker_crashed", "failed")
    }
    nodeids = [gate["nodeid"] for gate in report["gates"]]
    assert nodeids == sorted(nodeids) and nodeids[0].startswith("gates.openmed.toml::planner(")
    assert json.loads(Path(pytester.path / "r.json").read_text())["summary"]["outcomes"] == {
        "passed": 0,
        "failed": 7,
        "error": 0,
        "skipped": 0,
    }
