"""Unsupported-claim rates of generated clinical summaries.

What share of the atomic claims in generated summaries lack approved
supporting evidence, overall and per claim class, with claim-level bootstrap
intervals.  Non-diagnostic evaluation evidence only.  Importing this package
does not import numpy; the bootstrap loads it when a report is computed.
Names load on first use (PEP 562), so importing one module loads only what
it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_openmed._lazy import lazy_surface

if TYPE_CHECKING:
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

__getattr__, __dir__ = lazy_surface(
    __name__,
    {
        "pytest_openmed.claims.records": (
            "STANDARD_CLASSES",
            "normalise_class",
        ),
        "pytest_openmed.claims.report": (
            "STATES",
            "UNSUPPORTED_STATES",
            "BootstrapInterval",
            "ClaimClassMetrics",
            "UnsupportedClaimsReport",
        ),
        "pytest_openmed.claims.scoring": ("score_summary_claims",),
    },
    __all__,
)
