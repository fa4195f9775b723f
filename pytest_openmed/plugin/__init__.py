"""pytest hooks of pytest-openmed: options, markers, collection, fixtures, report.

This module is imported on every pytest run that has the plugin installed,
so it stays cheap: it imports no engine and no heavy dependency.  Engines load
when a gate item runs or a fixture is used.

Gate verdicts travel on the test report as a user property, so they reach the
pytest-xdist controller with every other report field; the controller alone
aggregates them, prints the summary and writes the report
(:mod:`pytest_openmed.plugin.recorder`).
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_openmed._validate import DEFAULT_RESAMPLES, MAX_RESAMPLES, MIN_CELL
from pytest_openmed.errors import plural
from pytest_openmed.plugin.fixtures import (
    claim_scorer,
    development_pack,
    evaluator_key,
    qualify_planner,
    simulated_reviewers,
)
from pytest_openmed.plugin.markers import (
    MarkerError,
    claims_marker,
    gate_marker_kind,
    planner_marker,
)
from pytest_openmed.plugin.mcp_fixture import qualify_mcp_agent
from pytest_openmed.plugin.options import (
    cli_type,
    parse_env_name,
    parse_history_keep,
    parse_min_cell,
    parse_planner_ref,
    parse_rate,
    parse_required,
    parse_resamples,
    parse_seed,
    parse_shard,
    parse_trials,
    resolve_run_options,
    run_options_key,
)
from pytest_openmed.plugin.pack_fixture import assess_pack
from pytest_openmed.plugin.recorder import (
    GATE_FILE_SUFFIX,
    MARKER_PROPERTY,
    RESERVED_PROPERTY_TEXT,
    USAGE_NODEID,
    GateRecorder,
    attach_property,
    drop_foreign_properties,
)
from pytest_openmed.report.history import DEFAULT_KEEP

if TYPE_CHECKING:
    from pytest_openmed.plugin.items import GateFile
    from pytest_openmed.plugin.waivers import Waiver
    from pytest_openmed.report.baseline import Baseline


__all__ = [
    "assess_pack",
    "claim_scorer",
    "development_pack",
    "evaluator_key",
    "qualify_mcp_agent",
    "qualify_planner",
    "simulated_reviewers",
]

_recorder_key = pytest.StashKey[GateRecorder]()
_gate_files_key = pytest.StashKey[set[Path]]()
_waived_key = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("openmed", "openmed release gates (non-diagnostic evaluation evidence)")
    group.addoption(
        "--openmed-planner",
        action="append",
        default=[],
        dest="openmed_planners",
        metavar="MOD:ATTR",
        type=cli_type(parse_planner_ref),
        help="collect a qualification gate for this planner callable (repeatable).",
    )
    group.addoption(
        "--openmed-require",
        action="append",
        default=[],
        dest="openmed_require",
        metavar="N|GATE",
        type=cli_type(parse_required),
        help="fail the run (exit 4) unless at least N gates, or the gate named GATE "
        "(claims(name) or a node id), are collected (repeatable).",
    )
    group.addoption(
        "--openmed-isolate",
        action="store_true",
        default=False,
        dest="openmed_isolate",
        help="qualify planners (gates without a dialect) in a child process: a crash or "
        "exit there is a planner error of that gate, not the end of the run.",
    )
    parser.addini(
        "openmed_isolate",
        "qualify planners in a child process (see --openmed-isolate).",
        type="bool",
        default=False,
    )
    group.addoption(
        "--openmed-controls",
        action="store_true",
        default=False,
        dest="openmed_controls",
        help="run only the built-in development control gates (synthetic data; each "
        "control passes when its engine reaches the documented outcome).",
    )
    group.addoption(
        "--openmed-record",
        action="store_true",
        default=False,
        dest="openmed_record",
        help="planner gates with a cassette call their model live and rewrite the cassette "
        "(without it they replay the cassette and never call the model).",
    )
    _path_option(parser, group, "report", "write the aggregate JSON gate report to PATH.")
    _path_option(
        parser, group, "markdown", "write a compact Markdown summary of all gates to PATH."
    )
    _path_option(
        parser,
        group,
        "baseline",
        "fail claims gates whose interval lies above this earlier report's.",
    )
    _path_option(parser, group, "waivers", "TOML file of bounded waivers for known gate failures.")
    _path_option(
        parser, group, "html", "write a self-contained HTML gate report (from the JSON) to PATH."
    )
    _path_option(
        parser,
        group,
        "sarif",
        "write a SARIF 2.1.0 log of failing gate verdicts (for code scanning) to PATH.",
    )
    _path_option(
        parser,
        group,
        "history",
        "store this run's gate report in directory PATH under a time-sortable name.",
    )
    group.addoption(
        "--openmed-compare",
        dest="openmed_compare",
        nargs="?",
        const="latest",
        default=None,
        metavar="REF",
        help="use the newest stored run of --openmed-history (or the one named REF) as the "
        "baseline.",
    )
    group.addoption(
        "--openmed-only",
        action="store_true",
        default=False,
        dest="openmed_only",
        help="run only gate items (deselect every other test).",
    )
    group.addoption(
        "--openmed-skip",
        action="store_true",
        default=False,
        dest="openmed_skip",
        help="deselect gate items (reported as deselected); run every other test.",
    )
    group.addoption(
        "--openmed-no-step-summary",
        action="store_true",
        default=False,
        dest="openmed_no_step_summary",
        help="do not append the Markdown summary to $GITHUB_STEP_SUMMARY.",
    )
    for name, parse, text in (
        ("seed", parse_seed, "default bootstrap seed (default 0)."),
        (
            "resamples",
            parse_resamples,
            f"default bootstrap resamples (default {DEFAULT_RESAMPLES}, at most {MAX_RESAMPLES}).",
        ),
        (
            "min-cell",
            parse_min_cell,
            f"publication cell size for multimodal reports (default {MIN_CELL}, min {MIN_CELL}).",
        ),
        (
            "key-env",
            parse_env_name,
            "environment variable holding the evaluator key for pack gates.",
        ),
        (
            "max-rate",
            parse_rate,
            "max_unsupported_rate of every claims gate that sets none (0 to 1).",
        ),
        (
            "history-keep",
            parse_history_keep,
            f"stored runs kept in the history directory (default {DEFAULT_KEEP}).",
        ),
        (
            "shard",
            parse_shard,
            "run only the gates of shard I of N (1-based, e.g. 2/4; ordinary tests all run).",
        ),
        (
            "trials",
            parse_trials,
            "independent conversations per scenario of each --openmed-planner gate (default 1).",
        ),
    ):
        dest = "openmed_" + name.replace("-", "_")
        group.addoption(
            f"--openmed-{name}",
            dest=dest,
            type=cli_type(parse),
            default=None,
            help=text,
            metavar={"key-env": "NAME", "max-rate": "RATE", "shard": "I/N"}.get(name, "N"),
        )
        parser.addini(dest, text, type="string", default="")
    parser.addini(
        "openmed_planners", "planner callables MOD:ATTR to qualify, one per line.", type="linelist"
    )
    parser.addini(
        "openmed_require",
        "gates that must be collected: a minimum count, or gate names, one per line.",
        type="linelist",
    )
    parser.addini(
        "openmed_step_summary",
        "append the Markdown summary to $GITHUB_STEP_SUMMARY.",
        type="bool",
        default=True,
    )


def _path_option(parser: pytest.Parser, group: pytest.OptionGroup, name: str, text: str) -> None:
    dest = f"openmed_{name}"
    group.addoption(f"--openmed-{name}", dest=dest, metavar="PATH", default=None, help=text)
    parser.addini(dest, text, type="string", default="")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_openmed.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "openmed_gate(kind): tag this test as an openmed release gate in the gate report.",
    )
    config.addinivalue_line(
        "markers",
        "openmed_claims(max_unsupported_rate=None, max_upper=None, classes=None, seed=None, "
        "resamples=None): thresholds that the claim_scorer fixture enforces.",
    )
    config.addinivalue_line(
        "markers",
        "openmed_planner(trials=None, max_critical_rate=None, confidence=None): trials and the "
        "rate threshold that the qualify_planner fixture judges (docs/evidence.md).",
    )
    options = resolve_run_options(config)
    config.stash[run_options_key] = options
    recorder = GateRecorder(config, options)
    config.stash[_recorder_key] = recorder
    config.pluginmanager.register(recorder, "openmed-recorder")
    if options.shard is not None:
        from pytest_openmed.plugin.shard import ShardFilter

        config.pluginmanager.register(ShardFilter(config, options, recorder), "openmed-shard")


def pytest_unconfigure(config: pytest.Config) -> None:
    shard = config.pluginmanager.get_plugin("openmed-shard")
    if shard is not None:
        config.pluginmanager.unregister(shard)
    recorder = config.stash.get(_recorder_key, None)
    if recorder is not None:
        del config.stash[_recorder_key]
        config.pluginmanager.unregister(recorder)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GateFile | None:
    if file_path.name.endswith(GATE_FILE_SUFFIX):
        from pytest_openmed.plugin.items import GateFile

        return GateFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> None:
    """Note each gate file actually collected (pytest also builds, unused, those it passes by)."""
    if isinstance(collector, pytest.File) and collector.path.name.endswith(GATE_FILE_SUFFIX):
        collector.config.stash.setdefault(_gate_files_key, set()).add(collector.path)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A control run collects the built-in controls and nothing from disk."""
    if config.stash[run_options_key].controls:
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add option-driven gates, tag marked tests, apply waivers — before ``-k``/``--lf`` select."""
    options = config.stash[run_options_key]
    if options.planners or options.controls:
        _collect_option_gates(session, options.planners, options.controls, items, options.trials)
    for item in items:
        marker = item.get_closest_marker("openmed_gate")
        if marker is not None:
            try:
                kind = gate_marker_kind(marker)
            except MarkerError:
                kind = "custom"  # setup fails the test with the marker's message
            attach_property(item, MARKER_PROPERTY, kind)
    if not options.controls:
        _warn_stray_gate_files(session, items)
    if options.required and not options.controls:
        _check_required(session, options.required, items)
    if options.baseline is not None:
        _check_baseline(session, options.baseline, items)
    if options.waivers:
        _apply_waivers(session, options.waivers, items)
    if options.gate_selection is not None:
        _select_gates(config, options.gate_selection, items)


def _is_gate_item(item: pytest.Item) -> bool:
    """A declared gate's item, a test tagged ``openmed_gate``, or one using a gate fixture."""
    from pytest_openmed.plugin.items import is_gate_item

    return is_gate_item(item)


