"""pytest hooks of pytest-openmed: options, gate collection, fixtures, summary, report.

PYTEST_DONT_REWRITE

This module is imported on every pytest run that has the plugin installed, so
it stays cheap: it imports no engine and no heavy dependency.  Engines load
when a gate item runs or a fixture is used.

Gate verdicts travel on the test report as a user property (name
:data:`USER_PROPERTY`, value canonical JSON), so they reach the pytest-xdist
controller with every other report field; the controller alone aggregates
them, prints the summary and writes the report.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_openmed import __version__
from pytest_openmed._canonical import atomic_write_text, canonical_json
from pytest_openmed.gatefile import (
    CLAIM_CLASS_PATTERN,
    GateFileError,
    GateSettings,
    GateSpec,
    evaluator_for,
    parse_gate_file,
    planner_spec,
)
from pytest_openmed.gates import GATE_KINDS, GateResult, GateStatus

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

    from pytest_openmed.claims import UnsupportedClaimsReport
    from pytest_openmed.planner import PlannerQualificationReport

__all__ = ["REPORT_SCHEMA_VERSION", "USER_PROPERTY"]

#: Version of the JSON report's shape; independent of the package version.
REPORT_SCHEMA_VERSION = "1.0"

#: Name of the user property that carries one gate verdict on a test report.
USER_PROPERTY = "openmed_gate"
_MARKER_PROPERTY = "openmed_gate_kind"

GATE_FILE_SUFFIX = ".openmed.toml"

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")

settings_key = pytest.StashKey[GateSettings]()
planners_key = pytest.StashKey["tuple[str, ...]"]()
recorder_key = pytest.StashKey["GateRecorder"]()
controls_key = pytest.StashKey[bool]()


# --------------------------------------------------------------------------- options


def _int_in(low: int, high: int, what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise ValueError(f"{what} must be a whole number from {low} to {high}") from None
        if not low <= value <= high:
            raise ValueError(f"{what} must be a whole number from {low} to {high}")
        return value

    parse.__name__ = what  # argparse names the option type in its message
    return parse


_parse_seed = _int_in(0, 2**63 - 1, "seed")
_parse_resamples = _int_in(1, 100_000, "resamples")
_parse_min_cell = _int_in(5, 1_000_000, "min_cell")


def _parse_env_name(text: str) -> str:
    if not _ENV_NAME.fullmatch(text):
        raise ValueError("must be an environment variable name")
    return text


def _parse_planner_ref(text: str) -> str:
    return planner_spec(text).options["planner"]  # type: ignore[no-any-return]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("openmed", "openmed release gates (non-diagnostic evaluation evidence)")
    group.addoption(
        "--openmed-planner",
        action="append",
        default=[],
        dest="openmed_planners",
        metavar="MOD:ATTR",
        type=_parse_planner_ref,
        help="collect a qualification gate for this planner callable (repeatable).",
    )
    group.addoption(
        "--openmed-report",
        dest="openmed_report",
        metavar="PATH",
        default=None,
        help="write the aggregate JSON gate report to PATH.",
    )
    group.addoption(
        "--openmed-seed",
        dest="openmed_seed",
        metavar="N",
        type=_parse_seed,
        default=None,
        help="default bootstrap seed (default 0).",
    )
    group.addoption(
        "--openmed-resamples",
        dest="openmed_resamples",
        metavar="N",
        type=_parse_resamples,
        default=None,
        help="default bootstrap resamples (default 1000, at most 100000).",
    )
    group.addoption(
        "--openmed-min-cell",
        dest="openmed_min_cell",
        metavar="N",
        type=_parse_min_cell,
        default=None,
        help="publication cell size for multimodal reports (default 5, never below 5).",
    )
    group.addoption(
        "--openmed-key-env",
        dest="openmed_key_env",
        metavar="NAME",
        type=_parse_env_name,
        default=None,
        help="environment variable that holds the evaluator key for pack gates.",
    )
    group.addoption(
        "--openmed-controls",
        action="store_true",
        default=False,
        dest="openmed_controls",
        help="run only the built-in development control gates (synthetic data; "
        "each control passes when its engine reaches the documented outcome).",
    )
    parser.addini(
        "openmed_planners", "planner callables MOD:ATTR to qualify, one per line.", type="linelist"
    )
    parser.addini(
        "openmed_report", "path of the aggregate JSON gate report.", type="string", default=""
    )
    parser.addini("openmed_seed", "default bootstrap seed.", type="string", default="")
    parser.addini("openmed_resamples", "default bootstrap resamples.", type="string", default="")
    parser.addini(
        "openmed_min_cell",
        "publication cell size for multimodal reports.",
        type="string",
        default="",
    )
    parser.addini(
        "openmed_key_env",
        "environment variable holding the evaluator key.",
        type="string",
        default="",
    )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_openmed import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def _resolve(
    config: pytest.Config, dest: str, ini: str, parse: Callable[[str], Any], default: Any
) -> Any:
    """CLI wins over ini, ini over the default; ini values get the CLI's validation."""
    value = config.getoption(dest)
    if value is not None:
        return value
    text = str(config.getini(ini)).strip()
    if not text:
        return default
    try:
        return parse(text)
    except ValueError as error:
        raise pytest.UsageError(f"ini option {ini}: {error}") from None


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
    config.stash[settings_key] = GateSettings(
        seed=_resolve(config, "openmed_seed", "openmed_seed", _parse_seed, 0),
        resamples=_resolve(
            config, "openmed_resamples", "openmed_resamples", _parse_resamples, 1000
        ),
        min_cell=_resolve(config, "openmed_min_cell", "openmed_min_cell", _parse_min_cell, 5),
        key_env=_resolve(config, "openmed_key_env", "openmed_key_env", _parse_env_name, None),
    )
    cli_report = config.getoption("openmed_report")
    ini_report = str(config.getini("openmed_report")).strip()
    report_path: Path | None = None
    if cli_report:
        report_path = Path(cli_report).absolute()
    elif ini_report:
        report_path = (config.inipath.parent if config.inipath else config.rootpath) / ini_report
    planners: list[str] = list(config.getoption("openmed_planners"))
    if not planners:
        for line in config.getini("openmed_planners"):
            try:
                planners.append(_parse_planner_ref(str(line)))
            except ValueError as error:
                raise pytest.UsageError(f"ini option openmed_planners: {error}") from None
    config.stash[planners_key] = tuple(dict.fromkeys(planners))
    config.stash[controls_key] = bool(config.getoption("openmed_controls"))
    recorder = GateRecorder(config, report_path)
    config.stash[recorder_key] = recorder
    config.pluginmanager.register(recorder, "openmed-recorder")


