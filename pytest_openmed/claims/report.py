"""The unsupported-claims report: value objects, their invariants, JSON and Markdown.

A report holds counts, rates, intervals, normalised class names, the
bootstrap configuration (including the seed, so a run can be reproduced) and
the digest and count of the evidence set.  It never holds a claim id, an
evidence id, a claim key or a path.  Every invariant is checked in
``__post_init__``, so a report built by hand, by the engine or by
:meth:`UnsupportedClaimsReport.from_json` obeys the same rules.
"""

from __future__ import annotations

import dataclasses
import json
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from pytest_openmed._canonical import is_digest
from pytest_openmed._jsonread import loads
from pytest_openmed._validate import MAX_SEED
from pytest_openmed._validate import check_seed as check_seed_range
from pytest_openmed.claims import messages
from pytest_openmed.claims.limits import (
    MAX_CLAIMS,
    MAX_DRAWS,
    MAX_EVIDENCE,
    MAX_RESAMPLES,
)
from pytest_openmed.claims.limits import MAX_REPORT_CHARS as _MAX_REPORT_CHARS
from pytest_openmed.claims.records import normalise_class
from pytest_openmed.errors import InputRefused, InvalidArgument, LimitExceeded

__all__ = [
    "MAX_DRAWS",
    "MAX_RESAMPLES",
    "MAX_SEED",
    "NOTICE",
    "SCHEMA",
    "SCHEMA_VERSION",
    "STATES",
    "UNSUPPORTED_STATES",
    "BootstrapInterval",
    "ClaimClassMetrics",
    "UnsupportedClaimsReport",
    "check_alpha",
    "check_configuration",
    "check_draw_budget",
    "check_resamples",
    "check_seed",
]

SCHEMA = "pytest-openmed/claims-report"
SCHEMA_VERSION = 1
NOTICE = (
    "Non-diagnostic evaluation evidence: the share of generated claims that lack approved "
    "supporting evidence. Not a clinical decision, a certification or a guarantee that a "
    "summary is faithful; route non-supported claims to human review."
)

#: The four claim states, in report order.
STATES = ("supported", "contradicted", "unresolved", "uncited")
#: The states that count as unsupported.
UNSUPPORTED_STATES = ("contradicted", "unresolved", "uncited")


_Record = TypeVar("_Record", "BootstrapInterval", "ClaimClassMetrics")


def check_configuration(n_resamples: object, seed: object, alpha: object) -> tuple[int, int, float]:
    """Validated ``(n_resamples, seed, alpha)``; integer-likes such as numpy ints are accepted."""
    return check_resamples(n_resamples), check_seed(seed), check_alpha(alpha)


def check_resamples(n_resamples: object) -> int:
    resamples = _integer(n_resamples, messages.RESAMPLES_TYPE)
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise InputRefused(messages.RESAMPLES_RANGE)
    return resamples


def check_seed(seed: object) -> int:
    return check_seed_range(_integer(seed, messages.SEED_TYPE), messages.SEED_RANGE)


def check_alpha(alpha: object) -> float:
    value = _real(alpha, messages.ALPHA_TYPE)
    if not 0.0 < value < 1.0:  # also refuses NaN
        raise InputRefused(messages.ALPHA_RANGE)
    return value


def check_draw_budget(claim_count: int, n_resamples: int) -> None:
    """Refuse an evaluation whose bootstrap would exceed :data:`MAX_DRAWS` claim draws."""
    if 2 * claim_count * n_resamples > MAX_DRAWS:
        raise LimitExceeded(messages.TOO_MANY_DRAWS)


def _integer(value: object, message: str) -> int:
    if isinstance(value, bool):
        raise InvalidArgument(message)
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except Exception:  # also a caller's __index__ that raises: its text never passes
        raise InvalidArgument(message) from None


