"""Command line: ``python -m pytest_openmed.planner --planner mod:attr --output report.json``.

PYTEST_DONT_REWRITE

Exit codes: 0 qualified, 1 refused (the report is written), 2 for invalid
arguments, a malformed reference, a planner that cannot be imported or is not
callable, a planner that exits the run, or a report that cannot be written;
130 when interrupted.  Diagnostics are fixed codes on stderr; no argument
value, module name, path or import error is ever echoed (argparse's own usage
errors included).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from pytest_openmed._canonical import atomic_write_text
from pytest_openmed.planner.gate import MalformedPlannerReference, load_planner
from pytest_openmed.planner.harness import qualify_planner

__all__ = ["EXIT_INTERRUPTED", "EXIT_QUALIFIED", "EXIT_REFUSED", "EXIT_USAGE", "main"]

EXIT_QUALIFIED = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

_PROGRAM = "openmed-planner"
_DIAGNOSTICS = {
    "E001": "invalid arguments (usage: --planner package.module:attribute --output PATH)",
    "E002": "malformed planner reference (expected package.module:attribute)",
    "E003": "planner could not be imported or is not callable",
    "E004": "report could not be written",
    "E005": "planner ended the run before qualification finished",
    "E006": "interrupted",
}


class _UsageError(Exception):
    """argparse refused the command line (its message is never shown)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError()


def _parser() -> _Parser:
    parser = _Parser(
        prog=_PROGRAM,
        description=(
            "Qualify a local tool-use planner on six governed scenarios and write the "
            "JSON report (non-diagnostic evaluation evidence)."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("--planner", required=True, metavar="MODULE:ATTR")
    parser.add_argument("--output", required=True, metavar="PATH")
    return parser


def _fail(code: str) -> None:
    sys.stderr.write(f"{_PROGRAM}: {code} {_DIAGNOSTICS[code]}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    try:
        arguments = _parser().parse_args(argv)
    except _UsageError:
        _fail("E001")
        return EXIT_USAGE
    if not arguments.output or "\x00" in arguments.output:
        _fail("E001")
        return EXIT_USAGE
    try:
        planner = load_planner(arguments.planner)
    except MalformedPlannerReference:
        _fail("E002")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _fail("E006")
        return EXIT_INTERRUPTED
    except BaseException:  # UnloadablePlanner, SystemExit, GeneratorExit, … at import
        _fail("E003")
        return EXIT_USAGE
    try:
        report = qualify_planner(planner)
    except KeyboardInterrupt:
        _fail("E006")
        return EXIT_INTERRUPTED
    except BaseException:  # SystemExit or any other exit the harness lets propagate
        _fail("E005")
        return EXIT_USAGE
    try:
        atomic_write_text(arguments.output, report.to_json() + "\n")
    except (OSError, ValueError):  # ValueError: a path the file system cannot encode
        _fail("E004")
        return EXIT_USAGE
    counts = report.counts
    verdict = "qualified" if report.qualified else "refused"
    sys.stdout.write(
        f"{_PROGRAM}: {verdict} ({counts.task_completion}/{counts.scenarios} scenarios complete, "
        f"{counts.critical_events} critical events)\n"
    )
    return EXIT_QUALIFIED if report.qualified else EXIT_REFUSED