def pytest_unconfigure(config: pytest.Config) -> None:
    recorder = config.stash.get(recorder_key, None)
    if recorder is not None:
        del config.stash[recorder_key]
        config.pluginmanager.unregister(recorder)


# --------------------------------------------------------------------------- gate items


class GateFailed(Exception):
    """A gate reached a status other than the one it must reach."""

    def __init__(self, result: GateResult, expected: GateStatus) -> None:
        super().__init__(result.failure_text())
        self.result = result
        self.expected = expected


class GateInputError(Exception):
    """A gate's inputs were refused; the message is fixed and value-free."""


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GateFile | None:
    if file_path.name.endswith(GATE_FILE_SUFFIX):
        return GateFile.from_parent(parent, path=file_path)
    return None


class GateFile(pytest.File):
    """A ``*.openmed.toml`` file: one :class:`Gate` per declared gate."""

    def collect(self) -> Iterator[Gate]:
        try:
            specs = parse_gate_file(self.path)
        except GateFileError as error:
            raise self.CollectError(f"openmed gate file error: {error}") from None
        for spec in specs:
            yield Gate.from_parent(self, name=spec.label, spec=spec)


class Gate(pytest.Collector):
    """One declared gate; evaluates its engine once and hands verdicts to its items."""

    def __init__(self, *, spec: GateSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self._evaluation: Mapping[str, GateResult] | GateInputError | None = None

    def collect(self) -> Iterator[GateItem]:
        if self.spec.kind == "planner":
            # Import the planner now, once: an unimportable planner is a
            # collection error, not six failing items.
            from pytest_openmed.planner.gate import load_planner

            try:
                load_planner(self.spec.options["planner"])
            except ValueError:
                raise self.CollectError(
                    f"openmed: planner of gate {self.spec.label} could not be imported "
                    "or is not callable (OPENMED-PLANNER-IMPORT)"
                ) from None
        for item in self.spec.items:
            yield GateItem.from_parent(self, name=item)

    def evaluation(self) -> Mapping[str, GateResult]:
        if self._evaluation is None:
            settings = self.config.stash[settings_key]
            try:
                self._evaluation = evaluator_for(self.spec)(self.spec, settings)
            except (ValueError, TypeError, OSError) as error:
                self._evaluation = GateInputError(
                    f"openmed {self.spec.kind} gate input refused: {type(error).__name__}: {error}"
                )
        if isinstance(self._evaluation, GateInputError):
            raise self._evaluation
        return self._evaluation


class GateItem(pytest.Item):
    """One verdict of a gate; passes only when its status is the expected one."""

    parent: Gate

    def setup(self) -> None:
        try:
            self.parent.evaluation()
        except GateInputError:
            self.user_properties.append((USER_PROPERTY, _record(self.parent.spec.kind, None, None)))
            raise

    def runtest(self) -> None:
        spec = self.parent.spec
        result = self.parent.evaluation()[self.name]
        expected = spec.expected_status(self.name)
        record_gate_result(self, result, expected=expected)
        if result.status is not expected:
            raise GateFailed(result, expected)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, GateFailed):
            failed = excinfo.value
            if failed.expected is GateStatus.PASSED:
                return failed.result.failure_text()
            return f"{failed.result.failure_text()} (control expected {failed.expected.value})"
        if isinstance(excinfo.value, GateInputError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"{self.parent.name}::{self.name}"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A control run collects the built-in controls and nothing from disk."""
    if config.stash.get(controls_key, False):
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Tag marked tests, then add option-driven gates before ``-k``/``--lf`` select."""
    for item in items:
        marker = item.get_closest_marker("openmed_gate")
        if marker is not None:
            item.user_properties.append((_MARKER_PROPERTY, marker.kwargs.get("kind", "custom")))
    specs = [planner_spec(reference) for reference in config.stash[planners_key]]
    if config.stash[controls_key]:
        from pytest_openmed.development.controls import control_specs

        specs.extend(control_specs())
    for spec in specs:
        gate = Gate.from_parent(session, name=spec.label, nodeid=spec.label, spec=spec)
        report = session.ihook.pytest_make_collect_report(collector=gate)
        session.ihook.pytest_collectreport(report=report)
        if report.passed:
            items.extend(node for node in report.result if isinstance(node, pytest.Item))


def pytest_runtest_setup(item: pytest.Item) -> None:
    marker = item.get_closest_marker("openmed_gate")
    if marker is None:
        return
    kind = marker.kwargs.get("kind", "custom")
    if marker.args or set(marker.kwargs) - {"kind"} or kind not in GATE_KINDS:
        pytest.fail(
            "openmed_gate takes one keyword argument, kind, one of: " + ", ".join(GATE_KINDS),
            pytrace=False,
        )


# --------------------------------------------------------------------------- recording


def _record(
    kind: str, result: GateResult | None, expected: GateStatus | None, part: str | None = None
) -> str:
    return canonical_json(
        {
            "kind": kind,
            "part": part,
            "status": None if result is None else result.status.value,
            "expected": None if expected is None else expected.value,
            "reason": None if result is None else result.reason,
            "metrics": {} if result is None else dict(result.metrics),
        }
    )


def record_gate_result(
    item: pytest.Item,
    result: GateResult,
    *,
    expected: GateStatus = GateStatus.PASSED,
    part: str | None = None,
) -> None:
    """Attach a verdict to ``item``'s report and tell downstream plugins about it."""
    item.user_properties.append((USER_PROPERTY, _record(result.kind, result, expected, part)))
    item.config.hook.pytest_openmed_gate_result(config=item.config, item=item, result=result)


class GateRecorder:
    """Collects verdicts from test reports; on the controller, summarises and writes.

    Registered per config (like junitxml's ``LogXML``) so that its state lives
    with the run.  Under pytest-xdist every worker report reaches the
    controller's ``pytest_runtest_logreport``; only the controller writes.
    """

    def __init__(self, config: pytest.Config, report_path: Path | None) -> None:
        self.config = config
        self.report_path = report_path
        self.entries: list[dict[str, Any]] = []
        self.write_failed = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        outcome = "error" if report.when == "setup" and report.failed else report.outcome
        raw_records = [value for name, value in report.user_properties if name == USER_PROPERTY]
        kinds = [value for name, value in report.user_properties if name == _MARKER_PROPERTY]
        if not raw_records and kinds:
            raw_records = [_record(str(kinds[0]), None, None)]
        for raw in raw_records:
            entry = json.loads(str(raw))
            entry["nodeid"] = report.nodeid
            entry["outcome"] = outcome
            self.entries.append(entry)

    def sorted_entries(self) -> list[dict[str, Any]]:
        return sorted(self.entries, key=lambda entry: (entry["nodeid"], entry["part"] or ""))

    def build_report(self) -> dict[str, Any]:
        """The JSON gate report (schema: ``schemas/gate-report.schema.json``)."""
        gates = self.sorted_entries()
        outcomes = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
        statuses = {status.value: 0 for status in GateStatus}
        for entry in gates:
            outcomes[entry["outcome"]] += 1
            if entry["status"] is not None:
                statuses[entry["status"]] += 1
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "generator": {"name": "pytest-openmed", "version": __version__},
            "non_diagnostic": True,
            "summary": {"gates": len(gates), "outcomes": outcomes, "statuses": statuses},
            "gates": [{key: entry[key] for key in _ENTRY_KEYS} for entry in gates],
            "extensions": {},
        }

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.report_path is None or hasattr(self.config, "workerinput"):
            return
        report = self.build_report()
        self.config.hook.pytest_openmed_report(config=self.config, report=report)
        try:
            atomic_write_text(self.report_path, json.dumps(report, indent=2, sort_keys=True) + "\n")
        except OSError:
            self.write_failed = True
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def pytest_terminal_summary(self, terminalreporter: TerminalReporter) -> None:
        try:
            self._summary(terminalreporter)
        except Exception:  # a summary must never turn a verdict into a traceback
            terminalreporter.write_line("openmed: gate summary unavailable")

    def _summary(self, terminalreporter: TerminalReporter) -> None:
        if hasattr(self.config, "workerinput"):
            return
        if self.write_failed:
            terminalreporter.write_line(
                "openmed: could not write the gate report (OPENMED-REPORT-WRITE)", red=True
            )
        gates = self.sorted_entries()
        if not gates:
            return
        terminalreporter.section("openmed gates")
        counts: dict[str, int] = {}
        for entry in gates:
            counts[entry["outcome"]] = counts.get(entry["outcome"], 0) + 1
            terminalreporter.write_line(
                _summary_line(entry),
                green=entry["outcome"] == "passed",
                red=entry["outcome"] in ("failed", "error"),
            )
        shown = ", ".join(f"{count} {outcome}" for outcome, count in sorted(counts.items()))
        terminalreporter.write_line(
            f"openmed: {len(gates)} gate verdicts: {shown}. Non-diagnostic evaluation evidence."
        )


