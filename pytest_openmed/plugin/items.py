"""Gate files, gates and gate items: how declared gates become pytest items.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

``GateFile`` (a ``*.openmed.toml``) → ``Gate`` (``claims(name)``) → ``GateItem``
(``overall``).  A gate evaluates its engine once, on first use, and every item
reads its own verdict from that one evaluation.  Evaluation happens in item
setup, so refused inputs are pytest *errors*; verdicts are decided in
``runtest``, so a bad verdict is a *failure*.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.contract import (
    MISSING_DEPENDENCY,
    GateItemRefused,
    GateResult,
    GateSpec,
    GateStatus,
    MetricValue,
    evaluator_for,
)
from pytest_openmed.errors import (
    OpenmedError,
    missing_extra_text,
    names_a_missing_extra,
    shown_name,
)
from pytest_openmed.plugin.gate_files import GateFileError, parse_gate_file
from pytest_openmed.plugin.options import run_options_key
from pytest_openmed.plugin.recorder import (
    JUNIT_PREFIX,
    USER_PROPERTY,
    attach_property,
    gate_record,
    recordings_key,
)

#: What an engine raises for input it refuses: the package's one error model,
#: :class:`~pytest_openmed.errors.OpenmedError`, whose messages are fixed and
#: value-free, so they are shown as they are.
REFUSED: tuple[type[Exception], ...] = (OpenmedError,)

#: A gate also reads files: an ``OSError`` there (fixed text, see ``_canonical``) is a refusal too.
_GATE_REFUSED: tuple[type[Exception], ...] = (*REFUSED, OSError)


class GateFailed(pytest.fail.Exception):  # type: ignore[name-defined,misc]
    """A gate reached a status other than the one it must reach.

    A ``pytest.fail`` outcome, so it shows as its value-free text without a
    traceback, and a waiver can target exactly it (``xfail(raises=GateFailed)``).
    """

    def __init__(self, text: str) -> None:
        super().__init__(text, pytrace=False)


class GateInputError(pytest.fail.Exception, ValueError):  # type: ignore[name-defined,misc]
    """A gate's (or a fixture's) inputs were refused; the message is fixed and value-free.

    Raised in item setup, so pytest reports an *error* showing only this text;
    raised by a fixture inside a test, the plugin reports it as an error of
    that test too (``plugin.pytest_runtest_makereport``).  It is also a
    ``ValueError``, so ``pytest.raises(ValueError)`` still catches a refusal.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text, pytrace=False)  # type: ignore[call-arg]


def input_refused(what: str, error: BaseException) -> GateInputError:
    """The refusal of ``what`` (``claims gate``…) for an engine's typed, value-free error.

    Build it inside the ``except`` block and raise it after leaving it: the
    refusal then carries neither the engine's exception nor its frames (whose
    locals hold the input) as ``__context__``.
    """
    return GateInputError(f"openmed {what} input refused: {shown_name(error)}: {error}")


def unexpected_failure(kind: str, error: BaseException) -> GateInputError:
    """The error for an exception that is not one of the engines' typed refusals.

    Its text may quote input, so only its builtin class name is shown; build it
    inside the ``except`` block and raise it after leaving it (no chained frames).
    """
    return GateInputError(
        f"openmed {kind} gate failed unexpectedly ({type(error).__name__}); "
        "its message is withheld because it may quote input data: rerun with "
        "--fulltrace to see it"
    )


def record_refusal(
    item: pytest.Item, kind: str, part: str | None = None, *, reason: str | None = None
) -> None:
    """Attach a refused-input record (no status) to ``item``'s report.

    ``reason`` is :data:`~pytest_openmed.contract.MISSING_DEPENDENCY` when the
    engine could not run for want of an optional package (not refused input).
    """
    group = item.parent.nodeid if isinstance(item, GateItem) else item.nodeid
    record = gate_record(kind, part=part, group=group, order=collection_index(item), reason=reason)
    attach_property(item, USER_PROPERTY, record)


def plain_outcome(report: pytest.TestReport, error: BaseException) -> None:
    """Show a gate exception as its text alone, and a refusal in a test as an error.

    Short summaries and junit ``message`` attributes otherwise lead with the
    exception's dotted class path.  A refusal raised while the test ran (a
    fixture given refused input) is an *error* of the test, like a gate
    item's refused inputs: pytest counts a failed report as an error when it
    is not the ``call`` phase, so the report is relabelled ``setup``.
    """
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        crash.message = str(error)
    if isinstance(error, MissingDependency):
        report.longrepr = str(error)  # the install command is all there is to say, at any --tb
    if isinstance(error, GateInputError) and report.when == "call":
        report.when = "setup"


#: Where the package's own modules are (a frame there called a module of an extra).
_PACKAGE = Path(__file__).resolve().parents[1]


