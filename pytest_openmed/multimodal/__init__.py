"""Multimodal validation packs, blinded review and assessment (non-diagnostic).

Pack → :func:`prepare_review` per reviewer → collect :class:`PacketRating`
values into :class:`CompletedReview` → :class:`Adjudication` of disagreements
→ :func:`assess_validation` for one candidate → publish
``ValidationAssessment.to_json()``.  Nothing here is diagnostic: a satisfied
rubric establishes neither clinical efficacy nor readiness for patient care.
Each rule lives in one module: limits (:mod:`.limits`), media sniffing
(:mod:`.media`), blinding (:mod:`.aliases`), verification (:mod:`.review`),
unit resolution (:mod:`.resolution`), decision precedence (:mod:`.decision`),
refusals (:mod:`.assess`, :mod:`.ratings`), suppression (:mod:`.suppression`)
and the public report (:mod:`.public_report`); each stored form lives with its
type.  Heavy dependencies (pydicom) load only when a DICOM asset is sniffed.
"""

from __future__ import annotations

from pytest_openmed._wilson import wilson_interval

from .aliases import SealedMapping
from .assess import Conflict, ValidationAssessment, assess_validation
from .digests import digest_bytes, digest_file, digest_json
from .errors import (
    AdjudicationCandidateMismatch,
    AdjudicatorWasReviewer,
    DocumentInvalid,
    DuplicateAdjudication,
    DuplicateMapping,
    DuplicateRating,
    DuplicateReviewer,
    ForgedMapping,
    InvalidInput,
    LimitExceeded,
    MediaTypeRefused,
    MinCellRefused,
    MissingMapping,
    MissingRatings,
    MultimodalError,
    QualificationChanged,
    ReviewCountRefused,
    ReviewerMismatch,
    ReviewerOutOfScope,
    ReviewerRecused,
    StaleConflict,
    StaleEvidence,
    UnknownAlias,
    UnknownCandidate,
    UnknownPacket,
    ValidationRefused,
    WrongKey,
)
from .lineage import CandidateLineage
from .media import MediaType
from .pack import (
    BlindedOutput,
    Observation,
    SourceAsset,
    SourceReference,
    ValidationCase,
    ValidationPack,
)
from .qualification import ReviewerQualification
from .ratings import Adjudication, CompletedReview, PacketRating, rating_digest
from .review import PreparedReview, ReviewPacket, packet_digest, prepare_review
from .vocabulary import (
    CaseSlice,
    Decision,
    DecisionReason,
    DisagreementReason,
    ReportOrigin,
    ReviewOrigin,
    SafetyFailure,
    ValidationTask,
)

__all__ = [
    "Adjudication",
    "AdjudicationCandidateMismatch",
    "AdjudicatorWasReviewer",
    "BlindedOutput",
    "CandidateLineage",
    "CaseSlice",
    "CompletedReview",
    "Conflict",
    "Decision",
    "DecisionReason",
    "DisagreementReason",
    "DocumentInvalid",
    "DuplicateAdjudication",
    "DuplicateMapping",
    "DuplicateRating",
    "DuplicateReviewer",
    "ForgedMapping",
    "InvalidInput",
    "LimitExceeded",
    "MediaType",
    "MediaTypeRefused",
    "MinCellRefused",
    "MissingMapping",
    "MissingRatings",
    "MultimodalError",
    "Observation",
    "PacketRating",
    "PreparedReview",
    "QualificationChanged",
    "ReportOrigin",
    "ReviewCountRefused",
    "ReviewOrigin",
    "ReviewPacket",
    "ReviewerMismatch",
    "ReviewerOutOfScope",
    "ReviewerQualification",
    "ReviewerRecused",
    "SafetyFailure",
    "SealedMapping",
    "SourceAsset",
    "SourceReference",
    "StaleConflict",
    "StaleEvidence",
    "UnknownAlias",
    "UnknownCandidate",
    "UnknownPacket",
    "ValidationAssessment",
    "ValidationCase",
    "ValidationPack",
    "ValidationRefused",
    "ValidationTask",
    "WrongKey",
    "assess_validation",
    "digest_bytes",
    "digest_file",
    "digest_json",
    "packet_digest",
    "prepare_review",
    "rating_digest",
    "wilson_interval",
]