_ENTRY_KEYS = ("nodeid", "part", "kind", "status", "expected", "reason", "metrics", "outcome")


def _summary_line(entry: Mapping[str, Any]) -> str:
    status = entry["status"] or "error"
    name = entry["nodeid"] + (f" [{entry['part']}]" if entry["part"] else "")
    detail = "" if entry["reason"] in (None, "ok") else f" ({entry['reason']})"
    if entry["expected"] not in (None, "passed"):
        detail += f", expected {entry['expected']}"
    return f"{entry['outcome'].upper():7} {status:9} {name}{detail}"


# --------------------------------------------------------------------------- fixtures


class ClaimScorer:
    """Scores claims with the run's seed/resamples and enforces ``openmed_claims``."""

    def __init__(self, item: pytest.Item, settings: GateSettings) -> None:
        self._item = item
        marker = item.get_closest_marker("openmed_claims")
        kwargs = dict(marker.kwargs) if marker is not None else {}
        if marker is not None and marker.args:
            raise pytest.UsageError("openmed_claims takes keyword arguments only")
        unknown = set(kwargs) - {
            "max_unsupported_rate",
            "max_upper",
            "classes",
            "seed",
            "resamples",
        }
        if unknown:
            raise pytest.UsageError(
                "openmed_claims accepts max_unsupported_rate, max_upper, classes, seed, resamples"
            )
        self._seed = _marker_int(kwargs.get("seed"), _parse_seed, settings.seed)
        self._resamples = _marker_int(kwargs.get("resamples"), _parse_resamples, settings.resamples)
        self._thresholds = {
            key: _marker_rate(kwargs.get(key), key) for key in ("max_unsupported_rate", "max_upper")
        }
        self._classes = _marker_classes(kwargs.get("classes"))

    def __call__(
        self, claims: Any, evidence: Any, *, alpha: float = 0.05
    ) -> UnsupportedClaimsReport:
        from pytest_openmed.claims import score_summary_claims
        from pytest_openmed.claims.gate import evaluate_thresholds

        report = score_summary_claims(
            claims, evidence, n_resamples=self._resamples, seed=self._seed, alpha=alpha
        )
        results = evaluate_thresholds(report, **self._thresholds, classes=self._classes)
        failures = []
        for part, result in results.items():
            record_gate_result(self._item, result, part=part)
            if not result.passed:
                failures.append(f"{part}: {result.failure_text()}")
        if failures:
            pytest.fail("\n".join(failures), pytrace=False)
        return report

    def __repr__(self) -> str:
        return f"ClaimScorer(seed={self._seed}, resamples={self._resamples})"


