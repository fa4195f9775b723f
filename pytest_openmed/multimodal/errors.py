"""Typed errors of the multimodal validation engine, each with a fixed message.

Two families.  :class:`InvalidInput` covers malformed or oversized values
(a bad digest, an unknown media type, a pack over its limits, a malformed
stored document).  :class:`ValidationRefused` covers evidence that cannot be
assessed (the refusals listed in docs/multimodal.md, "Assess; adjudicate
disagreements"): the assessment raises instead of returning a decision.
Messages are fixed text chosen by the code, never input values, identifiers,
keys, paths or library exception text.
"""

from __future__ import annotations

from typing import ClassVar

from pytest_openmed import errors as _core
from pytest_openmed.errors import OpenmedError

from .limits import MAX_CANDIDATES, MAX_REVIEWS, MIN_CELL, MIN_REVIEWS, spelled

__all__ = [
    "AdjudicationCandidateMismatch",
    "AdjudicatorWasReviewer",
    "DocumentInvalid",
    "DuplicateAdjudication",
    "DuplicateMapping",
    "DuplicateRating",
    "DuplicateReviewer",
    "ForgedMapping",
    "InvalidInput",
    "LimitExceeded",
    "MediaTypeRefused",
    "MinCellRefused",
    "MissingMapping",
    "MissingRatings",
    "MultimodalError",
    "QualificationChanged",
    "ReviewCountRefused",
    "ReviewerMismatch",
    "ReviewerOutOfScope",
    "ReviewerRecused",
    "StaleConflict",
    "StaleEvidence",
    "UnknownAlias",
    "UnknownCandidate",
    "UnknownPacket",
    "ValidationRefused",
    "WrongKey",
]


class MultimodalError(OpenmedError, ValueError):
    """Base of every error this engine raises on bad input or evidence.

    It joins the package's one error model (:class:`~pytest_openmed.errors.OpenmedError`)
    and stays a ``ValueError``, so existing ``except ValueError`` clauses keep working.

    Subclasses carry a default fixed ``message``; call sites may pass another
    fixed string (never one built from input).
    """

    message: ClassVar[str] = "the multimodal validation input was refused"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(self.message if message is None else message)


# --- malformed or oversized input -------------------------------------------------------------


class InvalidInput(MultimodalError, _core.InputRefused):
    """A value object was given a malformed field (the package's ``InputRefused`` family)."""

    message = "a multimodal validation field is malformed"


class MediaTypeRefused(InvalidInput):
    """Asset bytes are not one of the four accepted carriers (checked by content)."""

    message = (
        "asset content is not a PNG, TIFF/BigTIFF, native uncompressed DICOM "
        "or openmed.waveform.v1 JSON waveform"
    )


class LimitExceeded(InvalidInput, _core.LimitExceeded):
    """A pack, case, asset or document exceeds a documented limit; nothing is truncated.

    Also the package's :class:`pytest_openmed.errors.LimitExceeded`, so one
    ``except`` clause catches every exceeded limit.  It stays a subclass, not
    the same class: it is also an :class:`InvalidInput` (``except
    InvalidInput`` catches a pack over its limits), it has a default message,
    and gate refusals show its own name where the package's shows
    ``ValueError`` (``errors.shown_name``).
    """

    message = "a multimodal validation limit was exceeded"


class DocumentInvalid(InvalidInput):
    """A stored ``to_dict`` document is malformed or of the wrong type or version."""

    message = "the stored multimodal document is malformed"


class MinCellRefused(InvalidInput):
    """The publication cell size is not an integer of at least :data:`~.limits.MIN_CELL`."""

    message = f"min_cell must be an integer of at least {MIN_CELL}"


# --- refusals of evidence (docs/multimodal.md, section 4) -------------------------------------


class ValidationRefused(MultimodalError):
    """The review evidence cannot be assessed; no decision is made."""

    message = "the review evidence was refused"


class UnknownCandidate(ValidationRefused):
    message = f"the candidate is not one of the pack's {spelled(MAX_CANDIDATES)} candidates"


class ReviewCountRefused(ValidationRefused):
    message = (
        f"an assessment requires {spelled(MIN_REVIEWS)} to {spelled(MAX_REVIEWS)} complete reviews"
    )


class DuplicateReviewer(ValidationRefused):
    message = "two reviews carry the same reviewer identity"


class ReviewerRecused(ValidationRefused):
    message = "a recused reviewer cannot receive or contribute a review"


class ReviewerOutOfScope(ValidationRefused):
    message = "the reviewer's task scope does not cover the pack's task"


class QualificationChanged(ValidationRefused):
    message = "the reviewer's qualification changed since the review was prepared"


class ReviewerMismatch(ValidationRefused):
    message = "the sealed mapping was prepared for a different reviewer identity"


class WrongKey(ValidationRefused):
    message = "the evaluator key is not the key the review was prepared with"


class ForgedMapping(ValidationRefused):
    message = "the sealed mapping does not verify: it was altered after preparation"


class StaleEvidence(ValidationRefused):
    message = "the review evidence does not verify against the pack as it is now"


class UnknownPacket(ValidationRefused):
    message = "a rating refers to a packet that is not part of the review"


class UnknownAlias(ValidationRefused):
    message = (
        "a rating names an alias other than the packet's "
        f"{spelled(MAX_CANDIDATES)} candidate aliases"
    )


class MissingRatings(ValidationRefused):
    message = "the review does not rate both candidates in every source unit"


class DuplicateRating(ValidationRefused):
    message = "a candidate alias in one packet was rated more than once"


class AdjudicatorWasReviewer(ValidationRefused):
    message = "the adjudicator was one of the original reviewers"


class StaleConflict(ValidationRefused):
    message = "the adjudication's conflicting ratings are not exactly a current conflict"


class AdjudicationCandidateMismatch(ValidationRefused):
    message = "the adjudication rates a candidate other than the one in conflict"


class DuplicateAdjudication(ValidationRefused):
    message = "one conflict was adjudicated more than once"


class MissingMapping(ValidationRefused):
    message = "no sealed mapping was supplied for a review's reviewer"


class DuplicateMapping(ValidationRefused):
    message = "two sealed mappings were supplied for one reviewer identity"