def _select_gates(config: pytest.Config, selection: str, items: list[pytest.Item]) -> None:
    """``--openmed-only`` keeps gate items, ``--openmed-skip`` deselects them (and says which)."""
    keep_gates = selection == "only"
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (kept if _is_gate_item(item) == keep_gates else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    recorder = config.stash[_recorder_key]
    recorder.note_deselected(item.nodeid for item in dropped if _is_gate_item(item))


def _collect_option_gates(
    session: pytest.Session,
    planners: tuple[str, ...],
    controls: bool,
    items: list[pytest.Item],
    trials: int | None = None,
) -> None:
    from pytest_openmed.contract import ArgumentSource, GateSpec
    from pytest_openmed.planner.declaration import declare
    from pytest_openmed.plugin.items import Gate

    specs = [
        GateSpec(
            "planner",
            reference,
            declare({"planner": reference, "trials": trials}, ArgumentSource()),
        )
        for reference in planners
    ]
    if controls:
        from pytest_openmed.development.control_run import control_specs

        specs.extend(control_specs())
    for spec in specs:
        gate = Gate.from_parent(session, name=spec.label, nodeid=spec.label, spec=spec)
        report = session.ihook.pytest_make_collect_report(collector=gate)
        session.ihook.pytest_collectreport(report=report)
        if report.passed:
            items.extend(node for node in report.result if isinstance(node, pytest.Item))


def _refuse_collection(session: pytest.Session, items: list[pytest.Item], message: str) -> None:
    """A usage error found in the collected items: exit 4, serial or under xdist.

    Serially it is raised.  An xdist worker cannot raise it (the worker would
    crash and the run could even exit 0), so it reports a failed collection
    of :data:`USAGE_NODEID` that the controller's recorder turns into exit 4,
    and runs nothing.  After a collection error it is not raised: that error
    already fails the run, and it is likely why nothing matched.
    """
    if session.testsfailed:
        return
    if not hasattr(session.config, "workerinput"):
        raise pytest.UsageError(message)
    report = pytest.CollectReport(USAGE_NODEID, "failed", message, [])
    session.ihook.pytest_collectreport(report=report)
    items.clear()


def _warn_stray_gate_files(session: pytest.Session, items: list[pytest.Item]) -> None:
    """Warn about gate files that collected nothing.

    Under xdist the first worker warns; the others keep their warnings to
    themselves, but still refuse the run where a warning is an error, so
    every worker collects the same (empty) items.
    """
    import warnings

    from pytest_openmed.plugin.stray_gates import warn_stray_gate_files

    worker: dict[str, object] = getattr(session.config, "workerinput", None) or {}
    quiet = bool(worker) and worker.get("workerid") != "gw0"
    try:
        with warnings.catch_warnings(record=quiet):
            collected = session.config.stash.get(_gate_files_key, set())
            warn_stray_gate_files(session.config, collected, GATE_FILE_SUFFIX)
    except pytest.PytestConfigWarning as error:  # ``-W error``: the warning fails the run
        _refuse_collection(session, items, str(error))


def _gate_groups(items: list[pytest.Item]) -> set[str]:
    """Node ids of the collected gates: declared gates, and tests that are gates themselves."""
    from pytest_openmed.plugin.items import GateItem

    return {
        item.parent.nodeid if isinstance(item, GateItem) else item.nodeid
        for item in items
        if _is_gate_item(item)
    }


def _check_required(
    session: pytest.Session, required: tuple[int | str, ...], items: list[pytest.Item]
) -> None:
    """A gate that must run but was not collected (misnamed file, outside testpaths): exit 4.

    Checked before ``-k``, ``--lf`` and ``--openmed-skip`` deselect anything: a
    deliberate deselection is reported as a partial selection, not refused.
    """
    gates = _gate_groups(items)
    for position, entry in enumerate(required, start=1):
        if isinstance(entry, int):
            if len(gates) < entry:
                _refuse_collection(
                    session,
                    items,
                    f"openmed: {plural(len(gates), 'gate')} collected, fewer than the {entry} "
                    "required by openmed_require: a gate file may be misnamed (not "
                    "*.openmed.toml) or outside the collected paths (OPENMED-GATE-MISSING)",
                )
                return
        elif not any(gate == entry or gate.endswith("::" + entry) for gate in gates):
            _refuse_collection(
                session,
                items,
                f"openmed: required gate #{position} of openmed_require was not collected: "
                "its gate file may be misnamed (not *.openmed.toml) or outside the collected "
                "paths (OPENMED-GATE-MISSING)",
            )
            return


def _check_baseline(session: pytest.Session, baseline: Baseline, items: list[pytest.Item]) -> None:
    """Count baseline entries naming no collected gate; refuse a baseline that matches none."""
    unmatched = baseline.unmatched(item.nodeid for item in items)
    session.config.stash[_recorder_key].baseline_unmatched = unmatched
    if unmatched == len(baseline.intervals):
        _refuse_collection(
            session,
            items,
            f"openmed: the baseline matches no collected claims gate ({unmatched} usable, "
            f"{baseline.malformed} malformed entries): node ids are relative to the rootdir, "
            "so run from the same rootdir as the baseline run (OPENMED-BASELINE-UNMATCHED)",
        )


def _apply_waivers(
    session: pytest.Session, waivers: tuple[Waiver, ...], items: list[pytest.Item]
) -> None:
    from pytest_openmed.plugin.items import GateFailed
    from pytest_openmed.plugin.waivers import unmatched_waivers

    unmatched = unmatched_waivers(waivers, (item.nodeid for item in items))
    if unmatched:
        _refuse_collection(
            session,
            items,
            f"openmed: waiver #{unmatched[0]} names no collected gate; "
            "remove it or correct its node id",
        )
        return
    by_gate = {waiver.gate: waiver for waiver in waivers}
    for item in items:
        waiver = by_gate.get(item.nodeid)
        if waiver is not None:
            reason = f"waived until {waiver.expires.isoformat()} (ref {waiver.reference})"
            item.stash[_waived_key] = reason
            item.add_marker(pytest.mark.xfail(reason=reason, raises=GateFailed, strict=False))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Marker mistakes are one-line errors of the test, before any fixture runs."""
    try:
        gate = item.get_closest_marker("openmed_gate")
        if gate is not None:
            gate_marker_kind(gate)
        claims = item.get_closest_marker("openmed_claims")
        if claims is not None:
            claims_marker(claims)
        planner_marker(item.get_closest_marker("openmed_planner"))
    except MarkerError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Guard the report before it leaves this process (xdist serialises it next).

    A reserved user property the plugin did not set fails the test and is
    dropped.  A waived gate that passed is a plain pass, not ``XPASS``: its
    waiver is reported as unused (``applied: false``).  Gate exceptions show
    as their text (no class path); a refusal raised inside a test is an error
    of it, and so is a package function called without its extra.
    """
    report = yield
    if drop_foreign_properties(item, report) and not report.failed:
        report.outcome = "failed"
        report.longrepr = RESERVED_PROPERTY_TEXT
    reason = item.stash.get(_waived_key, None)
    if reason is not None and report.passed and getattr(report, "wasxfail", None) == reason:
        del report.wasxfail
    items = sys.modules.get("pytest_openmed.plugin.items")  # not loaded: no gate exception exists
    if items is not None and call.excinfo is not None:
        error = call.excinfo.value
        if isinstance(error, items.GateFailed | items.GateInputError):
            items.plain_outcome(report, error)
    if call.excinfo is not None and isinstance(call.excinfo.value, ImportError):
        from pytest_openmed.plugin.items import missing_extra_outcome

        missing_extra_outcome(report, call.excinfo)
    return report
