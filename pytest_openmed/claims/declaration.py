"""The claims gate as declared: its typed thresholds, and the one constructor that checks them.

A ``[[claims]]`` gate-file table, an ``openmed_claims`` marker and the control
run all build a :class:`GateDeclaration` through :func:`declare`, which checks
every field once and asks its :class:`~pytest_openmed.contract.Source` to
phrase a refusal (the gate file names file, table and key; the marker its
argument).  Scoring and judging read the typed values and check nothing
again.  Light on purpose: the plugin imports it when it collects a gate file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from pytest_openmed._validate import MAX_SEED, check_int, check_rate
from pytest_openmed.claims.records import CLAIM_CLASS_PATTERN
from pytest_openmed.claims.report import MAX_RESAMPLES
from pytest_openmed.contract import (
    Expected,
    MetricValue,
    Rule,
    Source,
    declaration_repr,
    rule_above,
)

#: The thresholds a claims gate (file or marker) sets, overall or per class.
THRESHOLDS = ("max_unsupported_rate", "max_upper")

#: The keys of one class's thresholds: the thresholds and ``allow_absent``.
CLASS_KEYS = (*THRESHOLDS, "allow_absent")

#: The confidence level's complement of a gate that sets none (a 95% interval).
DEFAULT_ALPHA = 0.05

RATE = Expected("must be a number from 0 to 1", "{key} must be a number from 0 to 1")
SEED = Expected(
    f"must be an integer from 0 to {MAX_SEED}", f"seed must be a whole number from 0 to {MAX_SEED}"
)
RESAMPLES = Expected(
    f"must be an integer from 1 to {MAX_RESAMPLES}",
    f"resamples must be a whole number from 1 to {MAX_RESAMPLES}",
)
ALPHA = Expected("must be a number strictly between 0 and 1", "alpha must be between 0 and 1")
FLAG = Expected("must be true or false", "{key} must be True or False")
CLASSES = Expected(
    "must be a table of [claims.classes.<class>] tables",
    "classes must map a class to its thresholds",
)
CLASS_NAME = Expected(
    "must name a normalised claim class ([a-z0-9][a-z0-9_]*)",
    "classes keys must be normalised claim classes",
)
CLASS_TABLE = Expected(
    "must be a table with max_unsupported_rate and/or max_upper",
    "class thresholds take max_unsupported_rate and/or max_upper",
)
CLASS_THRESHOLD = Expected(
    "must set max_unsupported_rate and/or max_upper",
    "class thresholds take max_unsupported_rate and/or max_upper",
)
#: Fail closed: a gate without a threshold would pass whatever the data say.
NO_THRESHOLD = (
    "a claims gate needs a threshold: set max_unsupported_rate "
    "and/or max_upper, overall or in a [claims.classes.<class>] table"
)


@dataclass(frozen=True, slots=True)
class Form:
    """Which keys a source of claims declarations takes, and whether a threshold is required."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    needs_threshold: bool


