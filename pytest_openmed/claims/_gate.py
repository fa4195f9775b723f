"""The claims gate: read the gate's input files, score, and judge thresholds.

The plugin calls :func:`evaluate_gate` when a ``[[claims]]`` gate item runs.
Input files are JSON arrays or JSON Lines of records; they are size- and
count-bounded, and every problem is an ``OSError``/``ValueError`` with a fixed
message (never the path or the content).  Verdicts carry names and numbers only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_openmed._exact import exact_upper, minimum_trials
from pytest_openmed._jsonread import RecordFileError, Refusal, read_records
from pytest_openmed.claims import messages
from pytest_openmed.claims.declaration import GateDeclaration, Thresholds
from pytest_openmed.claims.limits import MAX_CLAIMS, MAX_EVIDENCE, MAX_INPUT_BYTES
from pytest_openmed.claims.records import STANDARD_CLASSES, normalise_class
from pytest_openmed.claims.report import STATES, ClaimClassMetrics, UnsupportedClaimsReport
from pytest_openmed.claims.scoring import score_summary_claims
from pytest_openmed.contract import (
    GateItemRefused,
    GateResult,
    GateSettings,
    GateSpec,
    GateStatus,
    MetricValue,
    declaration_of,
    locate_input_error,
)
from pytest_openmed.errors import InputRefused, InvalidArgument, OpenmedError

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


def _record_place(path: Path, index: int) -> str:
    """Where record ``index`` (0-based) of a file is: ``index 3``, or ``line 7`` of JSON Lines.

    Read again only when a record was refused; a JSON Lines file's blank
    lines are counted, as in its syntax errors.
    """
    try:
        data = path.read_bytes()
    except OSError:
        return f"record {index}"
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        return f"index {index}"
    seen = -1
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip(b"\xef\xbb\xbf \t\r"):
            seen += 1
            if seen == index:
                return f"line {number}"
    return f"record {index}"


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
    report: UnsupportedClaimsReport, declaration: GateDeclaration
) -> dict[str, GateResult | GateItemRefused]:
    """Verdicts for ``overall`` and for ``class[<label>]`` of each class the declaration names.

    A collection too small for its ``max_upper`` (fewer claims than the exact
    bound needs with none unsupported, :func:`~pytest_openmed._exact.minimum_trials`)
    is refused as underpowered, naming ``needed_claims``.  Otherwise the rate
    rule is checked first (``unsupported_rate`` when the rate exceeds
    ``max_unsupported_rate``), then the interval rule (``interval_upper`` when
    the gate bound, :func:`gate_upper`, exceeds ``max_upper``).  A class with thresholds
    but no claims in the input cannot be judged: its entry is a
    :class:`GateItemRefused` (fail closed: a misspelt class must not pass),
    unless it sets ``allow_absent``, when it passes with ``claim_count`` 0.
    Labels are normalised like claim classes, so a custom class is found (and
    named) under its ``class_`` token.  The thresholds were checked when the
    declaration was built (:func:`~pytest_openmed.claims.declaration.declare`).
    """
    if not isinstance(report, UnsupportedClaimsReport) or not isinstance(
        declaration, GateDeclaration
    ):
        raise InvalidArgument(messages.GATE_OPTIONS)
    results: dict[str, GateResult | GateItemRefused] = {
        "overall": _verdict(report.overall, declaration.overall, "overall")
    }
    for label, thresholds in declaration.classes.items():
        normalised = normalise_class(label)
        metrics = report.by_claim_class.get(normalised)
        if metrics is None and not thresholds.allow_absent:
            results[f"class[{label}]"] = _absent(label, normalised)
            continue
        results[f"class[{label}]"] = _verdict(metrics, thresholds, normalised)
    return results


#: Reason recorded for an item refused because its collection is too small for ``max_upper``.
UNDERPOWERED = "underpowered"


def _absent(label: str, normalised: str) -> GateItemRefused:
    """The refusal of a class threshold no claim has.

    A label that is neither a standard class nor a ``class_`` token is shown as
    the gate file spells it (configuration, already in the item's node id, not
    data) with the closest standard class, since a misspelling is the likely cause.
    """
    if normalised in STANDARD_CLASSES or normalised == label:
        return GateItemRefused(messages.CLASS_ABSENT, normalised)
    import difflib

    closest = difflib.get_close_matches(label, sorted(STANDARD_CLASSES), n=1, cutoff=0.6)
    figures = {"closest_standard_class": closest[0]} if closest else None
    return GateItemRefused(messages.CLASS_NOT_STANDARD, label, figures)


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
    metrics: ClaimClassMetrics | None, thresholds: Thresholds, subject: str
) -> GateResult | GateItemRefused:
    rate_limit, upper_limit = thresholds.max_unsupported_rate, thresholds.max_upper
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
    declaration = declaration_of(spec, GateDeclaration, messages.GATE_OPTIONS)
    if declaration.claims is None or declaration.evidence is None:
        raise InvalidArgument(messages.GATE_OPTIONS)
    files = {"claims": declaration.claims, "evidence": declaration.evidence}
    try:
        report = score_summary_claims(
            _load_input("claims", declaration.claims, MAX_CLAIMS),
            _load_input("evidence", declaration.evidence, MAX_EVIDENCE),
            n_resamples=settings.resamples
            if declaration.resamples is None
            else declaration.resamples,
            seed=settings.seed if declaration.seed is None else declaration.seed,
            alpha=declaration.alpha,
        )
    except OpenmedError as error:
        record = getattr(error, "record", None)
        if record is None:
            raise
        which, index, message = record
        error.args = (f"{which} input, {_record_place(files[which], index)}: {message}",)
        raise error from None
    return evaluate_thresholds(report, declaration.with_run_rate(settings.max_rate))
