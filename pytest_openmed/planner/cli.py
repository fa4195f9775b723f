"""Command line: ``python -m pytest_openmed.planner --planner mod:attr --output report.json``.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

With ``--dialect`` the reference names a wire-format model; with
``--cassette`` the run replays it (``--record``: calls the model and rewrites
the cassette); ``--injection-report PATH`` also runs the injection suite.

Exit codes: 0 qualified (and, with the suite, every style passed), 1 refused
(the reports are written), 2 for invalid arguments, a malformed reference, a
planner that cannot be imported or is not callable, a planner that exits the
run, a report that cannot be written, or a cassette that is stale, unreadable
or cannot be written; 130 when interrupted.  Diagnostics are fixed codes on stderr; no argument
value, module name, path or import error is ever echoed (argparse's own usage
errors included).

``openmed-planner serve`` qualifies an MCP host through the governed server
(:func:`serve_main`; docs/qualifying-mcp-agents.md); ``E013``: a live run
without the ``mcp`` extra.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pytest_openmed._canonical import atomic_write_text
from pytest_openmed.contract import GateStatus
from pytest_openmed.errors import InputRefused, RefusingParser, UsageError, plural
from pytest_openmed.planner._gate import MalformedPlannerReference, evaluate_injection, load_planner
from pytest_openmed.planner.declaration import DIALECTS, MODEL_IDENTITY
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.injection import InjectionReport, run_injection_suite
from pytest_openmed.planner.report import PlannerQualificationReport
from pytest_openmed.planner.served import DEFAULT_TIME_LIMIT, MAX_TIME_LIMIT, mcp_missing

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_QUALIFIED",
    "EXIT_REFUSED",
    "EXIT_USAGE",
    "finish",
    "main",
    "serve_main",
]

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
    "E010": "stale cassette (a request differs from the recorded one; record it again)",
    "E011": "cassette could not be read or is not a valid planner cassette",
    "E012": "cassette could not be written",
    "E013": "the MCP extra is not installed (pip install 'pytest-openmed[mcp]')",
}


#: The exit codes, as ``--help`` states them.
_EXIT_CODES = (
    "exit codes: 0 qualified (and, with the suite, every style passed); 1 refused (the "
    "reports are written); 2 invalid arguments, a malformed or unloadable reference, a "
    "planner that ended the run, a report that cannot be written, or a stale, unreadable "
    "or unwritable cassette (code E0xx on stderr); 130 interrupted."
)


def _parser() -> RefusingParser:
    parser = RefusingParser(
        prog=_PROGRAM,
        description=(
            "Qualify a local tool-use planner on six governed scenarios and write the "
            "JSON report (non-diagnostic evaluation evidence). 'openmed-planner serve "
            "--help' qualifies an MCP host."
        ),
        epilog=_EXIT_CODES,
        allow_abbrev=False,
    )
    # The installed distribution's version (the planner room does not import the package root).
    version = importlib.metadata.version("pytest-openmed")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    parser.add_argument(
        "--planner",
        metavar="MODULE:ATTR",
        help="the planner callable (or, with --dialect, the model function); resolved from "
        "the current directory and sys.path",
    )
    parser.add_argument(
        "--output", required=True, metavar="PATH", help="the planner report (JSON) to write"
    )
    parser.add_argument(
        "--dialect",
        choices=DIALECTS,
        help="the model's tool-calling wire format: --planner names a model function",
    )
    parser.add_argument(
        "--cassette", metavar="PATH", help="replay the model from this cassette (needs --dialect)"
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="call the model live and rewrite --cassette (needs --planner)",
    )
    _model_identity_argument(parser)
    parser.add_argument(
        "--injection-report",
        metavar="PATH",
        help="also run the injection suite and write its report (JSON) here",
    )
    return parser


def _model_identity_argument(parser: RefusingParser) -> None:
    parser.add_argument(
        "--model-identity",
        metavar="NAME",
        help="your name for the model (a gate file's 'model'): recorded into --cassette and "
        "compared on replay",
    )


def _consistent(arguments: argparse.Namespace) -> bool:
    """The combinations of modes that mean something (see the module docstring)."""
    paths = [arguments.output, arguments.cassette, arguments.injection_report]
    if any(path is not None and (not path or "\x00" in path) for path in paths):
        return False
    if not _identity_ok(arguments):
        return False
    if arguments.planner is None and arguments.cassette is None:
        return False
    if arguments.cassette is not None and arguments.dialect is None:
        return False
    return not arguments.record or (
        arguments.cassette is not None and arguments.planner is not None
    )


def _fail(code: str, missing: str = "") -> None:
    """A diagnostic: its fixed text, and the names of missing arguments when there are some."""
    extra = f"; missing: {missing}" if missing else ""
    sys.stderr.write(f"{_PROGRAM}: {code} {_DIAGNOSTICS[code]}{extra}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["serve"]:
        return serve_main(args[1:])
    if not any(entry in ("", os.getcwd()) for entry in sys.path):
        sys.path.insert(0, os.getcwd())  # as ``python -m pytest_openmed.planner`` resolves
    try:
        arguments = _parser().parse_args(argv)
    except UsageError as error:
        _fail("E001", error.missing)
        return EXIT_USAGE
    if not _consistent(arguments):
        _fail("E001")
        return EXIT_USAGE
    planner: Callable[..., object] | None = None
    replaying = arguments.cassette is not None and not arguments.record
    if arguments.planner is not None and not replaying:
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
    return finish(arguments, lambda: _qualify(arguments, planner))


def finish(
    arguments: argparse.Namespace,
    qualify: Callable[[], tuple[PlannerQualificationReport, InjectionReport | None]],
) -> int:
    """Run ``qualify``, write the reports named by ``arguments``, print the verdict, exit code.

    Shared with ``openmed-planner serve``: the same codes for the same failures.
    """
    try:
        report, injection = _cassette_codes(qualify)
    except _Refused as refused:
        _fail(refused.code)
        return EXIT_USAGE
    except KeyboardInterrupt:
        _fail("E006")
        return EXIT_INTERRUPTED
    except BaseException:  # SystemExit or any other exit the harness lets propagate
        _fail("E005")
        return EXIT_USAGE
    try:
        atomic_write_text(arguments.output, report.to_json() + "\n")
        if injection is not None:
            atomic_write_text(arguments.injection_report, injection.to_json() + "\n")
    except (OSError, ValueError):  # ValueError: a path the file system cannot encode
        _fail("E004")
        return EXIT_USAGE
    counts = report.counts
    verdict = "qualified" if report.qualified else "refused"
    sys.stdout.write(
        f"{_PROGRAM}: {verdict} ({counts.task_completion}/{counts.scenarios} scenarios complete, "
        f"{plural(counts.critical_events, 'critical event')})\n"
    )
    passed = report.qualified
    if injection is not None:
        verdicts = evaluate_injection(injection).values()
        failing = sum(verdict.status is not GateStatus.PASSED for verdict in verdicts)
        passed = passed and failing == 0
        sys.stdout.write(
            f"{_PROGRAM}: injection suite: {injection.compliance_count}/{len(injection.styles)} "
            f"styles complied, {plural(failing, 'style')} failed\n"
        )
    return EXIT_QUALIFIED if passed else EXIT_REFUSED


class _Refused(InputRefused):
    """A cassette problem, carrying its diagnostic code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _qualify(
    arguments: argparse.Namespace, planner: Callable[..., object] | None
) -> tuple[PlannerQualificationReport, InjectionReport | None]:
    suite = arguments.injection_report is not None
    if arguments.dialect is None:
        assert planner is not None
        report = qualify_planner(planner)
        return report, run_injection_suite(planner) if suite else None
    from pytest_openmed.planner.cassette import qualify_wire

    cassette = Path(arguments.cassette) if arguments.cassette is not None else None
    outcome = qualify_wire(
        arguments.dialect,
        model=planner,
        cassette=cassette,
        record=arguments.record,
        injection_suite=suite,
        reference=arguments.planner,
        model_identity=arguments.model_identity,
    )
    return outcome.report, outcome.injection


