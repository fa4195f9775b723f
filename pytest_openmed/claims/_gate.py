"""The claims gate: read the gate's input files, score, and judge thresholds.

PYTEST_DONT_REWRITE

The plugin calls :func:`evaluate_gate` when a ``[[claims]]`` gate item runs.
Input files are JSON arrays or JSON Lines of records; they are size- and
count-bounded, and every problem is an ``OSError``/``ValueError`` with a fixed
message (never the path or the content).  Verdicts carry names and numbers only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_openmed._exact import exact_upper, minimum_trials
from pytest_openmed._jsonread import RecordFileError, Refusal, read_records
from pytest_openmed._validate import check_rate
from pytest_openmed.claims import messages
from pytest_openmed.claims.records import MAX_CLAIMS, MAX_EVIDENCE, normalise_class
from pytest_openmed.claims.report import STATES, ClaimClassMetrics, UnsupportedClaimsReport
from pytest_openmed.claims.scoring import score_summary_claims
from pytest_openmed.contract import (
    CLAIMS_CLASS_KEYS,
    CLAIMS_THRESHOLDS,
    GateItemRefused,
    GateResult,
    GateSettings,
    GateSpec,
    GateStatus,
    MetricValue,
    locate_input_error,
)
from pytest_openmed.errors import InputRefused, InvalidArgument

#: Largest claims or evidence file a gate reads.
MAX_INPUT_BYTES = 256 * 1024 * 1024

#: Per-class keys: the thresholds, and the opt-out for a class that may be empty.
_NO_CLASSES: Mapping[str, Mapping[str, float]] = MappingProxyType({})
_LIMIT_MESSAGES = {
    MAX_CLAIMS: messages.FILE_TOO_MANY_CLAIMS,
    MAX_EVIDENCE: messages.FILE_TOO_MANY_EVIDENCE,
}


def load_records(path: Path, *, limit: int = MAX_EVIDENCE) -> list[dict[str, Any]]:
    """Records of a JSON array (first non-blank character ``[``) or JSON Lines file.

    ``limit`` is :data:`~.records.MAX_CLAIMS` or :data:`~.records.MAX_EVIDENCE`.
    A whitespace-only file is refused (``[]`` is the empty collection); blank
    JSON Lines lines are skipped; objects with a repeated field name are refused.
    The file is streamed and records are counted while they are read
    (:mod:`pytest_openmed._jsonread`), so an oversized file is refused at the
    first record over the limit, in bounded memory.  A JSON Lines error names
    its line (``line 7: …``; 1-based, blank lines counted).
    """
    too_many = _LIMIT_MESSAGES.get(limit)
    if too_many is None:
        raise InputRefused(messages.GATE_OPTIONS)
    try:
        return read_records(path, limit=limit, max_bytes=MAX_INPUT_BYTES)
    except RecordFileError as error:
        refusal = _refused(error, too_many)
        if error.line is not None:
            refusal = locate_input_error(refusal, f"line {error.line}")
        raise refusal from None


def _load_input(name: str, path: Path, limit: int) -> list[dict[str, Any]]:
    """:func:`load_records`, its errors saying which input: ``claims input, line 7: …``."""
    try:
        return load_records(path, limit=limit)
    except (OSError, ValueError) as error:
        raise locate_input_error(error, f"{name} input") from None


def _refused(error: RecordFileError, too_many: str) -> BaseException:
    """The one place a refused input file becomes the engine's fixed message."""
    if error.reason is Refusal.UNREADABLE:
        return OSError(messages.FILE_UNREADABLE)
    if error.reason is Refusal.TOO_MANY:
        return InputRefused(too_many)
    return InputRefused(_FILE_MESSAGES[error.reason])


_FILE_MESSAGES = {
    Refusal.TOO_LARGE: messages.FILE_TOO_LARGE,
    Refusal.EMPTY: messages.FILE_EMPTY,
    Refusal.NOT_UTF8: messages.FILE_NOT_UTF8,
    Refusal.NOT_JSON: messages.FILE_NOT_JSON,
    Refusal.DUPLICATE_KEY: messages.FILE_DUPLICATE_KEY,
    Refusal.RECORD_TYPE: messages.FILE_RECORD_TYPE,
}


def evaluate_thresholds(
    report: UnsupportedClaimsReport,
    *,
    max_unsupported_rate: float | None = None,
    max_upper: float | None = None,
    classes: Mapping[str, Mapping[str, float | bool]] = _NO_CLASSES,
) -> dict[str, GateResult | GateItemRefused]:
    """Verdicts for ``overall`` and for ``class[<label>]`` of each label in ``classes``.

    A collection too small for its ``max_upper`` (fewer claims than the exact
    bound needs with none unsupported, :func:`~pytest_openmed._exact.minimum_trials`)
    is refused as underpowered, naming ``needed_claims``.  Otherwise the rate
    rule is checked first (``unsupported_rate`` when the rate exceeds
    ``max_unsupported_rate``), then the interval rule (``interval_upper`` when
    the gate bound, :func:`gate_upper`, exceeds ``max_upper``).  A class with thresholds
    but no claims in the input cannot be judged: its entry is a
    :class:`GateItemRefused` (fail closed: a misspelt class must not pass),
    unless its thresholds set ``allow_absent`` to ``True``, when it passes with
    ``claim_count`` 0.  Labels are normalised like claim classes, so a custom
    class is found (and named) under its ``class_`` token.
    """
    if not isinstance(report, UnsupportedClaimsReport) or not isinstance(classes, Mapping):
        raise InvalidArgument(messages.GATE_OPTIONS)
    results: dict[str, GateResult | GateItemRefused] = {
        "overall": _verdict(report.overall, max_unsupported_rate, max_upper, "overall")
    }
    for label, thresholds in classes.items():
        if not isinstance(thresholds, Mapping):
            raise InvalidArgument(messages.GATE_OPTIONS)
        if set(thresholds) - set(CLAIMS_CLASS_KEYS):
            raise InputRefused(messages.THRESHOLD_NAME)
        allow_absent = thresholds.get("allow_absent", False)
        if type(allow_absent) is not bool:
            raise InvalidArgument(messages.GATE_OPTIONS)
        normalised = normalise_class(label)
        metrics = report.by_claim_class.get(normalised)
        if metrics is None and not allow_absent:
            results[f"class[{label}]"] = GateItemRefused(messages.CLASS_ABSENT, normalised)
            continue
        results[f"class[{label}]"] = _verdict(
            metrics,
            thresholds.get("max_unsupported_rate"),
            thresholds.get("max_upper"),
            normalised,
        )
    return results


def _threshold(value: object) -> float | None:
    if value is None:
        return None
    return check_rate(
        value,
        messages.THRESHOLD_VALUE,
        wrong_type=lambda: InvalidArgument(messages.THRESHOLD_VALUE),
    )


#: Reason recorded for an item refused because its collection is too small for ``max_upper``.
UNDERPOWERED = "underpowered"
#: ``gate_upper_method`` of a gate bound: which of the two bounds was the larger.
BOOTSTRAP, CLOPPER_PEARSON = "bootstrap", "clopper_pearson"


def gate_upper(metrics: ClaimClassMetrics) -> tuple[float, str]:
    """The bound ``max_upper`` is compared with, and which bound it is.

    The larger of the report's bootstrap upper bound and the exact one-sided
    (Clopper–Pearson) upper bound at confidence ``1 − alpha``: never below the
    exact bound, so a small or uniform collection (where the percentile
    bootstrap collapses to the point) cannot pass on too little evidence.
    An empty collection bounds nothing: 1.
    """
    if metrics.claim_count == 0:
        return 1.0, CLOPPER_PEARSON
    exact = exact_upper(
        metrics.unsupported_count, metrics.claim_count, 1.0 - metrics.interval.alpha
    )
    if metrics.interval.upper >= exact:
        return metrics.interval.upper, BOOTSTRAP
    return exact, CLOPPER_PEARSON


def _verdict(
    metrics: ClaimClassMetrics | None, max_rate: object, max_upper: object, subject: str
) -> GateResult | GateItemRefused:
    rate_limit = _threshold(max_rate)
    upper_limit = _threshold(max_upper)
    if metrics is not None and upper_limit is not None:
        confidence = 1.0 - metrics.interval.alpha
        needed = minimum_trials(upper_limit, confidence)
        if needed is None or metrics.claim_count < needed:
            figures: dict[str, MetricValue] = {
                "claim_count": metrics.claim_count,
                "needed_claims": needed,
                "max_upper": upper_limit,
                "confidence": confidence,
            }
            return GateItemRefused(messages.UNDERPOWERED, subject, figures, UNDERPOWERED)
    values: dict[str, MetricValue] = {
        "claim_count": 0,
        "unsupported_count": 0,
        "unsupported_rate": 0.0,
        "lower": 0.0,
        "upper": 0.0,
        "degenerate": True,
        **dict.fromkeys(STATES, 0),
        "max_unsupported_rate": rate_limit,
        "max_upper": upper_limit,
    }
    status, reason = GateStatus.PASSED, "ok"
    if metrics is not None:
        values.update(
            claim_count=metrics.claim_count,
            unsupported_count=metrics.unsupported_count,
            unsupported_rate=metrics.unsupported_rate,
            lower=metrics.interval.lower,
            upper=metrics.interval.upper,
            degenerate=metrics.interval.degenerate,
            **metrics.counts,
        )
        bound, method = gate_upper(metrics)
        values.update(
            gate_upper=bound, gate_upper_method=method, confidence=1.0 - metrics.interval.alpha
        )
        if rate_limit is not None and metrics.unsupported_rate > rate_limit:
            status, reason = GateStatus.THRESHOLD, "unsupported_rate"
        elif upper_limit is not None and bound > upper_limit:
            status, reason = GateStatus.THRESHOLD, "interval_upper"
    return GateResult(kind="claims", status=status, reason=reason, metrics=values)


def evaluate_gate(
    spec: GateSpec, settings: GateSettings
) -> dict[str, GateResult | GateItemRefused]:
    """One verdict per item of a ``[[claims]]`` gate (``overall``, ``class[<label>]``)."""
    options = spec.options
    try:
        claims_path = options["claims"]
        evidence_path = options["evidence"]
        seed = options.get("seed")
        resamples = options.get("resamples")
        thresholds = options.get("thresholds", {})
        classes = options.get("classes", {})
        alpha = options.get("alpha", 0.05)
    except (KeyError, TypeError):
        raise InputRefused(messages.GATE_OPTIONS) from None
    if not isinstance(thresholds, Mapping) or not isinstance(classes, Mapping):
        raise InvalidArgument(messages.GATE_OPTIONS)
    if set(thresholds) - set(CLAIMS_THRESHOLDS):
        raise InputRefused(messages.THRESHOLD_NAME)
    wanted = {f"class[{label}]" for label in classes} | {"overall"}
    if not set(spec.items) <= wanted:
        raise InputRefused(messages.GATE_ITEM)
    report = score_summary_claims(
        _load_input("claims", claims_path, MAX_CLAIMS),
        _load_input("evidence", evidence_path, MAX_EVIDENCE),
        n_resamples=settings.resamples if resamples is None else resamples,
        seed=settings.seed if seed is None else seed,
        alpha=alpha,
    )
    max_rate = thresholds.get("max_unsupported_rate")
    results = evaluate_thresholds(
        report,
        # --openmed-max-rate applies only where the gate file sets no overall rate.
        max_unsupported_rate=settings.max_rate if max_rate is None else max_rate,
        max_upper=thresholds.get("max_upper"),
        classes=classes,
    )
    return {item: results[item] for item in spec.items}
