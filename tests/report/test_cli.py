"""openmed-report: validate, diff, html and markdown, with their exit codes; both console scripts install."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.report.cli import main

from .test_history_store import report_with

CANARY_PATH = "ZQXCANARY-private-dir"


def _write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document))
    return path


@pytest.fixture
def report(tmp_path: Path) -> Path:
    return _write(tmp_path / "r.json", report_with(rate=0.0, lower=0.0, upper=0.05))


@pytest.mark.parametrize("command", ["openmed-report", "openmed-planner"])
def test_the_console_scripts_are_installed_and_answer_help(command: str) -> None:
    # installed beside the interpreter by `pip install -e .` (the README's first command)
    found = shutil.which(command, path=str(Path(sys.executable).parent)) or shutil.which(command)
    assert found is not None, f"{command} is not installed: pip install -e ."
    result = subprocess.run([found, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert f"usage: {command}" in result.stdout


@pytest.mark.parametrize("command", ["validate", "diff", "html", "markdown"])
def test_every_subcommand_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    assert f"openmed-report {command}" in capsys.readouterr().out


def test_validate_accepts_a_report_and_refuses_others(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(report)]) == 0
    document = json.loads(report.read_text())
    document["gates"][0]["outcome"] = CANARY_PATH
    assert main(["validate", str(_write(tmp_path / "bad.json", document))]) == 1
    err = capsys.readouterr().err
    assert "/gates/0/outcome" in err and "(rule: enum)" in err
    assert CANARY_PATH not in err
    (tmp_path / "nan.json").write_text('{"a": NaN}')
    assert main(["validate", str(tmp_path / "nan.json")]) == 1
    assert main(["validate", str(tmp_path / CANARY_PATH / "missing.json")]) == 1
    assert CANARY_PATH not in capsys.readouterr().err


def test_diff_exits_1_on_a_change_and_names_a_regression(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(report), str(report)]) == 0
    worse = _write(tmp_path / "worse.json", report_with(rate=0.5, lower=0.3, upper=0.7))
    assert main(["diff", str(report), str(worse)]) == 1
    out = capsys.readouterr().out
    assert (
        "regressed g.openmed.toml::claims(x)::overall: interval lower 0.3000 > earlier upper 0.0500"
        in out
    )
    overlapping = _write(tmp_path / "near.json", report_with(rate=0.04, lower=0.0, upper=0.1))
    main(["diff", str(report), str(overlapping)])
    assert "regressed" not in capsys.readouterr().out


def test_html_and_markdown_render_the_report(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["html", str(report), "-o", str(tmp_path / "r.html")]) == 0
    assert "g.openmed.toml::claims(x)" in (tmp_path / "r.html").read_text()
    assert main(["markdown", str(report)]) == 0
    assert capsys.readouterr().out.startswith("## openmed gates")
    assert main(["markdown", str(report), "-o", str(tmp_path / "r.md")]) == 0
    assert (tmp_path / "r.md").read_text().startswith("## openmed gates")


def test_html_adds_trends_from_a_history_directory(report: Path, tmp_path: Path) -> None:
    history = tmp_path / "hist"
    history.mkdir()
    shutil.copy(report, history / "20260101T000000000000Z-nocommit.json")
    assert (
        main(["html", str(report), "-o", str(tmp_path / "r.html"), "--history", str(history)]) == 0
    )
    assert "20260101T000000000000Z-nocommit" in (tmp_path / "r.html").read_text()


def test_html_counts_the_stored_runs_it_cannot_show(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "hist"
    history.mkdir()
    shutil.copy(report, history / "20260101T000000000000Z-nocommit.json")
    (history / "20260102T000000000000Z-nocommit.json").write_text('{"gates": 1e400}')
    output = tmp_path / "r.html"
    assert main(["html", str(report), "-o", str(output), "--history", str(history)]) == 0
    err = capsys.readouterr().err
    assert err == "openmed-report: stored runs not shown (not valid gate reports): 1\n"
    assert "20260101T000000000000Z-nocommit" in output.read_text()


@pytest.mark.parametrize(
    "arguments",
    [
        [],
        ["nonsense"],
        ["html", "r.json"],  # no -o
        ["validate", "a", "b"],
        ["markdown", f"{CANARY_PATH}.json"],  # unreadable input
    ],
)
def test_bad_invocations_exit_2_without_echoing_input(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(arguments) == 2
    captured = capsys.readouterr()
    assert CANARY_PATH not in captured.err + captured.out


def test_an_unwritable_output_exits_2(report: Path, tmp_path: Path) -> None:
    assert main(["html", str(report), "-o", str(tmp_path / "missing" / "r.html")]) == 2
