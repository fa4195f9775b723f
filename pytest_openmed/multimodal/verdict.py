"""The gate verdict of one validation assessment.

One rule, used by the ``[[pack]]`` gate, the ``assess_pack`` fixture and the
development control run: ``blocked`` and ``hold`` fail, ``rubric_satisfied``
passes; the reason is the assessment's value-free class and the metrics are
pack-level counts only.
"""

from __future__ import annotations

from pytest_openmed.contract import GateResult, GateStatus
from pytest_openmed.errors import InvalidArgument

from .assess import ValidationAssessment
from .vocabulary import Decision

__all__ = ["gate_result"]

_STATUS = {
    Decision.BLOCKED: GateStatus.BLOCKED,
    Decision.HOLD: GateStatus.HOLD,
    Decision.RUBRIC_SATISFIED: GateStatus.PASSED,
}


def gate_result(assessment: ValidationAssessment) -> GateResult:
    """The gate verdict of one assessment: status, reason class and counts only."""
    if type(assessment) is not ValidationAssessment:
        raise InvalidArgument("assessment must be a ValidationAssessment")
    return GateResult(
        kind="pack",
        status=_STATUS[assessment.decision],
        reason=assessment.reason.value,
        # Pack-level totals only: how many units failed is a cell count, and a
        # CI log is less protected than the evaluator's private assessment
        # (docs/multimodal.md, "Publish": a pass/fail flag can disclose a small failure cell).
        metrics={
            "units": len(assessment.units),
            "reviews": assessment.review_count,
            "adjudications": assessment.adjudication_count,
            # Closed label: evidence from simulated reviews says so in every channel.
            "review_origin": assessment.review_origin.value,
        },
        # Publishable by construction: closed labels and small-cell-suppressed aggregates.
        public_report=assessment.to_json(),
    )
