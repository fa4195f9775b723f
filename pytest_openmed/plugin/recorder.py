"""Gathers gate verdicts from test reports; on the controller, reports them.

Registered per config (like junitxml's ``LogXML``) so its state lives with
the run.  Under pytest-xdist every worker's test reports, user properties
included, reach the controller's ``pytest_runtest_logreport``; only the
controller prints the summary and writes files.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_openmed import __version__
from pytest_openmed.errors import plural

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

    from pytest_openmed.contract import GateResult, GateStatus
    from pytest_openmed.plugin.options import RunOptions
    from pytest_openmed.report.trend_view import StoredRun

#: Version of the JSON report's shape; independent of the package version.
REPORT_SCHEMA_VERSION = "1.2"
#: Keys of ``run`` that differ between two runs of the same gates (when, how long).
VOLATILE_RUN_KEYS = ("timing",)

#: Suffix of gate files (kept here, not in ``plugin.items``, so unrelated files cost nothing).
GATE_FILE_SUFFIX = ".openmed.toml"
#: A declared gate's item node id: ``[<file>.openmed.toml::]<kind>(<name>)::<item>``.
_GATE_ITEM_ID = re.compile(
    r"(?:(?:[^:]|:(?!:))*" + re.escape(GATE_FILE_SUFFIX) + r"::)?"
    r"(claims|planner|pack)\([^()]*\)::[^:]+"
)
#: Reason of the record of a gate item whose xdist worker crashed while running it.
CRASHED = "worker_crashed"

#: User property carrying one verdict (canonical JSON) to the report and the xdist controller.
USER_PROPERTY = "openmed_gate"
#: Lines of the gates that wrote a cassette in this run (``--openmed-record``), in order.
recordings_key = pytest.StashKey[list[str]]()
#: User property naming the kind of a test tagged with ``openmed_gate``.
MARKER_PROPERTY = "openmed_gate_kind"
#: Prefix of the flat, documented junit XML properties of a verdict.
JUNIT_PREFIX = "openmed."
#: pytest's outcome categories of an item, in the order pytest's final line names them.
ITEM_OUTCOMES = ("failed", "passed", "skipped", "xfailed", "xpassed", "error")


def item_outcome(report: pytest.TestReport) -> str:
    """The category pytest counts ``report`` under (its final line, junit, ``-r``)."""
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return "skipped" if report.skipped else "passed"


#: Node id of the failed collect report that carries a usage error from an xdist worker.
USAGE_NODEID = "openmed::usage-error"  # "-": no Python test or class has such a name
#: ``workeroutput`` key carrying a worker's count of unmatched baseline entries.
BASELINE_OUTPUT = "openmed_baseline_unmatched"
#: Why a test that set a reserved user property itself fails.
RESERVED_PROPERTY_TEXT = (
    f"openmed: the user properties {USER_PROPERTY} and {MARKER_PROPERTY} are reserved for "
    "the plugin's own gate verdicts; record your data under another name "
    "(OPENMED-RESERVED-PROPERTY)"
)
#: Why no report was written after a ``pytest_openmed_report`` implementation broke it.
#: The exit status of a run whose requested output could not be written at its end (a full
#: disk): not pytest's 3, which says pytest itself crashed (docs/ci.md).
WRITE_FAILED_EXIT = 6

REPORT_HOOK_TEXT = (
    "openmed: a pytest_openmed_report hook implementation left the gate report invalid "
    "(non-JSON data, or changes outside 'extensions' that break its schema); "
    "no report was written (OPENMED-REPORT-HOOK)"
)

_own_properties_key = pytest.StashKey[set[int]]()
_RESERVED = (USER_PROPERTY, MARKER_PROPERTY)


def attach_property(item: pytest.Item, name: str, value: str) -> None:
    """Add one of the plugin's own user properties to ``item``, remembered as the plugin's."""
    item.user_properties.append((name, value))
    item.stash.setdefault(_own_properties_key, set()).add(id(value))


def drop_foreign_properties(item: pytest.Item, report: pytest.TestReport) -> bool:
    """Remove reserved user properties the plugin did not attach; ``True`` if any were.

    Runs where the test ran, before the report is serialised for xdist: a
    ``record_property("openmed_gate", <anything>)`` never reaches the
    controller, the JSON report or junit, and cannot crash a worker.
    """
    own = item.stash.get(_own_properties_key, set())

    def foreign(entry: tuple[str, object]) -> bool:
        return entry[0] in _RESERVED and id(entry[1]) not in own

    if not any(foreign(entry) for entry in report.user_properties):
        return False
    item.user_properties[:] = [entry for entry in item.user_properties if not foreign(entry)]
    report.user_properties = [entry for entry in report.user_properties if not foreign(entry)]
    return True


def gate_record(
    kind: str,
    result: GateResult | None = None,
    expected: GateStatus | None = None,
    part: str | None = None,
    *,
    group: str,
    order: int = 0,
    reason: str | None = None,
) -> str:
    """The canonical JSON carried by :data:`USER_PROPERTY`; ``result=None`` means refused input.

    ``reason`` qualifies a record without a result: :data:`MISSING_DEPENDENCY`
    when the engine could not run because an optional package is missing.

    ``group`` is the node id of the gate (or of the test) the verdict belongs
    to and ``order`` the item's position in the collection, so summaries group
    a gate's items and list them in collection order whichever worker ran them.
    """
    from pytest_openmed._canonical import canonical_json

    extra: dict[str, Any] = {}
    if result is not None and result.public_report is not None:
        extra["public_report"] = json.loads(result.public_report)
    return canonical_json(
        {
            **extra,
            "group": group,
            "order": order,
            "kind": kind,
            "part": part,
            "status": None if result is None else result.status.value,
            "expected": None if expected is None else expected.value,
            "reason": reason if result is None else result.reason,
            "metrics": {} if result is None else dict(result.metrics),
        }
    )


#: ``workeroutput`` key carrying a worker's deselected gate items to the xdist controller.
_DESELECTED_OUTPUT = "openmed_deselected_gates"

#: ``workeroutput`` key carrying a worker's ``--openmed-shard`` record to the controller.
SHARD_OUTPUT = "openmed_shard"

_ENTRY_KEYS = ("nodeid", "part", "kind", "status", "expected", "reason", "metrics", "outcome")


def _report_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    shown = {key: entry[key] for key in _ENTRY_KEYS}
    if "public_report" in entry:
        shown["public_report"] = entry["public_report"]
    return shown


def _entry_order(entry: Mapping[str, Any]) -> tuple[int, str, str]:
    """Collection order, then node id and part: the same whichever worker ran them."""
    return entry["order"], entry["nodeid"], entry["part"] or ""


class GateRecorder:
    """Collects verdicts; writes the JSON report and Markdown summary once."""

    def __init__(self, config: pytest.Config, options: RunOptions) -> None:
        self.config = config
        self.options = options
        self.entries: list[dict[str, Any]] = []
        self.items: dict[str, str] = {}
        self.applied_waivers: set[str] = set()
        self.write_failed = False
        self.deselected = 0
        self._session: pytest.Session | None = None
        self.hook_failed = False
        self.history_skipped = 0
        self.usage_error = False
        #: Usable baseline entries naming no collected gate (``None``: not counted here).
        self.baseline_unmatched: int | None = None
        self.deselected_gates: set[str] = set()
        #: Seconds spent in each node's setup, call and teardown (gate items only are reported).
        self.durations: dict[str, float] = {}
        self._started: tuple[datetime.datetime, float] | None = None
        self._commit: tuple[str | None] | None = None
        #: ``--openmed-shard``: what the shard filter recorded, and the gate items it dropped.
        self.shard_record: dict[str, Any] | None = None
        self._shard_dropped: set[str] = set()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Note the run's start (``run.timing``); write the named report as an incomplete run.

        The report path then never holds something that looks like a pass
        while the run is going, nor after a crash, ``os._exit`` or ``kill -9``:
        the end of the run replaces it atomically.
        """
        self._started = (datetime.datetime.now(datetime.UTC), time.perf_counter())
        if self.options.report_path is None or hasattr(self.config, "workerinput"):
            return
        from pytest_openmed.report.load import INCOMPLETE_KEY

        started = {INCOMPLETE_KEY: True, **self.build_report()}
        self._write(session, self.options.report_path, json.dumps(started, indent=2) + "\n")

    def note_deselected(self, nodeids: Iterable[str]) -> None:
        """Gate items that ``--openmed-only``/``--openmed-skip`` deselected (sent on by workers)."""
        self.deselected_gates.update(nodeids)
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[_DESELECTED_OUTPUT] = sorted(self.deselected_gates)

    def note_shard(self, record: dict[str, Any], dropped: set[str]) -> None:
        """The shard filter's record (sent on by workers); its drops are no deselection."""
        self.shard_record = record
        self._shard_dropped = dropped
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[SHARD_OUTPUT] = record

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A usage error found by an xdist worker during collection (see ``plugin``)."""
        if report.nodeid == USAGE_NODEID and report.failed:
            self.usage_error = True

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """An xdist worker's baseline count and deselected gate items (it collected)."""
        output = getattr(node, "workeroutput", None) or {}
        unmatched = output.get(BASELINE_OUTPUT)
        if type(unmatched) is int:
            self.baseline_unmatched = unmatched
        self.deselected_gates.update(str(nodeid) for nodeid in output.get(_DESELECTED_OUTPUT, ()))
        shard = output.get(SHARD_OUTPUT)
        if isinstance(shard, dict):
            self.shard_record = shard

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        duration = getattr(report, "duration", 0.0)
        if isinstance(duration, int | float) and duration >= 0:
            self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + duration
        if str(report.when) == "???":  # pytest-xdist: its worker crashed running this item
            self._crashed(report)
            return
        if not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        outcome = "error" if report.when == "setup" and report.failed else report.outcome
        if hasattr(report, "wasxfail"):
            self.applied_waivers.add(report.nodeid)
        raw_records = [value for name, value in report.user_properties if name == USER_PROPERTY]
        kinds = [value for name, value in report.user_properties if name == MARKER_PROPERTY]
        if not raw_records and kinds:
            # No engine verdict: listed after the gates, by node id.
            raw_records = [gate_record(str(kinds[0]), group=report.nodeid, order=1 << 62)]
        if raw_records:
            self.items[report.nodeid] = item_outcome(report)
        for raw in raw_records:
            entry = json.loads(str(raw))
            entry["nodeid"] = report.nodeid
            entry["outcome"] = outcome
            self.entries.append(entry)

    def _crashed(self, report: pytest.TestReport) -> None:
        """A declared gate's item that took its worker down (``os._exit``) is in the report.

        Listed after the gates that ran, with no status and the reason
        :data:`CRASHED`: the run failed, and the report says where.
        """
        found = _GATE_ITEM_ID.fullmatch(report.nodeid)
        if found is None or report.nodeid in self.items:
            return
        group = report.nodeid.rpartition("::")[0]
        entry = json.loads(gate_record(found.group(1), group=group, order=1 << 61, reason=CRASHED))
        entry["nodeid"] = report.nodeid
        entry["outcome"] = "failed"
        self.items[report.nodeid] = "failed"  # as pytest counts a crashed item
        self.entries.append(entry)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += sum(1 for item in items if item.nodeid not in self._shard_dropped)

    def build_report(self, exitstatus: int | None = None) -> dict[str, Any]:
        """The JSON gate report (schema: ``schemas/gate-report.schema.json``)."""
        from pytest_openmed.report.merge import gate_counts  # not at load: the plugin stays cheap

        gates = sorted(self.entries, key=_entry_order)
        outcomes, statuses = gate_counts(gates)
        items = dict.fromkeys(ITEM_OUTCOMES, 0)
        for category in self.items.values():
            items[category] += 1
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "generator": {"name": "pytest-openmed", "version": __version__},
            "non_diagnostic": True,
            "run": self._run_metadata(exitstatus),
            "summary": {
                "gates": len(gates),
                "outcomes": outcomes,
                "statuses": statuses,
                "items": items,
            },
            "gates": [_report_entry(entry) for entry in gates],
            "waivers": [
                waiver.to_dict(applied=waiver.gate in self.applied_waivers)
                for waiver in self.options.waivers
            ],
            "extensions": {},
            **self._selection_and_overrides(),
        }

    def _selection_and_overrides(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.options.max_rate is not None:
            extra["overrides"] = {"max_unsupported_rate": self.options.max_rate}
        if self.options.gate_selection is not None:
            extra["deselected_gates"] = sorted(self.deselected_gates)
        return extra

    def _run_metadata(self, exitstatus: int | None) -> dict[str, Any]:
        """How the run went and what it ran with: enough to tell a partial run from a full one.

        Booleans and counts only: a ``-k`` expression may name tests.
        """
        option = self.config.option
        session = self._session
        keyword = bool(getattr(option, "keyword", ""))
        markexpr = bool(getattr(option, "markexpr", ""))
        last_failed = bool(getattr(option, "lf", False))
        stopped = bool(session is not None and (session.shouldstop or session.shouldfail))
        partial = keyword or markexpr or last_failed or stopped or self.deselected > 0
        shard = self._shard()
        return {
            **({} if shard is None else {"shard": shard}),
            "exit_status": None if exitstatus is None else int(exitstatus),
            "partial_selection": partial or shard is not None,
            "keyword_selection": keyword,
            "marker_selection": markexpr,
            "last_failed": last_failed,
            "deselected": self.deselected,
            "stopped_early": stopped,
            "seed": self.options.seed,
            "resamples": self.options.resamples,
            "timing": self._timing(),
            "environment": self._environment(),
            **(
                {"comparison": self.options.baseline.comparison()}
                if self.options.baseline is not None
                else {}
            ),
        }

    def _shard(self) -> dict[str, Any] | None:
        """``run.shard``: which share of the gates this run is, and what proves it belongs."""
        if self.options.shard is None:
            return None
        record = self.shard_record or {}  # the shard filter gives one before collection
        positions = {
            entry["nodeid"]: {"position": entry["order"], "gate": entry["group"]}
            for entry in self.entries
        }
        return {**record, "positions": dict(sorted(positions.items()))}

    def _timing(self) -> dict[str, Any]:
        """When the run started (UTC), how long it took, and the seconds each gate took.

        A gate's time is the sum of its items' setup, call and teardown (its
        one evaluation happens in the first item's setup).
        """
        from pytest_openmed.report.provenance import utc_stamp

        started, clock = self._started or (datetime.datetime.now(datetime.UTC), None)
        gates: dict[str, float] = {}
        for nodeid, entry in {entry["nodeid"]: entry for entry in self.entries}.items():
            group = entry["group"]
            gates[group] = gates.get(group, 0.0) + self.durations.get(nodeid, 0.0)
        return {
            "started": utc_stamp(started),
            "duration": None if clock is None else round(time.perf_counter() - clock, 6),
            "gates": {group: round(seconds, 6) for group, seconds in sorted(gates.items())},
        }

    def _environment(self) -> dict[str, Any]:
        """Versions, platform and commit (read once per run, without a network)."""
        from pytest_openmed.report.provenance import environment, read_commit

        if self._commit is None:
            self._commit = (read_commit(self.config.rootpath, os.environ),)
        return environment(pytest.__version__, self._commit[0])

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(self.config, "workerinput"):
            if self.baseline_unmatched is not None:
                self.config.workeroutput[BASELINE_OUTPUT] = self.baseline_unmatched  # type: ignore[attr-defined]
            return
        if self.usage_error:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        self._session = session
        options = self.options
        shard = self.shard_record
        if (
            shard is not None
            and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
            and not shard["gates"]
            and shard["collected"]["gates"]
        ):
            # The run has gates and none fell to this shard: its share is done, not missing.
            session.exitstatus = pytest.ExitCode.OK
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY") if options.step_summary else None
        files = (options.report_path, options.markdown_path, options.html_path, options.sarif_path)
        if all(path is None for path in files) and options.history_dir is None:
            if not step_summary or not self.entries:
                return
        report = self.build_report(session.exitstatus)
        if options.report_path is not None:
            text = self._amended(report)
            if text is None:
                self.hook_failed = True
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
                with contextlib.suppress(OSError):  # kept, the run-start report says incomplete
                    options.report_path.unlink(missing_ok=True)
            else:
                self._write(session, options.report_path, text)
        if not self.hook_failed and (
            options.history_dir is not None or options.html_path is not None
        ):
            self._history_and_html(session, report)
        from pytest_openmed.report.summary import render_markdown

        markdown = render_markdown(report)
        if options.markdown_path is not None:
            self._write(session, options.markdown_path, markdown)
        if options.sarif_path is not None:
            from pytest_openmed.report.sarif import sarif_document

            sarif = sarif_document(report, self.config.rootpath)
            self._write(session, options.sarif_path, json.dumps(sarif, indent=2) + "\n")
        if step_summary and self.entries:
            try:
                with Path(step_summary).open("a", encoding="utf-8") as handle:
                    handle.write(markdown)
            except OSError:
                self._write_failed(session)

    def _history_and_html(self, session: pytest.Session, report: dict[str, Any]) -> None:
        """Store the run when asked, then render the HTML with the stored runs as its trend."""
        import datetime

        from pytest_openmed.report.history import load_trends, store_run
        from pytest_openmed.report.html import TREND_RUNS, render_html

        options = self.options
        history: list[StoredRun] = []
        # A shard is a share of a run: the merged run is stored (openmed-report merge --history).
        if options.history_dir is not None and options.shard is None:
            try:
                store_run(
                    options.history_dir,
                    json.dumps(report, indent=2, sort_keys=True) + "\n",
                    keep=options.history_keep,
                    now=datetime.datetime.now(datetime.UTC),
                    environ=os.environ,
                    report=report,
                )
            except OSError:
                self._write_failed(session)
        if options.history_dir is not None and options.html_path is not None:
            history, self.history_skipped = load_trends(options.history_dir, TREND_RUNS)
        if options.html_path is not None:
            self._write(session, options.html_path, render_html(report, history))

    def _amended(self, report: dict[str, Any]) -> str | None:
        """The report text after ``pytest_openmed_report`` ran; ``None`` if it broke the report.

        Implementations may add JSON data under ``extensions``; the result must
        serialise as strict JSON and still validate against the shipped schema.
        """
        self.config.hook.pytest_openmed_report(config=self.config, report=report)
        try:
            text = json.dumps(report, indent=2, sort_keys=True, allow_nan=False) + "\n"
        except (TypeError, ValueError, RecursionError):
            return None
        import jsonschema

        from pytest_openmed.schemas import load_schema

        try:
            validator = jsonschema.Draft202012Validator(load_schema("gate-report"))
            valid = validator.is_valid(json.loads(text))
        except RecursionError:
            valid = False
        return text if valid else None

    def _write_failed(self, session: pytest.Session) -> None:
        """A requested output could not be written: exit :data:`WRITE_FAILED_EXIT`."""
        self.write_failed = True
        session.exitstatus = WRITE_FAILED_EXIT

    def _write(self, session: pytest.Session, path: Path, text: str) -> None:
        from pytest_openmed._canonical import atomic_write_text

        try:
            atomic_write_text(path, text)
        except OSError:
            self._write_failed(session)

    def pytest_terminal_summary(self, terminalreporter: TerminalReporter) -> None:
        try:
            self._summary(terminalreporter)
        except Exception:  # a summary must never turn a verdict into a traceback
            terminalreporter.write_line("openmed: gate summary unavailable")

    def _baseline_line(self, terminalreporter: TerminalReporter) -> None:
        baseline = self.options.baseline
        if baseline is None or (not self.baseline_unmatched and not baseline.malformed):
            return
        terminalreporter.write_line(
            f"openmed: baseline: {self.baseline_unmatched or 0} of {len(baseline.intervals)} "
            f"entries match no collected gate; {baseline.malformed} malformed entries ignored",
            yellow=True,
        )

    def _summary(self, terminalreporter: TerminalReporter) -> None:
        if hasattr(self.config, "workerinput"):
            return
        if self.write_failed:
            terminalreporter.write_line(
                "openmed: could not write a requested gate output file (OPENMED-REPORT-WRITE)",
                red=True,
            )
        if self.hook_failed:
            terminalreporter.write_line(REPORT_HOOK_TEXT, red=True)
        if self.history_skipped:
            terminalreporter.write_line(
                "openmed: stored runs left out of the HTML trend (not valid gate reports): "
                f"{self.history_skipped}",
                yellow=True,
            )
        self._baseline_line(terminalreporter)
        if not self.entries:
            return
        from pytest_openmed.report.summary import outcome_counts, terminal_lines, verdict_breakdown

        report = self.build_report()
        terminalreporter.section("openmed gates")
        if self.options.controls:
            terminalreporter.write_line(
                "Development controls on synthetic data: each control passes when its engine "
                "reaches the documented outcome (docs/controls.md); simulated reviews are "
                "labelled development_simulation."
            )
        for line, colour in terminal_lines(sorted(self.entries, key=_entry_order), self.items):
            terminalreporter.write_line(line, **{colour: True})
        for line in self.config.stash.get(recordings_key, []):
            terminalreporter.write_line(f"RECORDED {line}")
        for waiver in report["waivers"]:
            if waiver["applied"]:
                terminalreporter.write_line(
                    f"WAIVED  {waiver['gate']} until {waiver['expires']} "
                    f"(ref {waiver['reference']})",
                    yellow=True,
                )
            else:
                terminalreporter.write_line(
                    f"UNUSED  waiver for {waiver['gate']} (ref {waiver['reference']}): "
                    "the gate did not fail in this run; remove the waiver once it is stale",
                    yellow=True,
                )
        if os.environ.get("GITHUB_ACTIONS") == "true":
            from pytest_openmed.report.sarif import annotation_lines

            # Workflow commands: GitHub turns each into an annotation on the gate's file.
            for line in annotation_lines(report, self.config.rootpath):
                terminalreporter.write_line(line)
        summary = report["summary"]
        verdicts = verdict_breakdown(report)
        terminalreporter.write_line(
            f"openmed: {plural(len(self.items), 'gate item')}: "
            f"{outcome_counts(summary['items'])}; {plural(summary['gates'], 'verdict')}: "
            + ", ".join(f"{count} {name}" for name, count in verdicts.items() if count)
            + ". Non-diagnostic evaluation evidence."
        )
