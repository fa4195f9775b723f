"""The closed vocabularies of multimodal validation and its fixed limitation text.

Every label that can reach a reviewer packet, a stored document or the public
report is one of these values; nothing free-form is published.
"""

from __future__ import annotations

import enum

__all__ = [
    "ALIASES",
    "CRITERIA",
    "LIMITATIONS",
    "METRICS",
    "SIMULATION_LIMITATION",
    "SLICE_REFUSED",
    "CaseSlice",
    "Decision",
    "DecisionReason",
    "DisagreementReason",
    "ReportOrigin",
    "ReviewOrigin",
    "SafetyFailure",
    "ValidationTask",
]


class ValidationTask(enum.StrEnum):
    """The six separate, non-diagnostic review tasks."""

    ECG_QUALITY = "ecg_quality"
    ECG_INTERVALS = "ecg_intervals"
    FORMS = "forms"
    DICOM_FRAMES = "dicom_frames"
    BURNED_IN = "burned_in"
    WSI_TILES = "wsi_tiles"


class CaseSlice(enum.StrEnum):
    """The closed slice of every case; all three always appear in a report."""

    NOMINAL = "nominal"
    ADVERSE_ACQUISITION = "adverse_acquisition"
    AMBIGUITY_CONFLICT = "ambiguity_conflict"


#: The refusal of a slice outside :class:`CaseSlice` (a case's, or a development source's).
SLICE_REFUSED = "slice must be one of: " + ", ".join(CaseSlice)


class ReviewOrigin(enum.StrEnum):
    """Caller-declared origin of a review: an actual one or a synthetic exercise."""

    ATTESTED = "attested"
    SIMULATED = "simulated"


class ReportOrigin(enum.StrEnum):
    """The origin label of a public report; simulation wins if any review was simulated."""

    ATTESTED = "attested"
    DEVELOPMENT_SIMULATION = "development_simulation"


class SafetyFailure(enum.StrEnum):
    """A non-compensable failure recorded by an executed observation."""

    PRIVACY = "privacy"
    PROVENANCE = "provenance"


class DisagreementReason(enum.StrEnum):
    """Why original reviewers disagreed, as recorded by the adjudicator."""

    CRITERION_INTERPRETATION = "criterion_interpretation"
    SOURCE_AMBIGUITY = "source_ambiguity"
    OUTPUT_AMBIGUITY = "output_ambiguity"
    INSUFFICIENT_CONTEXT = "insufficient_context"
    REVIEWER_ERROR = "reviewer_error"


class Decision(enum.StrEnum):
    """The private decision for one candidate; none authorises clinical use or deployment."""

    BLOCKED = "blocked"
    HOLD = "hold"
    RUBRIC_SATISFIED = "rubric_satisfied"


class DecisionReason(enum.StrEnum):
    """Which precedence step decided; private, never in the public report."""

    SAFETY = "safety"
    QUALITY_UTILITY = "quality_utility"
    DISAGREEMENT = "disagreement"
    ALL_ABSTAINED = "all_abstained"
    OK = "ok"


#: The two reviewer-visible candidate aliases.
ALIASES = ("A", "B")

#: The four binary rubric criteria every packet carries, in this order.
CRITERIA = ("quality", "utility", "privacy", "provenance")

#: The published per-unit binary metrics, in report order.
METRICS = (
    "quality",
    "utility",
    "privacy",
    "provenance",
    "emission",
    "reviewer_agreement",
    "adjudication",
)

#: Fixed limitation statements carried by every pack description and public report.
LIMITATIONS = (
    "Non-diagnostic evaluation evidence: a satisfied rubric does not establish clinical "
    "efficacy, diagnostic adequacy, certification or readiness for patient care.",
    "No decision here authorises clinical use or automatic deployment; teams must obtain "
    "their own qualified review and independent validation before making clinical claims.",
    "Reviewer qualifications, identities, conflict screening and ratings are caller-attested "
    "declarations; the library does not verify credentials or detect one person under two "
    "identities, and ratings are not cryptographically signed testimony.",
    "Metadata blinding cannot hide a candidate identity revealed by its own output or style.",
    "Wilson 95% intervals describe case-level binary counts; convenience samples, related "
    "acquisitions and repeated acquisitions do not justify population inference.",
    "Cell suppression protects this one report; it is not differential privacy and does not "
    "prevent differencing across repeated or overlapping releases.",
)

#: Added to the limitations whenever any review or adjudication was simulated.
SIMULATION_LIMITATION = (
    "Development simulation: some reviews were constructed for testing and are not "
    "qualified review."
)
