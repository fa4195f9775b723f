"""Both console scripts: --help describes every argument and the exit codes, --version exists,
a missing argument is named, counts agree with their nouns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_openmed import __version__
from pytest_openmed.planner.cli import _parser as planner_parser
from pytest_openmed.planner.cli import _serve_parser
from pytest_openmed.planner.cli import main as planner_main
from pytest_openmed.report.cli import _parser as report_parser
from pytest_openmed.report.cli import main as report_main

CANARY = "QQSCRIPTCANARY"


def _help(parser: object, capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as done:
        parser.parse_args(argv)  # type: ignore[attr-defined]
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split()) + "\n"


@pytest.mark.parametrize("parser", [planner_parser, _serve_parser], ids=["planner", "serve"])
def test_planner_help_describes_every_argument_and_the_exit_codes(
    parser: object, capsys: pytest.CaptureFixture[str]
) -> None:
    built = parser()  # type: ignore[operator]
    text = _help(built, capsys, ["--help"])
    assert "exit codes: 0 qualified" in text and "130 interrupted" in text
    for action in built._actions:
        assert action.help, action.option_strings


@pytest.mark.parametrize("command", ["validate", "diff", "html", "markdown", "sarif"])
def test_report_help_describes_every_argument_and_the_exit_codes(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "exit codes: 0 valid" in _help(report_parser(), capsys, ["--help"])
    built = report_parser()
    sub = next(a for a in built._actions if a.dest == "command").choices[command]  # type: ignore[index]
    for action in sub._actions:
        assert action.help, (command, action.option_strings or action.metavar)


def test_both_scripts_have_a_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert _help(planner_parser(), capsys, ["--version"]) == f"openmed-planner {__version__}\n"
    assert report_main(["--version"]) == 0
    assert capsys.readouterr().out == f"openmed-report {__version__}\n"


def test_a_missing_argument_is_named_and_a_bad_one_is_not_echoed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert planner_main(["--planner", "a:b"]) == 2
    assert capsys.readouterr().err.endswith("; missing: --output\n")
    assert report_main(["diff", f"{CANARY}.json"]) == 2
    assert capsys.readouterr().err == (
        "openmed-report: invalid arguments; missing: NEW (see openmed-report --help)\n"
    )
    assert report_main(["validate", "--bogus", CANARY]) == 2
    err = capsys.readouterr().err
    assert CANARY not in err and "missing" not in err


def test_openmed_planner_resolves_a_reference_from_the_current_directory(tmp_path: Path) -> None:
    (tmp_path / f"{CANARY.lower()}_plan.py").write_text(
        "from pytest_openmed.planner.controls import control_planner as plan\n"
    )
    script = Path(sys.executable).with_name("openmed-planner")
    command = (
        [str(script)]
        if script.exists()
        else [
            sys.executable,
            "-c",
            "import sys; from pytest_openmed.planner.cli import main; sys.exit(main())",
        ]
    )
    done = subprocess.run(
        [*command, "--planner", f"{CANARY.lower()}_plan:plan", "--output", "r.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "openmed-planner: qualified (6/6 scenarios complete, 0 critical events)\n"


def test_counts_of_one_are_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_openmed.errors import plural

    assert (plural(1, "verdict change"), plural(0, "critical event")) == (
        "1 verdict change",
        "0 critical events",
    )
