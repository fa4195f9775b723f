"""The engine contract: gate verdicts, gate specs and the evaluator registry.

Standard library only, so the plugin and every engine can import it cheaply
and neither has to import the other.

A gate verdict is a small immutable value: which engine produced it, one
status from a closed set, a value-free reason and public metrics.  Only
``passed`` passes; every other status fails its item.  Malformed input is not
a verdict at all: engines raise, and the plugin reports an error.

An engine evaluates a :class:`GateSpec` under run-wide :class:`GateSettings`:
``evaluate(spec, settings) -> Mapping[str, GateResult | GateItemRefused]``
returns one verdict per name in ``spec.items``; bad *inputs* (not bad
verdicts) are raised as :class:`~pytest_openmed.errors.OpenmedError` (or
``OSError`` where a file is read) with fixed messages and become pytest
errors.  :data:`EVALUATORS` names each kind's evaluator, imported only when a
gate item runs; :data:`RULE_TEXTS` names each kind's failure lines (kept in its
light ``declaration`` module), imported only when a verdict is rendered.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from pytest_openmed._validate import DEFAULT_RESAMPLES
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "EVALUATORS",
    "GATE_KINDS",
    "MISSING_DEPENDENCY",
    "NAME_PATTERN",
    "NAME_WORDING",
    "RULE_TEXTS",
    "STATUSES",
    "ArgumentSource",
    "Declaration",
    "Evaluator",
    "Expected",
    "GateItemRefused",
    "GateResult",
    "GateSettings",
    "GateSpec",
    "GateStatus",
    "MetricValue",
    "Rule",
    "Source",
    "declaration_of",
    "declaration_repr",
    "evaluator_for",
    "locate_input_error",
    "rule_above",
    "rule_count_over_zero",
    "rule_decision",
]

#: Engines that produce gate verdicts; ``custom`` is for tests tagged with ``openmed_gate``.
GATE_KINDS = ("claims", "planner", "pack", "custom")

#: Reason of a verdict-less record whose engine needs an optional package that is missing.
MISSING_DEPENDENCY = "missing_dependency"

MetricValue = int | float | str | bool | None

_METRIC_NAME = re.compile(r"[a-z][a-z0-9_.]{0,63}")
_REASON = re.compile(r"[a-z][a-z0-9_]{0,63}")
_TEXT_VALUE = re.compile(r"[a-z0-9_.\-]{0,64}")


class GateStatus(enum.Enum):
    """The closed set of gate statuses."""

    PASSED = "passed"
    THRESHOLD = "threshold"
    CRITICAL = "critical"
    BLOCKED = "blocked"
    HOLD = "hold"


#: The status values, in report order (the recorder's tallies, the HTML report's columns).
STATUSES = tuple(status.value for status in GateStatus)


class GateItemRefused(InputRefused):
    """One item of a gate cannot be evaluated; its siblings still have verdicts.

    An evaluator returns an instance in place of that item's verdict (for
    example a claims class threshold naming a class with no claims), so the
    item becomes a pytest *error*, never a pass.  The message is fixed and
    value-free, like every engine message; ``subject`` is a short closed label
    (a standard claim class or its ``class_`` token), checked like metric labels.
    ``figures`` are public numbers that say what the item would need (an
    underpowered gate's ``needed_claims``), checked like metrics.
    """

    def __init__(
        self,
        message: str,
        subject: str,
        figures: Mapping[str, MetricValue] | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.subject = _check_label(subject)
        if reason is not None and (type(reason) is not str or not _REASON.fullmatch(reason)):
            raise InputRefused("gate reason must be a closed rule name ([a-z][a-z0-9_]*)")
        #: A closed rule name for the refusal (``underpowered``), recorded in the gate report.
        self.reason = reason
        checked: dict[str, MetricValue] = {}
        for name, value in (figures or {}).items():
            if type(name) is not str or not _METRIC_NAME.fullmatch(name):
                raise InputRefused("gate metric names must match [a-z][a-z0-9_.]*")
            checked[name] = _check_metric(value)
        self.figures: Mapping[str, MetricValue] = MappingProxyType(checked)

    def describe(self) -> str:
        """The item's error text: its public subject, the fixed message, then its figures."""
        text = f"{self.subject}: {self.args[0]}"
        if self.figures:
            shown = ", ".join(f"{name}={_format(value)}" for name, value in self.figures.items())
            text += f" ({shown})"
        return text


@dataclass(frozen=True, slots=True)
class GateResult:
    """One gate's verdict.

    ``reason`` is a closed rule name (``unsupported_rate``, ``privacy``…), never
    free text; ``metrics`` hold names and numbers, plus short closed labels.
    Both are checked here so that no engine can leak a value through them.
    """

    kind: str
    status: GateStatus
    reason: str = "ok"
    metrics: Mapping[str, MetricValue] = field(default_factory=dict)
    #: Pack gates: canonical JSON of the multimodal public report (suppressed aggregates
    #: only), carried to the JSON gate report for the HTML report; not in failure texts.
    public_report: str | None = None

    def __post_init__(self) -> None:
        if self.public_report is not None and not _is_json_object(self.public_report):
            raise InputRefused("gate public_report must be the JSON text of an object")
        if self.kind not in GATE_KINDS:
            raise InputRefused("gate kind must be one of: " + ", ".join(GATE_KINDS))
        if not isinstance(self.status, GateStatus):
            raise InvalidArgument("gate status must be a GateStatus")
        if type(self.reason) is not str or not _REASON.fullmatch(self.reason):
            raise InputRefused("gate reason must be a closed rule name ([a-z][a-z0-9_]*)")
        checked: dict[str, MetricValue] = {}
        for name, value in self.metrics.items():
            if type(name) is not str or not _METRIC_NAME.fullmatch(name):
                raise InputRefused("gate metric names must match [a-z][a-z0-9_.]*")
            checked[name] = _check_metric(value)
        object.__setattr__(self, "metrics", MappingProxyType(dict(sorted(checked.items()))))

    @property
    def passed(self) -> bool:
        return self.status is GateStatus.PASSED

    def rule_text(self) -> str:
        """The rule that decided, in a reviewer's words: ``unsupported_rate 0.1667 > max 0.10``.

        Built from the closed reason and the public metrics only, by the rule
        the reason's engine declares (:data:`RULE_TEXTS`); a reason without a
        known rule reads ``<status> (<reason>)``.
        """
        rule = _rule_for(self.kind, self.reason)
        text = rule(self.metrics) if rule is not None else None
        return text or f"{self.status.value} ({self.reason})"

    def failure_text(self) -> str:
        """The short, value-free line shown when the gate fails: the rule first, then metrics."""
        shown = ", ".join(f"{name}={_format(value)}" for name, value in self.metrics.items())
        text = f"{self.rule_text()}; openmed {self.kind} gate: {self.status.value} ({self.reason})"
        return f"{text}; {shown}" if shown else text

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "status": self.status.value,
            "reason": self.reason,
            "metrics": dict(self.metrics),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateResult:
        if not isinstance(data, Mapping) or set(data) != {"kind", "status", "reason", "metrics"}:
            raise InputRefused("gate result must have exactly kind, status, reason and metrics")
        metrics = data["metrics"]
        if not isinstance(metrics, Mapping):
            raise InputRefused("gate result metrics must be an object")
        try:
            status = GateStatus(data["status"])
        except ValueError:
            raise InputRefused("gate result status is not a known status") from None
        return cls(kind=data["kind"], status=status, reason=data["reason"], metrics=metrics)

    def __repr__(self) -> str:
        return (
            f"GateResult(kind={self.kind!r}, status={self.status.value!r}, reason={self.reason!r})"
        )


def _is_json_object(text: object) -> bool:
    import json

    if type(text) is not str:
        return False
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _check_metric(value: object) -> MetricValue:
    if value is None or type(value) is bool or type(value) is int:
        return value
    if type(value) is float:
        if not math.isfinite(value):
            raise InputRefused("gate metric values must be finite")
        return value
    if type(value) is str and _TEXT_VALUE.fullmatch(value):
        return value
    raise InputRefused("gate metric values must be numbers, booleans, null or short closed labels")


def _number(value: MetricValue) -> float | None:
    return float(value) if type(value) in (int, float) else None  # type: ignore[arg-type]


def _limit(value: float) -> str:
    """A threshold as a reviewer wrote it: two decimals unless that would round it."""
    two = f"{value:.2f}"
    return two if float(two) == value else f"{value:.4f}"


#: A failure line's builder: text from a verdict's public metrics, or ``None`` when they
#: do not hold what it needs (the verdict then reads ``<status> (<reason>)``).
Rule = Callable[[Mapping[str, MetricValue]], str | None]


def rule_above(measured: str, limit: str, words: str) -> Rule:
    """``<measured> <value> > <words> <limit>``, when both metrics are numbers."""

    def text(metrics: Mapping[str, MetricValue]) -> str | None:
        value, bound = _number(metrics.get(measured)), _number(metrics.get(limit))
        if value is None or bound is None:
            return None
        return f"{measured} {value:.4f} > {words} {_limit(bound)}"

    return text


def rule_count_over_zero(count: str) -> Rule:
    """``<count> <n> > 0``, when the count is an integer."""

    def text(metrics: Mapping[str, MetricValue]) -> str | None:
        value = metrics.get(count)
        return f"{count} {value} > 0" if type(value) is int else None

    return text


def rule_decision(words: str) -> Rule:
    """A fixed line: the decision a verdict's reason names, whatever its metrics."""
    return lambda metrics: words


#: Per kind, ``module:attribute`` of the engine's failure lines (a mapping of reason to
#: :data:`Rule`), imported on first use: the engine owns them, the shared core only looks.
RULE_TEXTS = {
    "claims": "pytest_openmed.claims.declaration:RULE_TEXTS",
    "planner": "pytest_openmed.planner.declaration:RULE_TEXTS",
    "pack": "pytest_openmed.multimodal.declaration:RULE_TEXTS",
}

#: Failure lines of reasons no engine produces: a baseline regression is judged by the
#: report code (``report/baseline.py``) on a verdict of any kind.
_SHARED_RULES: Mapping[str, Rule] = MappingProxyType(
    {"baseline_regression": rule_above("lower", "baseline_upper", "baseline upper")}
)


def _resolve(reference: str) -> Any:
    """The attribute a ``module:attribute`` registry entry names, its module imported on first use.

    The shared core names engines only by these strings, so it never imports one at load.
    """
    import importlib

    module_name, _, attr = reference.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def _engine_rules(kind: str) -> Mapping[str, Rule]:
    """The failure lines of ``kind``'s engine."""
    rules: Mapping[str, Rule] = _resolve(RULE_TEXTS[kind])
    return rules


def _rule_for(kind: str, reason: str) -> Rule | None:
    """The rule ``reason`` names: shared, else the verdict's own engine's, else another's.

    Reasons are one closed vocabulary across engines (a test keeps the engines'
    sets disjoint), so a stored verdict reads the same whichever kind it carries.
    """
    rule = _SHARED_RULES.get(reason)
    if rule is not None:
        return rule
    owners = [kind] if kind in RULE_TEXTS else []
    for owner in (*owners, *(other for other in RULE_TEXTS if other != kind)):
        rule = _engine_rules(owner).get(reason)
        if rule is not None:
            return rule
    return None


def locate_input_error(error: BaseException, where: str) -> BaseException:
    """``error`` with ``where`` (which input, which line) put before its fixed message.

    Engines refuse inputs with fixed, value-free messages that cannot say which
    of several files they came from; the code that opened the file can.
    ``where`` is built from closed words and numbers (``claims input, line 7``),
    never from a path or content.  The same exception object is returned so its
    type (``ValueError``, ``OSError``…) is kept; re-raise it ``from None``.
    """
    message = str(error.args[0]) if error.args else ""
    error.args = (f"{where}: {message}" if message else where,)
    return error


def _check_label(value: object) -> str:
    if type(value) is str and value and _TEXT_VALUE.fullmatch(value):
        return value
    raise InputRefused("a refused item's subject must be a short closed label")


def _format(value: MetricValue) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


#: Per kind, ``module:function`` of the evaluator, imported on first use.
EVALUATORS = {
    "claims": "pytest_openmed.claims._gate:evaluate_gate",
    "planner": "pytest_openmed.planner._gate:evaluate_gate",
    "pack": "pytest_openmed.multimodal._gate:evaluate_gate",
}

#: A gate or pack-candidate name: 1-64 letters, digits, ``_``, ``.`` or ``-``, starting
#: with a letter or digit (no URL, no path).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
#: How a message words :data:`NAME_PATTERN`.
NAME_WORDING = "1-64 letters, digits, '_', '.' or '-'"


@dataclass(frozen=True, slots=True)
class GateSettings:
    """Run-wide defaults resolved from CLI and ini (CLI wins)."""

    seed: int = 0
    resamples: int = DEFAULT_RESAMPLES
    #: ``--openmed-min-cell``; ``None``: the multimodal engine's ``MIN_CELL``.
    min_cell: int | None = None
    key_env: str | None = None
    #: ``--openmed-record``: planner gates with a cassette call their model and rewrite it.
    record: bool = False
    #: ``--openmed-max-rate``: the overall max_unsupported_rate of claims gates that set none.
    max_rate: float | None = None
    #: ``--openmed-isolate``: planner gates qualify their planner in a child process.
    isolate: bool = False
    #: Called with ``(gate label, done, total)`` after each trial a live planner gate
    #: completes (the plugin's progress line); ``None``: silent.
    progress: Callable[[str, int, int], None] | None = field(default=None, compare=False)
    #: Called with ``(gate label, note)`` when a gate wrote a recording: the note is the
    #: engine's value-free line (what was recorded, counts only); ``None``: silent.
    recorded: Callable[[str, str], None] | None = field(default=None, compare=False)

    def progress_for(self, label: str) -> Callable[[int, int], None] | None:
        """:attr:`progress` bound to one gate's label."""
        progress = self.progress
        if progress is None:
            return None
        return lambda done, total: progress(label, done, total)


class Declaration(Protocol):
    """An engine's typed, checked declaration of one gate: what its evaluator reads.

    Each engine defines its own (``claims.declaration.GateDeclaration``…) and
    the one constructor that checks it; the item names follow from it.
    """

    @property
    def items(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class GateSpec:
    """One declared gate: its kind, its name and its engine's typed declaration.

    ``expected`` maps an item to the status it must reach; it is empty for
    user gates (every item must pass) and set only by the built-in development
    controls, which also name their own ``evaluator`` (``module:function``).
    """

    kind: str
    name: str
    declaration: Declaration
    expected: Mapping[str, GateStatus] = field(default_factory=dict)
    evaluator: str | None = None
    #: Items a development control expects the engine to refuse (an underpowered
    #: collection): such an item passes when it is refused, and fails otherwise.
    expected_refusals: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "expected", MappingProxyType(dict(self.expected)))
        object.__setattr__(self, "expected_refusals", frozenset(self.expected_refusals))

    @property
    def items(self) -> tuple[str, ...]:
        """The gate's item names, in collection order (the declaration's)."""
        return self.declaration.items

    @property
    def label(self) -> str:
        """The collector name, ``kind(name)``: no bracket mid node id (see ``plugin.items``)."""
        return f"{self.kind}({self.name})"

    def expected_status(self, item: str) -> GateStatus:
        return self.expected.get(item, GateStatus.PASSED)

    def __repr__(self) -> str:
        """Value-free: a declaration holds absolute data and cassette paths and planner
        references, which ``--showlocals`` would otherwise print with every traceback."""
        return f"GateSpec(kind={self.kind!r}, items={len(self.items)}, <options hidden>)"


def declaration_repr(declaration: Declaration) -> str:
    """A declaration's value-free ``repr`` (its frames are shown under ``--showlocals``)."""
    return f"{type(declaration).__name__}(items={len(declaration.items)}, <options hidden>)"


D = TypeVar("D")


def declaration_of(spec: GateSpec, kind: type[D], refuse: str) -> D:
    """``spec``'s declaration if it is a ``kind`` (an evaluator given another gate refuses it)."""
    if not isinstance(spec.declaration, kind):
        raise InvalidArgument(refuse)
    return spec.declaration


@dataclass(frozen=True, slots=True)
class Expected:
    """What one declaration field must be, in a gate file's words and in a caller's.

    A gate file says ``<file>: [[kind]] #n: key 'seed' <text>``; a marker, the
    CLI or a Python caller says ``plain`` (``{key}`` is the field's name).
    The engine that owns the field writes both, once.
    """

    text: str
    plain: str

    def said_plainly(self, key: str) -> str:
        return self.plain.replace("{key}", key)


class Source(Protocol):
    """Where one declaration's fields come from; it locates and phrases every refusal.

    An engine's declaration constructor checks each field once and asks its
    source for the error: a gate file names file, table and key
    (``plugin.gate_files``), a marker its argument (``plugin.markers``), and
    :class:`ArgumentSource` serves the CLI, the control run and Python callers.
    """

    def refuse(self, key: str, expected: Expected) -> Exception:
        """The error for a field that is not what ``expected`` says."""
        ...

    def whole(self, message: str) -> Exception:
        """The error for a declaration refused as a whole (a fixed ``message``)."""
        ...

    def check_keys(
        self, fields: Mapping[str, object], required: Sequence[str], optional: Sequence[str]
    ) -> None:
        """Refuse a missing required key or a key that is neither required nor optional."""
        ...

    def within(self, key: str, label: str) -> Source:
        """The source of the nested table ``key.label`` (a claims class's thresholds)."""
        ...

    def path(self, key: str, value: object) -> Path:
        """The file a field names (a gate file resolves it against its own directory)."""
        ...


class ArgumentSource:
    """Fields given as Python values (CLI, control run, API): refusals say ``plain``."""

    def refuse(self, key: str, expected: Expected) -> Exception:
        return InputRefused(expected.said_plainly(key))

    def whole(self, message: str) -> Exception:
        return InputRefused(message)

    def check_keys(
        self, fields: Mapping[str, object], required: Sequence[str], optional: Sequence[str]
    ) -> None:
        allowed = (*required, *optional)
        for key in required:
            if key not in fields:
                raise InputRefused(f"missing argument {key}")
        for key in fields:
            if key not in allowed:
                raise InputRefused("unknown argument; it takes: " + ", ".join(allowed))

    def within(self, key: str, label: str) -> Source:
        return self

    def path(self, key: str, value: object) -> Path:
        if not isinstance(value, str | Path) or not str(value) or "\x00" in str(value):
            raise InputRefused(f"{key} must be a path")
        return Path(value)


#: An evaluator returns a verdict, or a :class:`GateItemRefused`, for each item.
Evaluator = Callable[[GateSpec, GateSettings], Mapping[str, GateResult | GateItemRefused]]


def evaluator_for(spec: GateSpec) -> Evaluator:
    """Import the evaluator of ``spec`` (engines load only when a gate runs)."""
    evaluator: Evaluator = _resolve(spec.evaluator or EVALUATORS[spec.kind])
    return evaluator