def missing_extra_outcome(report: pytest.TestReport, excinfo: pytest.ExceptionInfo[Any]) -> None:
    """A package function called in a test without its extra: the missing-dependency error.

    A component's ``run`` or a development pack builder imports its library
    on first use, so without the extra the ``ImportError`` surfaces in the
    test.  When one of the package's frames made that import, the test is an
    error showing the install command alone: no traceback, no locals.  An
    import made by the test's own code is left to pytest, and so is an outcome
    the test expected (``xfail(raises=ImportError)``).
    """
    text = missing_extra_text("pytest-openmed", excinfo.value)
    if (
        not report.failed
        or text is None
        or not any(
            Path(entry.path).resolve().is_relative_to(_PACKAGE) for entry in excinfo.traceback
        )
    ):
        return
    report.outcome = "failed"
    report.longrepr = text
    if report.when == "call":
        report.when = "setup"


class MissingDependency(GateInputError):
    """The engine needs an optional package that is not installed: not a refusal of input."""


def missing_dependency(kind: str, error: ImportError) -> MissingDependency | None:
    """The error naming the package and its install command, if ``error`` is an optional one."""
    text = missing_extra_text(f"openmed {kind} gate", error)
    return None if text is None else MissingDependency(text)


class GateFile(pytest.File):
    """A ``*.openmed.toml`` file: one :class:`Gate` per declared gate."""

    def collect(self) -> Iterator[Gate]:
        try:
            specs = parse_gate_file(self.path)
        except GateFileError as error:
            raise self.CollectError(f"openmed gate file error: {error}") from None
        for spec in specs:
            yield Gate.from_parent(
                self, name=spec.label, nodeid=_child_nodeid(self, spec.label), spec=spec
            )