def _marker_int(value: object, parse: Callable[[str], int], default: int) -> int:
    if value is None:
        return default
    if type(value) is not int:
        raise pytest.UsageError("openmed_claims seed and resamples must be integers")
    try:
        return parse(str(value))
    except ValueError as error:
        raise pytest.UsageError(f"openmed_claims: {error}") from None


def _marker_rate(value: object, key: str) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float) or not 0.0 <= float(value) <= 1.0:  # type: ignore[arg-type]
        raise pytest.UsageError(f"openmed_claims {key} must be a number from 0 to 1")
    return float(value)  # type: ignore[arg-type]


def _marker_classes(value: object) -> dict[str, dict[str, float]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise pytest.UsageError("openmed_claims classes must map a class to its thresholds")
    classes: dict[str, dict[str, float]] = {}
    for label, thresholds in value.items():
        if type(label) is not str or not CLAIM_CLASS_PATTERN.fullmatch(label):
            raise pytest.UsageError("openmed_claims classes keys must be normalised claim classes")
        if (
            not isinstance(thresholds, Mapping)
            or not thresholds
            or set(thresholds) - {"max_unsupported_rate", "max_upper"}
        ):
            raise pytest.UsageError(
                "openmed_claims class thresholds take max_unsupported_rate and/or max_upper"
            )
        classes[label] = {
            key: rate
            for key in thresholds
            if (rate := _marker_rate(thresholds[key], key)) is not None
        }
    return classes


@pytest.fixture
def claim_scorer(request: pytest.FixtureRequest) -> ClaimScorer:
    """Score claims and enforce the test's ``openmed_claims`` thresholds as a gate."""
    return ClaimScorer(request.node, request.config.stash[settings_key])


@pytest.fixture
def qualify_planner(request: pytest.FixtureRequest) -> Callable[[Any], PlannerQualificationReport]:
    """Run the planner harness on a callable and record its verdicts as gate evidence.

    Returns the report; the test decides what it expects of it.
    """
    item = request.node

    def qualify(planner: Any) -> PlannerQualificationReport:
        from pytest_openmed.planner import qualify_planner as run_harness
        from pytest_openmed.planner.gate import evaluate_report

        report = run_harness(planner)
        for part, result in evaluate_report(report).items():
            record_gate_result(item, result, part=part)
        return report

    return qualify


@pytest.fixture
def evaluator_key(request: pytest.FixtureRequest) -> bytes:
    """The evaluator key from the environment variable named by ``--openmed-key-env``."""
    name = request.config.stash[settings_key].key_env
    if name is None:
        pytest.fail(
            "no evaluator key configured: pass --openmed-key-env NAME (or ini openmed_key_env) "
            "naming an environment variable that holds a key of at least 32 bytes",
            pytrace=False,
        )
    value = os.environ.get(name)
    if not value:
        pytest.fail("the configured evaluator key variable is not set or empty", pytrace=False)
    key = value.encode("utf-8")
    if len(key) < 32:
        pytest.fail("the evaluator key must be at least 32 bytes", pytrace=False)
    return key