def _cassette_codes(
    qualify: Callable[[], tuple[PlannerQualificationReport, InjectionReport | None]],
) -> tuple[PlannerQualificationReport, InjectionReport | None]:
    """``qualify()``, with each cassette refusal raised as its diagnostic code."""
    from pytest_openmed.planner.cassette import (
        CassetteError,
        CassetteWriteError,
        StaleCassetteError,
    )

    try:
        return qualify()
    except StaleCassetteError:
        raise _Refused("E010") from None
    except CassetteWriteError:
        raise _Refused("E012") from None
    except CassetteError:
        raise _Refused("E011") from None
    except ImportError as error:
        if not mcp_missing(error):
            raise
        raise _Refused("E013") from None


# --- openmed-planner serve: an MCP host through the governed server ---------------------


def _serve_parser() -> RefusingParser:
    parser = RefusingParser(
        prog="openmed-planner serve",
        description="Qualify an MCP host through the governed MCP server "
        "(docs/qualifying-mcp-agents.md).",
        epilog=_EXIT_CODES,
        allow_abbrev=False,
    )
    parser.add_argument(
        "--relay", metavar="URL", help="relay stdio to a running server at this loopback URL"
    )
    parser.add_argument(
        "--agent", metavar="MODULE:ATTR", help="the run_agent(server_params, scenario_id) hook"
    )
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="http",
        help="how the host reaches the server (default http, loopback only)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="per-scenario time limit; a scenario that outlives it is a planner error",
    )
    parser.add_argument("--output", metavar="PATH", help="the planner report (JSON) to write")
    parser.add_argument("--cassette", metavar="PATH", help="replay (or, with --record, record)")
    parser.add_argument(
        "--record", action="store_true", help="run the host live, rewrite --cassette"
    )
    _model_identity_argument(parser)
    parser.add_argument(
        "--injection-report",
        metavar="PATH",
        help="also run the injection suite and write its report (JSON) here",
    )
    return parser


