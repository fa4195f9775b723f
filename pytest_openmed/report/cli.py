"""Command line ``openmed-report``: validate, diff and render JSON gate reports.

Subcommands (each with ``--help``):

* ``validate REPORT``: exit 0 when REPORT matches the gate-report schema, 1 when it
  does not (the message gives the location and the rule, never the value);
* ``diff OLD NEW``: one line per verdict added, removed, changed or regressed (the
  ``--openmed-baseline`` rule); exit 0 when nothing changed, 1 when something did;
* ``html REPORT -o OUT [--history DIR]``: the HTML report, with trends from a
  ``--openmed-history`` directory; exit 0;
* ``markdown REPORT [-o OUT]``: the compact Markdown summary (stdout by default); exit 0;
* ``sarif REPORT -o OUT [--root DIR]``: the SARIF 2.1.0 log of failing verdicts, with
  lines read from the gate files and test modules under DIR (default: the current
  directory, where pytest's rootdir usually is); exit 0;
* ``merge SHARD... -o OUT [--html H] [--markdown M] [--sarif S [--root DIR]]
  [--history DIR]``: one report from
  the ``--openmed-shard`` reports of one run; exits like a gate run: 0 when every gate
  passed, 1 when one failed, 2 when the shards cannot be merged (nothing is written).
* ``plan --threshold T [--confidence C] [--expected-rate R] [--per-trial K]``: how
  many claims (or conversations, and trials of K conversations) a gate needs for
  its exact upper bound to meet T (docs/evidence.md); exit 0, or 1 when no size
  can meet it.

Exit 2 for invalid arguments, an unreadable or invalid input report, or an
output that cannot be written; 130 when interrupted.  No path or input value is
ever echoed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_openmed import __version__
from pytest_openmed.errors import RefusingParser, UsageError, plural

__all__ = ["EXIT_CHANGED", "EXIT_INVALID", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK = 0
#: ``validate``: the report is invalid; ``diff``: the reports differ; ``merge``: a gate failed.
EXIT_INVALID = 1
EXIT_CHANGED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

_PROGRAM = "openmed-report"
#: The most conversations ``plan --per-trial`` lets one trial hold.
_MAX_PER_TRIAL = 1000


def _parser() -> RefusingParser:
    parser = RefusingParser(
        prog=_PROGRAM,
        description="Validate, compare and render pytest-openmed JSON gate reports "
        "(non-diagnostic evaluation evidence).",
        epilog="exit codes: 0 valid / no verdict changed / written; 1 invalid report "
        "(validate) or verdicts changed (diff); 2 invalid arguments, an unreadable, invalid "
        "or incomplete input report, or an output that cannot be written; 130 interrupted. "
        "Run 'openmed-report COMMAND --help' for a command's arguments.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=RefusingParser)
    validate = commands.add_parser(
        "validate", help="check a report against the gate-report schema", allow_abbrev=False
    )
    validate.add_argument("report", metavar="REPORT", help="the JSON gate report to check")
    diff = commands.add_parser(
        "diff", help="list verdicts added, removed, changed or regressed", allow_abbrev=False
    )
    diff.add_argument("old", metavar="OLD", help="the earlier JSON gate report")
    diff.add_argument("new", metavar="NEW", help="the later JSON gate report")
    html = commands.add_parser("html", help="render the HTML report", allow_abbrev=False)
    html.add_argument("report", metavar="REPORT", help="the JSON gate report to render")
    html.add_argument("-o", "--output", required=True, metavar="OUT", help="the HTML file to write")
    html.add_argument("--history", metavar="DIR", help="a --openmed-history directory: adds trends")
    markdown = commands.add_parser(
        "markdown", help="render the compact Markdown summary", allow_abbrev=False
    )
    markdown.add_argument("report", metavar="REPORT", help="the JSON gate report to summarise")
    markdown.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    sarif = commands.add_parser(
        "sarif", help="write the SARIF 2.1.0 log of failing verdicts", allow_abbrev=False
    )
    sarif.add_argument("report", metavar="REPORT", help="the JSON gate report to convert")
    sarif.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="the SARIF file to write"
    )
    sarif.add_argument(
        "--root",
        metavar="DIR",
        default=".",
        help="the directory node ids are relative to (pytest's rootdir; default: here)",
    )
    plan = commands.add_parser(
        "plan",
        help="how many claims or conversations a threshold needs (exact one-sided bound)",
        allow_abbrev=False,
    )
    plan.add_argument(
        "--threshold",
        required=True,
        type=float,
        metavar="T",
        help="max_upper, max_critical_rate or max_injection_compliance (0 to 1)",
    )
    plan.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        metavar="C",
        help="confidence of the bound, strictly between 0 and 1 (default 0.95)",
    )
    plan.add_argument(
        "--expected-rate",
        type=float,
        default=0.0,
        metavar="R",
        help="the rate you expect to observe (default 0: no event)",
    )
    plan.add_argument(
        "--per-trial",
        type=int,
        default=None,
        metavar="K",
        help=(
            "conversations one trial holds (a planner trial: one per scenario,"
            " times the injection styles with the suite)"
        ),
    )
    merge = commands.add_parser(
        "merge",
        help="merge the --openmed-shard reports of one run into one report",
        allow_abbrev=False,
    )
    merge.add_argument("shards", metavar="SHARD", nargs="+")
    merge.add_argument("-o", "--output", required=True, metavar="OUT")
    merge.add_argument("--html", metavar="PATH", help="also write the HTML report")
    merge.add_argument("--markdown", metavar="PATH", help="also write the Markdown summary")
    merge.add_argument("--sarif", metavar="PATH", help="also write the SARIF 2.1.0 log")
    merge.add_argument(
        "--root",
        metavar="DIR",
        default=".",
        help="for --sarif: the directory node ids are relative to (default: here)",
    )
    merge.add_argument(
        "--history", metavar="DIR", help="store the merged run in this --openmed-history directory"
    )
    return parser


def _plan(arguments: argparse.Namespace) -> int:
    """``plan``: the fewest claims or conversations whose exact upper bound meets the threshold."""
    import math

    from pytest_openmed._exact import minimum_trials, planned_trials
    from pytest_openmed.errors import InputRefused

    per_trial = arguments.per_trial
    if per_trial is not None and not 1 <= per_trial <= _MAX_PER_TRIAL:
        _say(f"--per-trial must be from 1 to {_MAX_PER_TRIAL}")
        return EXIT_USAGE
    try:
        none = minimum_trials(arguments.threshold, arguments.confidence)
        expected = planned_trials(
            arguments.threshold, arguments.confidence, arguments.expected_rate
        )
    except (InputRefused, TypeError, ValueError):
        _say("--threshold and --expected-rate must be from 0 to 1, --confidence between 0 and 1")
        return EXIT_USAGE
    out = sys.stdout
    out.write(
        f"threshold {arguments.threshold:.4f} at confidence {arguments.confidence:.4f} "
        "(exact one-sided Clopper-Pearson upper bound)\n"
    )
    rows = [("with no event", none)]
    if arguments.expected_rate:
        rows.append((f"with an observed rate of {arguments.expected_rate:.4f}", expected))
    for words, size in rows:
        if size is None:
            out.write(f"{words}: no size meets the threshold\n")
            continue
        line = f"{words}: {size} claims or conversations"
        if per_trial is not None:
            line += f", {math.ceil(size / per_trial)} trials of {per_trial}"
        out.write(line + "\n")
    return EXIT_OK if all(size is not None for _, size in rows) else EXIT_INVALID


def _say(text: str, stream: Any = None) -> None:
    (stream or sys.stderr).write(f"{_PROGRAM}: {text}\n")


def _read(path: str, what: str) -> dict[str, Any] | None:
    from pytest_openmed.report.load import ReportError, read_report

    try:
        return read_report(Path(path))
    except ReportError as error:
        _say(f"{what}: {error}")
        return None


def _write(path: str, text: str) -> bool:
    from pytest_openmed._canonical import atomic_write_text

    try:
        atomic_write_text(path, text)
    except (OSError, ValueError):
        _say("the output file could not be written")
        return False
    return True


def _run(arguments: argparse.Namespace) -> int:
    command = arguments.command
    if command == "validate":
        from pytest_openmed.report.load import ReportError, read_report

        try:
            read_report(Path(arguments.report))
        except ReportError as error:
            _say(f"invalid: {error}")
            return EXIT_INVALID
        _say("valid gate report", sys.stdout)
        return EXIT_OK
    if command == "plan":
        return _plan(arguments)
    if command == "diff":
        from pytest_openmed.report.diff import diff_reports

        old, new = _read(arguments.old, "OLD"), _read(arguments.new, "NEW")
        if old is None or new is None:
            return EXIT_USAGE
        changes = diff_reports(old, new)
        for change in changes:
            sys.stdout.write(change.line() + "\n")
        sys.stdout.write(f"{_PROGRAM}: {plural(len(changes), 'verdict change')}\n")
        return EXIT_CHANGED if changes else EXIT_OK
    if command == "merge":
        return _merge(arguments)
    report = _read(arguments.report, "REPORT")
    if report is None:
        return EXIT_USAGE
    if command == "html":
        from pytest_openmed.report.history import HistoryError, load_trends
        from pytest_openmed.report.html import TREND_RUNS, render_html
        from pytest_openmed.report.trend_view import StoredRun

        history: list[StoredRun] = []
        if arguments.history:
            try:
                history, unreadable = load_trends(Path(arguments.history), TREND_RUNS)
            except HistoryError as error:
                _say(str(error))
                return EXIT_USAGE
            if unreadable:
                _say(f"stored runs not shown (not valid gate reports): {unreadable}")
        return EXIT_OK if _write(arguments.output, render_html(report, history)) else EXIT_USAGE
    if command == "sarif":
        import json

        from pytest_openmed.report.sarif import sarif_document

        document = sarif_document(report, Path(arguments.root))
        return (
            EXIT_OK
            if _write(arguments.output, json.dumps(document, indent=2) + "\n")
            else (EXIT_USAGE)
        )
    from pytest_openmed.report.summary import render_markdown

    text = render_markdown(report)
    if arguments.output:
        return EXIT_OK if _write(arguments.output, text) else EXIT_USAGE
    sys.stdout.write(text)
    return EXIT_OK


def _merge(arguments: argparse.Namespace) -> int:
    """Read every shard, merge, render every output; write only when all of that succeeded."""
    import json

    from pytest_openmed.report.merge import MergeError, merge_reports

    shards = []
    for number, path in enumerate(arguments.shards, start=1):
        shard = _read(path, f"SHARD #{number}")
        if shard is None:
            return EXIT_USAGE
        shards.append(shard)
    try:
        merged = merge_reports(shards)
    except MergeError as error:
        _say(f"cannot merge: {error}")
        return EXIT_USAGE
    text = json.dumps(merged, indent=2, sort_keys=True, allow_nan=False) + "\n"
    outputs = [(arguments.output, text)]
    if arguments.markdown:
        from pytest_openmed.report.summary import render_markdown

        outputs.append((arguments.markdown, render_markdown(merged)))
    if arguments.sarif:
        from pytest_openmed.report.sarif import sarif_document

        sarif = sarif_document(merged, Path(arguments.root))
        outputs.append((arguments.sarif, json.dumps(sarif, indent=2) + "\n"))
    if not all(_writable(path) for path in (*(path for path, _ in outputs), arguments.html)):
        _say("an output file cannot be written (its directory is missing or not writable)")
        return EXIT_USAGE
    if arguments.history and not _store(Path(arguments.history), merged, text):
        return EXIT_USAGE
    if arguments.html:
        # Rendered after the merged run is stored: its trends end with it, as a run's do.
        from pytest_openmed.report.history import HistoryError, load_trends
        from pytest_openmed.report.html import TREND_RUNS, render_html
        from pytest_openmed.report.trend_view import StoredRun

        history: list[StoredRun] = []
        if arguments.history:
            try:
                history, _ = load_trends(Path(arguments.history), TREND_RUNS)
            except HistoryError as error:
                _say(str(error))
                return EXIT_USAGE
        outputs.append((arguments.html, render_html(merged, history)))
    if not all(_write(path, content) for path, content in outputs):
        return EXIT_USAGE
    gates = merged["summary"]["gates"]
    _say(f"merged {plural(len(shards), 'shard')}: {plural(gates, 'verdict')}", sys.stdout)
    return EXIT_CHANGED if merged["run"]["exit_status"] else EXIT_OK


def _writable(path: str | None) -> bool:
    """The output's directory exists and is writable, and the output is no directory."""
    import os

    if path is None:
        return True
    target = Path(path)
    parent = target.absolute().parent
    return not target.is_dir() and parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)


def _store(directory: Path, merged: dict[str, Any], text: str) -> bool:
    """Store the merged run in the history under the time it finished and its commit."""
    import datetime

    from pytest_openmed.report.history import DEFAULT_KEEP, store_run

    commit = merged["run"]["environment"]["commit"]
    try:
        store_run(
            directory,
            text,
            keep=DEFAULT_KEEP,
            now=datetime.datetime.now(datetime.UTC),
            environ={"GIT_COMMIT": commit} if commit else {},
        )
    except OSError:
        _say("the merged run could not be stored in the history directory")
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    try:
        try:
            arguments = _parser().parse_args(argv)
        except UsageError as error:
            missing = f"; missing: {error.missing}" if error.missing else ""
            _say(f"invalid arguments{missing} (see openmed-report --help)")
            return EXIT_USAGE
        except SystemExit as done:  # --help, --version
            return done.code if isinstance(done.code, int) else EXIT_USAGE
        if any("\x00" in str(value) for value in vars(arguments).values()):
            _say("invalid arguments (see openmed-report --help)")
            return EXIT_USAGE
        return _run(arguments)
    except KeyboardInterrupt:
        _say("interrupted")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