class Gate(pytest.Collector):
    """One declared gate; evaluates its engine once and hands verdicts to its items."""

    def __init__(self, *, spec: GateSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self._evaluation: Mapping[str, GateResult | GateItemRefused] | str | None = None

    def collect(self) -> Iterator[GateItem]:
        if self.spec.kind == "planner":
            self._load_planner()
        for item in self.spec.items:
            yield GateItem.from_parent(self, name=item, nodeid=_child_nodeid(self, item))

    def _load_planner(self) -> None:
        """Import the planner now, once: an unimportable planner is one collection error.

        Not seven failing items.  A replaying cassette gate never imports (or
        calls) its model; recording does.
        """
        from pytest_openmed.planner.declaration import GateDeclaration

        declaration = self.spec.declaration
        options = self.config.stash[run_options_key]
        imports = isinstance(declaration, GateDeclaration) and declaration.imports_planner(
            options.record, options.isolate
        )
        if not isinstance(declaration, GateDeclaration) or not imports:
            return
        from pytest_openmed.planner._gate import PlannerReferenceError, load_planner

        try:
            load_planner(declaration.planner or "")
        except PlannerReferenceError as error:
            raise self.CollectError(f"openmed: {self.spec.label}: {error}") from None

    def evaluation(self) -> Mapping[str, GateResult | GateItemRefused]:
        """This gate's verdicts: evaluated once per run, shared by all xdist workers."""
        if self._evaluation is None:
            from pytest_openmed.plugin.shared_outcome import shared_outcome

            self._evaluation = shared_outcome(self.config, self.nodeid, self._evaluate)
        if isinstance(self._evaluation, str):
            missing = names_a_missing_extra(self._evaluation)
            raise (MissingDependency if missing else GateInputError)(self._evaluation)
        return self._evaluation

    def _evaluate(self) -> Mapping[str, GateResult | GateItemRefused] | str:
        """Run the engine: its verdicts, or the fixed text of the refusal."""
        settings = replace(
            self.config.stash[run_options_key].settings,
            progress=_progress_line(self.config),
            recorded=self._note_recording,
        )
        try:
            return evaluator_for(self.spec)(self.spec, settings)
        except _GATE_REFUSED as error:
            # Engine messages are fixed and value-free by contract.
            refusal = input_refused(f"{self.spec.kind} gate", error)
        except ImportError as error:
            dependency = missing_dependency(self.spec.kind, error)
            if dependency is None:
                raise
            refusal = dependency
        except Exception as error:
            if self.config.getoption("fulltrace", False):
                raise
            refusal = unexpected_failure(self.spec.kind, error)
        return str(refusal)

    def _note_recording(self, label: str, note: str) -> None:
        """Keep the engine's value-free line about the cassette this gate wrote (the summary)."""
        self.config.stash.setdefault(recordings_key, []).append(f"{self.nodeid}: {note}")


def _progress_line(config: pytest.Config) -> Callable[[str, int, int], None] | None:
    """A line per completed trial of a live planner gate; ``-q`` and xdist workers stay silent."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or config.get_verbosity() < 0 or hasattr(config, "workerinput"):
        return None

    def line(label: str, done: int, total: int) -> None:
        reporter.write_line(f"openmed: {label}: trial {done} of {total} done")

    return line


def _child_nodeid(parent: pytest.Collector, name: str) -> str:
    """The node id of a child, given as a string.

    pytest ≥ 9.2 parses node-id strings (from its cache, from junit) into a
    structured id that reads the first ``[`` as the start of trailing
    parameters.  Gate collectors are therefore named ``claims(notes)``, never
    ``claims[notes]``, and items give their ids as strings, so an id like
    ``gates.openmed.toml::claims(notes)::class[lab]`` parses to exactly the
    node that was collected: ``--lf``, ``--sw`` and junit agree.
    """
    return f"{parent.nodeid}::{name}" if parent.nodeid else name


class GateItem(pytest.Item):
    """One verdict of a gate; passes only when its status is the expected one."""

    parent: Gate

    def setup(self) -> None:
        spec = self.parent.spec
        try:
            verdict = self.parent.evaluation()[self.name]
        except GateInputError as error:
            reason = MISSING_DEPENDENCY if isinstance(error, MissingDependency) else None
            record_refusal(self, spec.kind, reason=reason)
            raise
        if isinstance(verdict, GateItemRefused):
            record = gate_record(
                spec.kind,
                group=self.parent.nodeid,
                order=collection_index(self),
                reason=verdict.reason,
            )
            attach_property(self, USER_PROPERTY, record)
            if self.name in spec.expected_refusals:
                return  # a control that expects this refusal: runtest passes it
            raise GateInputError(f"openmed {spec.kind} gate input refused: {verdict.describe()}")

    def runtest(self) -> None:
        expected = self.parent.spec.expected_status(self.name)
        verdict = self.parent.evaluation()[self.name]
        if self.name in self.parent.spec.expected_refusals:
            if not isinstance(verdict, GateItemRefused):
                record_gate_result(self, verdict, expected=expected)
                raise GateFailed(f"{verdict.failure_text()} (control expected a refusal)")
            return
        assert isinstance(verdict, GateResult)  # setup raised for a refused item
        result = record_gate_result(self, verdict, expected=expected)
        if result.status is not expected:
            text = result.failure_text()
            if expected is not GateStatus.PASSED:
                text += f" (control expected {expected.value})"
            raise GateFailed(text)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"{self.parent.name}::{self.name}"


_collection_index_key = pytest.StashKey[dict[str, int]]()


def collection_index(item: pytest.Item) -> int:
    """The item's position in the session's collection: the same on every xdist worker.

    Reports list verdicts in this order, so gates appear as declared and a
    planner's scenarios in harness order, whichever worker ran them.
    """
    index = item.config.stash.get(_collection_index_key, None)
    if index is None or item.nodeid not in index:
        index = {node.nodeid: position for position, node in enumerate(item.session.items)}
        item.config.stash[_collection_index_key] = index
    return index.get(item.nodeid, len(index))


#: Fixtures whose verdicts make a test a gate item.
GATE_FIXTURES = ("claim_scorer", "qualify_planner", "qualify_mcp_agent")


def is_gate_item(item: pytest.Item) -> bool:
    """A declared gate's item, a test tagged ``openmed_gate``, or one using a gate fixture."""
    if isinstance(item, GateItem) or item.get_closest_marker("openmed_gate") is not None:
        return True
    fixtures = getattr(item, "fixturenames", ())
    return any(name in fixtures for name in GATE_FIXTURES)


def fix_collection_index(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Fix every item's position in ``items`` now, before ``--openmed-shard`` drops some.

    A shard's verdicts then carry the positions a serial run gives them.
    """
    config.stash[_collection_index_key] = {node.nodeid: index for index, node in enumerate(items)}


def record_gate_result(
    item: pytest.Item,
    result: GateResult,
    *,
    expected: GateStatus = GateStatus.PASSED,
    part: str | None = None,
) -> GateResult:
    """Apply the baseline, attach the verdict to ``item``'s report, tell downstream plugins.

    Returns the verdict as finally judged (a baseline regression turns a
    passing claims verdict into ``threshold``).
    """
    baseline = item.config.stash[run_options_key].baseline
    if baseline is not None:
        result = baseline.compare(item.nodeid, part, result)
    if isinstance(item, GateItem):
        group = item.parent.nodeid
    else:
        group = item.nodeid
    record = gate_record(
        result.kind, result, expected, part, group=group, order=collection_index(item)
    )
    attach_property(item, USER_PROPERTY, record)
    prefix = JUNIT_PREFIX + (f"{part}." if part else "")
    item.user_properties.append((f"{prefix}kind", result.kind))
    item.user_properties.append((f"{prefix}status", result.status.value))
    item.user_properties.append((f"{prefix}reason", result.reason))
    for name, value in result.metrics.items():
        item.user_properties.append((f"{prefix}metric.{name}", _junit_value(value)))
    item.config.hook.pytest_openmed_gate_result(config=item.config, item=item, result=result)
    return result


def _junit_value(value: MetricValue) -> str:
    """A metric as junit shows it: labels as they are, everything else as a JSON literal.

    junit XML writes ``str(value)``, which would give Python's ``False`` and
    ``None``; a CI tool reading the properties expects ``false`` and ``null``.
    """
    from pytest_openmed._canonical import canonical_json

    return value if type(value) is str else canonical_json(value)


def record_refused_part(item: pytest.Item, kind: str, part: str) -> None:
    """Record a part of a test's gate that could not be evaluated (status ``null``)."""
    record = gate_record(kind, part=part, group=item.nodeid, order=collection_index(item))
    attach_property(item, USER_PROPERTY, record)