def serve_main(argv: Sequence[str]) -> int:
    """Run ``openmed-planner serve``; returns the process exit code."""
    try:
        arguments = _serve_parser().parse_args(argv)
    except UsageError as error:
        _fail("E001", error.missing)
        return EXIT_USAGE
    if arguments.relay is not None:
        return _serve_relay(arguments)
    if not _serve_consistent(arguments):
        _fail("E001")
        return EXIT_USAGE
    replaying = arguments.cassette is not None and not arguments.record
    agent = None
    if not replaying:
        try:
            agent = load_planner(arguments.agent)
        except MalformedPlannerReference:
            _fail("E002")
            return EXIT_USAGE
        except KeyboardInterrupt:
            _fail("E006")
            return EXIT_INTERRUPTED
        except BaseException:
            _fail("E003")
            return EXIT_USAGE
    return finish(arguments, lambda: _qualify_agent(arguments, agent))


def _identity_ok(arguments: argparse.Namespace) -> bool:
    """A ``--model-identity`` is a model name, and only beside a cassette."""
    identity = arguments.model_identity
    if identity is None:
        return True
    return arguments.cassette is not None and MODEL_IDENTITY.fullmatch(identity) is not None


def _serve_consistent(arguments: argparse.Namespace) -> bool:
    if arguments.output is None or not _identity_ok(arguments):
        return False
    limit = arguments.time_limit
    if limit is not None and not 0 < limit <= MAX_TIME_LIMIT:
        return False
    if arguments.agent is None and (arguments.cassette is None or arguments.record):
        return False
    return not arguments.record or arguments.cassette is not None


def _qualify_agent(
    arguments: argparse.Namespace, agent: Any
) -> tuple[PlannerQualificationReport, InjectionReport | None]:
    from pytest_openmed.planner.mcp_agent import qualify_agent

    limit = DEFAULT_TIME_LIMIT if arguments.time_limit is None else arguments.time_limit
    outcome = qualify_agent(
        agent,
        transport=arguments.transport,
        cassette=Path(arguments.cassette) if arguments.cassette is not None else None,
        record=arguments.record,
        injection_suite=arguments.injection_report is not None,
        time_limit=limit,
        reference=arguments.agent,
        model_identity=arguments.model_identity,
    )
    return outcome.report, outcome.injection


def _serve_relay(arguments: argparse.Namespace) -> int:
    url = arguments.relay
    if not url.startswith("http://127.0.0.1:") or arguments.agent is not None:
        _fail("E001")
        return EXIT_USAGE
    try:
        from pytest_openmed.planner.mcp_server import serve_relay
    except ImportError as error:
        if not mcp_missing(error):
            raise
        _fail("E013")
        return EXIT_USAGE
    try:
        serve_relay(url)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BaseException:  # the host went away: nothing to report on stdio
        return EXIT_USAGE
    return 0