def _real(value: object, message: str) -> float:
    """``value`` (an int or float, not a bool) as a float; a raising ``__float__`` is refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(message)
    try:
        return float(value)
    except Exception:
        raise InvalidArgument(message) from None


def _count(value: object, high: int) -> int:
    if type(value) is not int:
        raise InvalidArgument(messages.REPORT_NUMBER)
    if not 0 <= value <= high:
        raise InputRefused(messages.REPORT_NUMBER)
    return value


def _unit(value: object) -> float:
    result = _real(value, messages.REPORT_NUMBER)
    if not 0.0 <= result <= 1.0:  # also refuses NaN
        raise InputRefused(messages.REPORT_NUMBER)
    return result


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """A claim-level percentile bootstrap interval of an unsupported rate.

    ``degenerate`` is set exactly when the collection has fewer than two
    claims; the interval is then zero-width at the point estimate.
    """

    lower: float
    upper: float
    point: float
    n_resamples: int
    alpha: float
    degenerate: bool

    def __post_init__(self) -> None:
        for name in ("lower", "upper", "point"):
            object.__setattr__(self, name, _unit(getattr(self, name)))
        object.__setattr__(self, "n_resamples", check_resamples(self.n_resamples))
        object.__setattr__(self, "alpha", check_alpha(self.alpha))
        if type(self.degenerate) is not bool:
            raise InvalidArgument(messages.REPORT_NUMBER)
        if not self.lower <= self.point <= self.upper:
            raise InputRefused(messages.REPORT_INTERVAL)
        if self.degenerate and self.lower != self.upper:
            raise InputRefused(messages.REPORT_DEGENERATE)

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def to_dict(self) -> dict[str, Any]:
        return {
            "lower": self.lower,
            "upper": self.upper,
            "point": self.point,
            "n_resamples": self.n_resamples,
            "alpha": self.alpha,
            "degenerate": self.degenerate,
        }

    def __repr__(self) -> str:
        return (
            f"BootstrapInterval(lower={self.lower:.4f}, upper={self.upper:.4f}, "
            f"point={self.point:.4f}, n_resamples={self.n_resamples}, alpha={self.alpha!r}, "
            f"degenerate={self.degenerate})"
        )


@dataclass(frozen=True, slots=True)
class ClaimClassMetrics:
    """Four-state counts, unsupported count and rate, and interval of one collection."""

    claim_count: int
    counts: Mapping[str, int]
    unsupported_count: int
    unsupported_rate: float
    interval: BootstrapInterval

    def __post_init__(self) -> None:
        counts = _four_counts(self.counts)
        object.__setattr__(self, "counts", MappingProxyType(counts))
        claim_count = _count(self.claim_count, MAX_CLAIMS)
        unsupported = _count(self.unsupported_count, MAX_CLAIMS)
        if claim_count != sum(counts.values()) or unsupported != sum(
            counts[state] for state in UNSUPPORTED_STATES
        ):
            raise InputRefused(messages.REPORT_COUNTS)
        rate = _unit(self.unsupported_rate)
        object.__setattr__(self, "unsupported_rate", rate)
        if rate != _rate(unsupported, claim_count):
            raise InputRefused(messages.REPORT_RATE)
        interval = _revalidated(self.interval, BootstrapInterval)
        object.__setattr__(self, "interval", interval)
        if interval.point != rate:
            raise InputRefused(messages.REPORT_INTERVAL_POINT)
        if interval.degenerate != (claim_count < 2):
            raise InputRefused(messages.REPORT_DEGENERATE)
        if unsupported in (0, claim_count) and interval.lower != interval.upper:
            raise InputRefused(messages.REPORT_ZERO_WIDTH)

    @classmethod
    def from_counts(
        cls, counts: Mapping[str, int], interval: BootstrapInterval
    ) -> ClaimClassMetrics:
        """Metrics whose totals and rate are derived from the four-state ``counts``."""
        checked = _four_counts(counts)
        claim_count = sum(checked.values())
        unsupported = sum(checked[state] for state in UNSUPPORTED_STATES)
        return cls(
            claim_count=claim_count,
            counts=checked,
            unsupported_count=unsupported,
            unsupported_rate=_rate(unsupported, claim_count),
            interval=interval,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim_count": self.claim_count,
            "counts": dict(self.counts),
            "unsupported_count": self.unsupported_count,
            "unsupported_rate": self.unsupported_rate,
            "interval": self.interval.to_dict(),
        }

    def __repr__(self) -> str:
        return (
            f"ClaimClassMetrics(claim_count={self.claim_count}, "
            f"unsupported_count={self.unsupported_count}, "
            f"unsupported_rate={self.unsupported_rate:.4f})"
        )


def _four_counts(counts: object) -> dict[str, int]:
    if not isinstance(counts, Mapping):
        raise InvalidArgument(messages.REPORT_TYPE)
    try:  # a caller's mapping runs its own code
        names = set(counts)
        values = {state: counts[state] for state in STATES} if names == set(STATES) else None
    except Exception:
        raise InvalidArgument(messages.REPORT_TYPE) from None
    if values is None:
        raise InputRefused(messages.REPORT_COUNTS)
    return {state: _count(value, MAX_CLAIMS) for state, value in values.items()}


def _revalidated(value: object, kind: type[_Record]) -> _Record:
    """``value`` as an exact ``kind``.

    An instance of the class itself was checked when it was built (it is
    frozen); a subclass instance may have skipped or changed the checks, so
    it is rebuilt from its fields, which checks them again.
    """
    if type(value) is kind:
        return value
    try:
        if not isinstance(value, kind):
            raise InvalidArgument(messages.REPORT_TYPE)
        fields = {field.name: getattr(value, field.name) for field in dataclasses.fields(kind)}
    except Exception:
        raise InvalidArgument(messages.REPORT_TYPE) from None
    return kind(**fields)


def _rate(unsupported: int, claim_count: int) -> float:
    return unsupported / claim_count if claim_count else 0.0


@dataclass(frozen=True, slots=True)
class UnsupportedClaimsReport:
    """Overall and per-class unsupported-claim metrics of one evaluation.

    ``seed`` is recorded beside ``n_resamples`` and ``alpha`` because the
    intervals cannot be reproduced without it; it identifies no claim.
    """

    overall: ClaimClassMetrics
    by_claim_class: Mapping[str, ClaimClassMetrics]
    evidence_digest: str
    evidence_count: int
    seed: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "overall", _revalidated(self.overall, ClaimClassMetrics))
        if not isinstance(self.by_claim_class, Mapping):
            raise InvalidArgument(messages.REPORT_TYPE)
        try:  # a caller's mapping runs its own code
            given = dict(self.by_claim_class)
        except Exception:
            raise InvalidArgument(messages.REPORT_TYPE) from None
        classes = {name: _revalidated(m, ClaimClassMetrics) for name, m in given.items()}
        for name, metrics in classes.items():
            if not _is_class_name(name) or metrics.claim_count < 1:
                raise InputRefused(messages.REPORT_CLASS)
        object.__setattr__(self, "by_claim_class", MappingProxyType(dict(sorted(classes.items()))))
        for state in STATES:
            if self.overall.counts[state] != sum(m.counts[state] for m in classes.values()):
                raise InputRefused(messages.REPORT_COUNTS)
        configuration = (self.overall.interval.n_resamples, self.overall.interval.alpha)
        for metrics in classes.values():
            if (metrics.interval.n_resamples, metrics.interval.alpha) != configuration:
                raise InputRefused(messages.REPORT_CONFIGURATION)
        object.__setattr__(self, "seed", check_seed(self.seed))
        check_draw_budget(self.overall.claim_count, self.n_resamples)
        if not is_digest(self.evidence_digest):
            raise InputRefused(messages.REPORT_DIGEST)
        if type(self.evidence_count) is not int or not 0 <= self.evidence_count <= MAX_EVIDENCE:
            raise InputRefused(messages.REPORT_EVIDENCE_COUNT)

    @property
    def n_resamples(self) -> int:
        return self.overall.interval.n_resamples

    @property
    def alpha(self) -> float:
        return self.overall.interval.alpha

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "notice": NOTICE,
            "configuration": {
                "n_resamples": self.n_resamples,
                "alpha": self.alpha,
                "seed": self.seed,
            },
            "evidence": {"count": self.evidence_count, "digest": self.evidence_digest},
            "overall": self.overall.to_dict(),
            "by_claim_class": {
                name: metrics.to_dict() for name, metrics in self.by_claim_class.items()
            },
        }

    def to_json(self) -> str:
        """Deterministic JSON (sorted keys, two-space indent, trailing newline)."""
        return (
            json.dumps(self.to_dict(), sort_keys=True, indent=2, ensure_ascii=True, allow_nan=False)
            + "\n"
        )

    def to_markdown(self) -> str:
        """A deterministic Markdown summary with the same numbers as :meth:`to_json`."""
        lines = [
            "# Unsupported-claims report",
            "",
            f"> {NOTICE}",
            "",
            f"- Claims: {self.overall.claim_count} in {len(self.by_claim_class)} classes",
            f"- Evidence rows: {self.evidence_count} (digest `{self.evidence_digest}`)",
            (
                f"- Interval: claim-level percentile bootstrap, {self.n_resamples} resamples, "
                f"alpha {self.alpha!r}, seed {self.seed}"
            ),
            "- Unsupported = contradicted + unresolved + uncited",
            "",
            "| scope | claims | supported | contradicted | unresolved | uncited "
            "| unsupported | rate | lower | upper | degenerate |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
            _markdown_row("overall", self.overall),
        ]
        lines.extend(_markdown_row(name, m) for name, m in self.by_claim_class.items())
        return "\n".join(lines) + "\n"

    @classmethod
    def from_json(cls, text: str) -> UnsupportedClaimsReport:
        """Parse and revalidate a report; anything inconsistent is refused."""
        if type(text) is not str:
            raise InvalidArgument(messages.REPORT_TEXT_TYPE)
        if len(text) > _MAX_REPORT_CHARS:
            raise InputRefused(messages.REPORT_TOO_LARGE)
        document = loads(text, messages.REPORT_NOT_JSON, numbers=messages.REPORT_NUMBER)
        top = _fields(
            document,
            {
                "schema",
                "schema_version",
                "notice",
                "configuration",
                "evidence",
                "overall",
                "by_claim_class",
            },
        )
        if (
            top["schema"] != SCHEMA
            or type(top["schema_version"]) is not int
            or top["schema_version"] != SCHEMA_VERSION
        ):
            raise InputRefused(messages.REPORT_VERSION)
        if top["notice"] != NOTICE:
            raise InputRefused(messages.REPORT_SHAPE)
        configuration = _fields(top["configuration"], {"n_resamples", "alpha", "seed"})
        evidence = _fields(top["evidence"], {"count", "digest"})
        classes = top["by_claim_class"]
        if type(classes) is not dict:
            raise InputRefused(messages.REPORT_SHAPE)
        try:
            report = cls(
                overall=_metrics_from_dict(top["overall"]),
                by_claim_class={name: _metrics_from_dict(m) for name, m in classes.items()},
                evidence_digest=evidence["digest"],
                evidence_count=evidence["count"],
                seed=_json_int(configuration["seed"]),
            )
            resamples = _json_int(configuration["n_resamples"])
            alpha = _json_number(configuration["alpha"])
        except TypeError:
            raise InputRefused(messages.REPORT_NUMBER) from None
        if (resamples, alpha) != (report.n_resamples, report.alpha):
            raise InputRefused(messages.REPORT_CONFIGURATION)
        return report

    def __repr__(self) -> str:
        return (
            f"UnsupportedClaimsReport(claim_count={self.overall.claim_count}, "
            f"classes={len(self.by_claim_class)}, "
            f"unsupported_rate={self.overall.unsupported_rate:.4f}, "
            f"evidence_count={self.evidence_count})"
        )


def _is_class_name(name: object) -> bool:
    try:
        return normalise_class(name) == name
    except (TypeError, ValueError):
        return False


def _markdown_row(scope: str, metrics: ClaimClassMetrics) -> str:
    counts = metrics.counts
    interval = metrics.interval
    cells = [
        scope,
        str(metrics.claim_count),
        *(str(counts[state]) for state in STATES),
        str(metrics.unsupported_count),
        f"{metrics.unsupported_rate:.4f}",
        f"{interval.lower:.4f}",
        f"{interval.upper:.4f}",
        "yes" if interval.degenerate else "no",
    ]
    return "| " + " | ".join(cells) + " |"


def _fields(value: object, names: set[str]) -> dict[str, Any]:
    if type(value) is not dict or set(value) != names:
        raise InputRefused(messages.REPORT_SHAPE)
    return value


def _json_int(value: object) -> int:
    if type(value) is not int:
        raise InputRefused(messages.REPORT_NUMBER)
    return value


def _json_number(value: object) -> float:
    if type(value) is not int and type(value) is not float:
        raise InputRefused(messages.REPORT_NUMBER)
    try:
        return float(value)
    except OverflowError:  # an integer of 309+ digits: out of range, like any bad number
        raise InputRefused(messages.REPORT_NUMBER) from None


def _json_bool(value: object) -> bool:
    if type(value) is not bool:
        raise InputRefused(messages.REPORT_NUMBER)
    return value


def _metrics_from_dict(value: object) -> ClaimClassMetrics:
    data = _fields(
        value, {"claim_count", "counts", "unsupported_count", "unsupported_rate", "interval"}
    )
    counts = _fields(data["counts"], set(STATES))
    interval = _fields(
        data["interval"], {"lower", "upper", "point", "n_resamples", "alpha", "degenerate"}
    )
    return ClaimClassMetrics(
        claim_count=_json_int(data["claim_count"]),
        counts={state: _json_int(counts[state]) for state in STATES},
        unsupported_count=_json_int(data["unsupported_count"]),
        unsupported_rate=_json_number(data["unsupported_rate"]),
        interval=BootstrapInterval(
            lower=_json_number(interval["lower"]),
            upper=_json_number(interval["upper"]),
            point=_json_number(interval["point"]),
            n_resamples=_json_int(interval["n_resamples"]),
            alpha=_json_number(interval["alpha"]),
            degenerate=_json_bool(interval["degenerate"]),
        ),
    )
