"""Unsupported-claim rates of generated clinical summaries.

What share of the atomic claims in generated summaries lack approved
supporting evidence, overall and per claim class, with claim-level bootstrap
intervals.  Non-diagnostic evaluation evidence only.  Importing this package
does not import numpy; the bootstrap loads it when a report is computed.
"""

from __future__ import annotations

from pytest_openmed.claims.records import STANDARD_CLASSES, normalise_class
from pytest_openmed.claims.report import (
    STATES,
    UNSUPPORTED_STATES,
    BootstrapInterval,
    ClaimClassMetrics,
    UnsupportedClaimsReport,
)
from pytest_openmed.claims.scoring import score_summary_claims

__all__ = [
    "STANDARD_CLASSES",
    "STATES",
    "UNSUPPORTED_STATES",
    "BootstrapInterval",
    "ClaimClassMetrics",
    "UnsupportedClaimsReport",
    "normalise_class",
    "score_summary_claims",
]