#: A ``[[claims]]`` table of a gate file (its ``name`` is the gate file's).
FILE = Form(
    required=("claims", "evidence"),
    optional=("seed", "resamples", "alpha", *THRESHOLDS, "classes"),
    needs_threshold=True,
)
#: The arguments of an ``openmed_claims`` marker, in the order its refusals list them.
MARKER = Form(
    required=(), optional=("classes", *THRESHOLDS, "resamples", "seed"), needs_threshold=False
)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The limits of one claims item; ``None``: not judged on that rule."""

    max_unsupported_rate: float | None = None
    max_upper: float | None = None
    #: Classes only: with no claims of the class in the data, pass with ``claim_count`` 0.
    allow_absent: bool = False


_NONE: Mapping[str, Thresholds] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class GateDeclaration:
    """A checked claims gate: thresholds overall and per class, scoring settings, inputs.

    ``seed`` and ``resamples`` of ``None`` take the run's; ``claims`` and
    ``evidence`` are set for gate-file gates (absolute paths) and ``None`` for
    a marker, whose test passes the records to ``claim_scorer``.
    """

    overall: Thresholds = Thresholds()
    classes: Mapping[str, Thresholds] = field(default_factory=lambda: _NONE)
    seed: int | None = None
    resamples: int | None = None
    alpha: float = DEFAULT_ALPHA
    claims: Path | None = None
    evidence: Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "classes", MappingProxyType(dict(self.classes)))

    def __repr__(self) -> str:
        return declaration_repr(self)

    @property
    def items(self) -> tuple[str, ...]:
        """``overall``, then ``class[<label>]`` per class threshold."""
        return ("overall", *(f"class[{label}]" for label in self.classes))

    def with_run_rate(self, max_rate: float | None) -> GateDeclaration:
        """``--openmed-max-rate`` applies only where the gate sets no overall rate."""
        if max_rate is None or self.overall.max_unsupported_rate is not None:
            return self
        return replace(self, overall=replace(self.overall, max_unsupported_rate=max_rate))


def declare(fields: Mapping[str, object], source: Source, form: Form = FILE) -> GateDeclaration:
    """The declaration ``fields`` make, each checked once; ``source`` phrases every refusal.

    A field given as ``None`` (a marker's default) is absent.  Class labels
    keep the order the source gives (a gate file sorts them).
    """
    source.check_keys(fields, form.required, form.optional)
    classes = _classes(fields.get("classes"), source)
    alpha = fields.get("alpha")
    if alpha is not None and (type(alpha) is not float or not 0.0 < alpha < 1.0):
        raise source.refuse("alpha", ALPHA)
    declaration = GateDeclaration(
        overall=_thresholds(fields, source),
        classes=classes,
        seed=_integer(fields, "seed", 0, MAX_SEED, SEED, source),
        resamples=_integer(fields, "resamples", 1, MAX_RESAMPLES, RESAMPLES, source),
        alpha=DEFAULT_ALPHA if alpha is None else alpha,
        claims=source.path("claims", fields["claims"]) if "claims" in fields else None,
        evidence=source.path("evidence", fields["evidence"]) if "evidence" in fields else None,
    )
    overall = declaration.overall
    if form.needs_threshold and not classes and overall == Thresholds():
        raise source.whole(NO_THRESHOLD)
    return declaration


def _integer(
    fields: Mapping[str, object], key: str, low: int, high: int, expected: Expected, source: Source
) -> int | None:
    value = fields.get(key)
    if value is None:
        return None
    return check_int(value, low, high, lambda: source.refuse(key, expected))


def _rate(fields: Mapping[str, object], key: str, source: Source) -> float | None:
    value = fields.get(key)
    if value is None:
        return None
    return check_rate(value, lambda: source.refuse(key, RATE))


def _thresholds(fields: Mapping[str, object], source: Source) -> Thresholds:
    return Thresholds(
        max_unsupported_rate=_rate(fields, "max_unsupported_rate", source),
        max_upper=_rate(fields, "max_upper", source),
    )


def _classes(value: object, source: Source) -> dict[str, Thresholds]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise source.refuse("classes", CLASSES)
    classes: dict[str, Thresholds] = {}
    for label, table in value.items():
        if type(label) is not str or not CLAIM_CLASS_PATTERN.fullmatch(label):
            raise source.refuse(f"classes.{label}" if type(label) is str else "classes", CLASS_NAME)
        if not isinstance(table, Mapping):
            raise source.refuse(f"classes.{label}", CLASS_TABLE)
        within = source.within("classes", label)
        within.check_keys(table, (), CLASS_KEYS)
        thresholds = _thresholds(table, within)
        if thresholds == Thresholds():
            raise source.refuse(f"classes.{label}", CLASS_THRESHOLD)
        allow_absent = table.get("allow_absent", False)
        if type(allow_absent) is not bool:
            raise within.refuse("allow_absent", FLAG)
        classes[label] = replace(thresholds, allow_absent=allow_absent)
    return classes


def _gate_upper(metrics: Mapping[str, MetricValue]) -> str | None:
    """The bound a claims gate compared (``gate_upper``; ``upper`` in reports that predate it)."""
    measured = "gate_upper" if "gate_upper" in metrics else "upper"
    return rule_above(measured, "max_upper", "max_upper")(metrics)


#: The failure line of each reason a claims verdict names, built from its public metrics
#: (``contract.RULE_TEXTS`` finds it; stored reports are rendered with it too).
RULE_TEXTS: Mapping[str, Rule] = MappingProxyType(
    {
        "unsupported_rate": rule_above("unsupported_rate", "max_unsupported_rate", "max"),
        "interval_upper": _gate_upper,
    }
)
