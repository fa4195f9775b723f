"""The public report: closed labels, fixed limitations and suppressed aggregates only.

:func:`public_report` is a pure function of the tallies (it never sees the
private assessment); ``ValidationAssessment.public_report()`` passes them in.  It
emits the task, the three slices (always all three), the review
origin (``development_simulation`` whenever any review or adjudication was
simulated, else ``attested``), the fixed limitation strings, the cell size,
and per slice and overall, for each metric: count, denominator, rate and the
Wilson 95% interval — or, for a suppressed block, only ``{"suppressed": true}``.
No decision, digest, identity, source text, output or reason appears.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_openmed._wilson import wilson_interval

from .metrics import Tally
from .suppression import block_suppressed, overall_suppressed
from .vocabulary import (
    LIMITATIONS,
    METRICS,
    SIMULATION_LIMITATION,
    CaseSlice,
    ReportOrigin,
    ValidationTask,
)

__all__ = ["REPORT_SCHEMA", "REPORT_SCHEMA_VERSION", "public_report"]

REPORT_SCHEMA = "openmed.multimodal.public_report"
REPORT_SCHEMA_VERSION = "1.0"

_SUPPRESSED: dict[str, Any] = {"suppressed": True}


def public_report(
    *,
    task: ValidationTask,
    review_origin: ReportOrigin,
    min_cell: int,
    slices: Mapping[CaseSlice, Tally],
    overall: Tally,
) -> dict[str, Any]:
    """The suppressed public report of one candidate's tallies, as a JSON-able mapping.

    ``slices`` holds the tally of every :class:`CaseSlice` (an empty slice
    has zero units); ``overall`` the tally of all units.
    """
    blocks: dict[str, dict[str, Any]] = {}
    flags: list[bool] = []
    for case_slice in CaseSlice:
        counted = slices[case_slice]
        suppressed = block_suppressed(counted.units, counted.counts, min_cell)
        flags.append(suppressed)
        blocks[case_slice.value] = dict(_SUPPRESSED) if suppressed else _block(counted)
    overall_hidden = overall_suppressed(flags, overall.units, overall.counts, min_cell)
    limitations = list(LIMITATIONS)
    if review_origin is ReportOrigin.DEVELOPMENT_SIMULATION:
        limitations.append(SIMULATION_LIMITATION)
    return {
        "schema": REPORT_SCHEMA,
        "schema_version": REPORT_SCHEMA_VERSION,
        "task": task.value,
        "review_origin": review_origin.value,
        "non_diagnostic": True,
        "limitations": limitations,
        "min_cell": min_cell,
        "slices": blocks,
        "overall": dict(_SUPPRESSED) if overall_hidden else _block(overall),
    }


def _block(counted: Tally) -> dict[str, Any]:
    metrics: dict[str, Any] = {}
    for name in METRICS:
        count = counted.counts[name]
        interval = wilson_interval(count, counted.units)
        metrics[name] = {
            "count": count,
            "denominator": counted.units,
            "rate": count / counted.units,
            "interval": {"lower": interval.lower, "upper": interval.upper},
        }
    return {"suppressed": False, "units": counted.units, "metrics": metrics}
