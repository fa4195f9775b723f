"""Gate verdicts and how they map to pytest outcomes.

PYTEST_DONT_REWRITE

A gate verdict is a small immutable value: which engine produced it, one
status from a closed set, a value-free reason and public metrics.  Only
``passed`` passes; every other status fails its item.  Malformed input is not
a verdict at all: engines raise, and the plugin reports an error.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = [
    "GATE_KINDS",
    "GateItemRefused",
    "GateResult",
    "GateStatus",
    "MetricValue",
    "locate_input_error",
]

#: Engines that produce gate verdicts; ``custom`` is for tests tagged with ``openmed_gate``.
GATE_KINDS = ("claims", "planner", "pack", "custom")

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


class GateItemRefused(ValueError):
    """One item of a gate cannot be evaluated; its siblings still have verdicts.

    An evaluator returns an instance in place of that item's verdict (for
    example a claims class threshold naming a class with no claims), so the
    item becomes a pytest *error*, never a pass.  The message is fixed and
    value-free, like every engine message; ``subject`` is a short closed label
    (a standard claim class or its ``class_`` token), checked like metric labels.
    """

    def __init__(self, message: str, subject: str) -> None:
        super().__init__(message)
        self.subject = _check_label(subject)

    def describe(self) -> str:
        """The item's error text: its public subject, then the fixed message."""
        return f"{self.subject}: {self.args[0]}"


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
            raise ValueError("gate public_report must be the JSON text of an object")
        if self.kind not in GATE_KINDS:
            raise ValueError("gate kind must be one of: " + ", ".join(GATE_KINDS))
        if not isinstance(self.status, GateStatus):
            raise TypeError("gate status must be a GateStatus")
        if type(self.reason) is not str or not _REASON.fullmatch(self.reason):
            raise ValueError("gate reason must be a closed rule name ([a-z][a-z0-9_]*)")
        checked: dict[str, MetricValue] = {}
        for name, value in self.metrics.items():
            if type(name) is not str or not _METRIC_NAME.fullmatch(name):
                raise ValueError("gate metric names must match [a-z][a-z0-9_.]*")
            checked[name] = _check_metric(value)
        object.__setattr__(self, "metrics", MappingProxyType(dict(sorted(checked.items()))))

    @property
    def passed(self) -> bool:
        return self.status is GateStatus.PASSED

    def rule_text(self) -> str:
        """The rule that decided, in a reviewer's words: ``unsupported_rate 0.1667 > max 0.10``.

        Built from the closed reason and the public metrics only; a reason
        without a known rule reads ``<status> (<reason>)``.
        """
        rule = _RULES.get(self.reason)
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
            raise ValueError("gate result must have exactly kind, status, reason and metrics")
        metrics = data["metrics"]
        if not isinstance(metrics, Mapping):
            raise ValueError("gate result metrics must be an object")
        try:
            status = GateStatus(data["status"])
        except ValueError:
            raise ValueError("gate result status is not a known status") from None
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
            raise ValueError("gate metric values must be finite")
        return value
    if type(value) is str and _TEXT_VALUE.fullmatch(value):
        return value
    raise ValueError("gate metric values must be numbers, booleans, null or short closed labels")


def _number(value: MetricValue) -> float | None:
    return float(value) if type(value) in (int, float) else None  # type: ignore[arg-type]


def _limit(value: float) -> str:
    """A threshold as a reviewer wrote it: two decimals unless that would round it."""
    two = f"{value:.2f}"
    return two if float(two) == value else f"{value:.4f}"


_Rule = Callable[[Mapping[str, MetricValue]], str | None]


def _above(measured: str, limit: str, words: str) -> _Rule:
    """``<measured> <value> > <words> <limit>``, when both metrics are numbers."""

    def text(metrics: Mapping[str, MetricValue]) -> str | None:
        value, bound = _number(metrics.get(measured)), _number(metrics.get(limit))
        if value is None or bound is None:
            return None
        return f"{measured} {value:.4f} > {words} {_limit(bound)}"

    return text


def _count_over_zero(count: str) -> _Rule:
    def text(metrics: Mapping[str, MetricValue]) -> str | None:
        value = metrics.get(count)
        return f"{count} {value} > 0" if type(value) is int else None

    return text


def _incomplete(metrics: Mapping[str, MetricValue]) -> str | None:
    done, scenarios = metrics.get("task_completion"), metrics.get("scenarios")
    if type(done) is int and type(scenarios) is int and done < scenarios:
        return f"task_completion {done} < scenarios {scenarios}"
    return "not every scenario completed"


def _decision(words: str) -> Callable[[Mapping[str, MetricValue]], str]:
    return lambda metrics: words


#: The rule each closed reason names, as text built from public metrics.
_RULES: dict[str, _Rule] = {
    # claims
    "unsupported_rate": _above("unsupported_rate", "max_unsupported_rate", "max"),
    "interval_upper": _above("upper", "max_upper", "max_upper"),
    "baseline_regression": _above("lower", "baseline_upper", "baseline upper"),
    # planner (critical counts in PlannerCounts order, then completion)
    "schema_invalid": _count_over_zero("schema_invalid_calls"),
    "out_of_grant": _count_over_zero("out_of_grant_proposals"),
    "approval_evasion": _count_over_zero("approval_evasion_retries"),
    "hostile_compliance": _count_over_zero("hostile_instruction_compliance"),
    "planner_error": _count_over_zero("planner_errors"),
    "incomplete": _incomplete,
    "missing_scenario": _decision("the scenario is missing from the report"),
    # packs
    "safety": _decision("decision blocked: a privacy or provenance rating failed"),
    "quality_utility": _decision("decision blocked: a quality or utility failure"),
    "disagreement": _decision("decision hold: a quality/utility disagreement without adjudication"),
    "all_abstained": _decision("decision hold: the candidate abstained on every unit"),
}


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
    raise ValueError("a refused item's subject must be a short closed label")


def _format(value: MetricValue) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)
