"""Assessment of one candidate from verified review evidence.

:func:`assess_validation` is where evidence is refused or accepted.  It
refuses (typed :class:`~.errors.ValidationRefused`, never a decision):

* fewer than two or more than eight complete reviews;
* two reviews with one reviewer identity;
* a reviewer or adjudicator who is recused, out of scope, or whose
  qualification changed since preparation;
* a wrong key; a mapping or packet that does not verify against the pack as it
  is now (see :func:`~.review.verify_review_evidence`);
* a rating for an unknown packet or alias, missing or duplicate ratings
  (checked when a :class:`~.ratings.CompletedReview` is built, and coverage of
  every unit again here);
* an adjudicator who was an original reviewer; an adjudication whose set of
  conflicting rating digests is not exactly a current conflict, that rates a
  different candidate than the one in conflict, or that repeats one.

Only then are aliases resolved, each unit resolved (:mod:`.resolution`) and
the decision taken (:mod:`.decision`).  An adjudication that exactly matches a
current conflict of the *other* candidate is verified like any other and then
not used, so one adjudication set can serve both candidates' assessments.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_openmed._canonical import canonical_json, require_key
from pytest_openmed.errors import InvalidArgument

from ._structure import materialise
from .decision import decide
from .errors import (
    AdjudicationCandidateMismatch,
    AdjudicatorWasReviewer,
    DuplicateAdjudication,
    DuplicateReviewer,
    LimitExceeded,
    MissingRatings,
    ReviewCountRefused,
    StaleConflict,
    UnknownCandidate,
)
from .limits import MAX_ADJUDICATIONS, MAX_REVIEWS, MIN_CELL, MIN_REVIEWS
from .lineage import CandidateLineage
from .metrics import Tally, tally
from .pack import ValidationPack
from .public_report import public_report
from .ratings import Adjudication, CompletedReview, PacketRating
from .resolution import UnitResolution, needs_adjudication, resolve_unit
from .review import verify_review_evidence
from .suppression import check_min_cell
from .vocabulary import (
    CaseSlice,
    Decision,
    DecisionReason,
    ReportOrigin,
    ReviewOrigin,
    ValidationTask,
)

__all__ = ["Conflict", "ValidationAssessment", "assess_validation"]


@dataclass(frozen=True, slots=True)
class Conflict:
    """A quality/utility disagreement awaiting adjudication (private evidence).

    ``rating_digests`` is exactly the set an :class:`~.ratings.Adjudication`
    must list; ``unit`` says which packet the adjudicator rates, and the
    adjudicator's own mapping gives the alias to rate
    (``mapping.alias_for(unit, candidate_digest)``).
    """

    unit: int
    candidate_digest: str
    rating_digests: frozenset[str]

    def __repr__(self) -> str:
        return "Conflict(<protected>)"


@dataclass(frozen=True, slots=True)
class ValidationAssessment:
    """The private assessment of one candidate; keep it under evaluator access control.

    ``decision`` is ``blocked``, ``hold`` or ``rubric_satisfied``; none of these
    authorises clinical use or automatic deployment.  Only :meth:`to_json`
    (suppressed aggregates, closed labels) is meant for publication.
    """

    task: ValidationTask
    decision: Decision
    reason: DecisionReason
    pack_digest: str
    candidate_digest: str
    review_origin: ReportOrigin
    min_cell: int
    units: tuple[UnitResolution, ...]
    review_count: int
    adjudication_count: int
    pending_conflicts: tuple[Conflict, ...] = field(default=())

    def tally(self, case_slice: CaseSlice | None = None) -> Tally:
        """Unsuppressed counts of one slice or overall (private)."""
        return tally(self.units, case_slice)

    @property
    def blocked_units(self) -> int:
        """Units with a safety failure or a settled quality/utility failure."""
        return sum(1 for u in self.units if u.safety_failure or u.quality_utility_failure)

    @property
    def unresolved_units(self) -> int:
        return sum(1 for u in self.units if u.unresolved)

    def public_report(self) -> dict[str, Any]:
        """The suppressed public report as a JSON-able mapping."""
        return public_report(
            task=self.task,
            review_origin=self.review_origin,
            min_cell=self.min_cell,
            slices={case_slice: self.tally(case_slice) for case_slice in CaseSlice},
            overall=self.tally(),
        )

    def to_json(self) -> str:
        """The suppressed public report as canonical JSON text."""
        return canonical_json(self.public_report())

    def __repr__(self) -> str:
        return "ValidationAssessment(<protected>)"


def assess_validation(
    pack: ValidationPack,
    candidate: CandidateLineage,
    reviews: Iterable[CompletedReview],
    *,
    key: bytes,
    adjudications: Iterable[Adjudication] = (),
    min_cell: int = MIN_CELL,
) -> ValidationAssessment:
    """Assess one of ``pack.candidates`` from two to eight complete, verified reviews."""
    key = require_key(key)
    if type(pack) is not ValidationPack:
        raise InvalidArgument("pack must be a ValidationPack")
    if type(candidate) is not CandidateLineage or candidate not in pack.candidates:
        raise UnknownCandidate()
    min_cell = check_min_cell(min_cell)
    review_list = _checked_reviews(pack, reviews, key)
    candidates = tuple(c.digest for c in pack.candidates)

    # Every reviewer's original rating of each candidate in each unit.
    originals: dict[tuple[int, str], list[PacketRating]] = {
        (unit, digest): [
            review.rating_for(review.prepared.packets[unit], review.mapping.alias_for(unit, digest))
            for review in review_list
        ]
        for unit in range(len(pack.cases))
        for digest in candidates
    }
    conflicts = {
        slot: frozenset(r.digest for r in ratings)
        for slot, ratings in originals.items()
        if needs_adjudication(ratings)
    }
    adjudication_list = materialise(
        adjudications,
        MAX_ADJUDICATIONS,
        f"an assessment accepts at most {MAX_ADJUDICATIONS} adjudications",
    )
    settled = _checked_adjudications(
        pack, adjudication_list, key, {r.reviewer.identity_digest for r in review_list}, conflicts
    )
    units = tuple(
        resolve_unit(
            case.slice,
            originals[(unit, candidate.digest)],
            settled.get((unit, candidate.digest)),
            case.observation(candidate.name),
        )
        for unit, case in enumerate(pack.cases)
    )
    decision, reason = decide(units)
    simulated = any(r.reviewer.origin is ReviewOrigin.SIMULATED for r in review_list) or any(
        a.adjudicator.origin is ReviewOrigin.SIMULATED for a in adjudication_list
    )
    pending = tuple(
        Conflict(unit=unit, candidate_digest=digest, rating_digests=ratings)
        for (unit, digest), ratings in sorted(conflicts.items())
        if digest == candidate.digest and (unit, digest) not in settled
    )
    return ValidationAssessment(
        task=pack.task,
        decision=decision,
        reason=reason,
        pack_digest=pack.digest,
        candidate_digest=candidate.digest,
        review_origin=(ReportOrigin.DEVELOPMENT_SIMULATION if simulated else ReportOrigin.ATTESTED),
        min_cell=min_cell,
        units=units,
        review_count=len(review_list),
        adjudication_count=sum(1 for unit, digest in settled if digest == candidate.digest),
        pending_conflicts=pending,
    )


def _checked_reviews(
    pack: ValidationPack, reviews: Iterable[CompletedReview], key: bytes
) -> tuple[CompletedReview, ...]:
    """Two to eight complete reviews of distinct identities, each verifying against ``pack``."""
    if isinstance(reviews, CompletedReview):
        raise InvalidArgument("reviews must be a collection of CompletedReview values")
    try:
        review_list = materialise(reviews, MAX_REVIEWS, ReviewCountRefused.message)
    except LimitExceeded:
        raise ReviewCountRefused() from None
    if len(review_list) < MIN_REVIEWS:
        raise ReviewCountRefused()
    if not all(type(r) is CompletedReview for r in review_list):
        raise InvalidArgument("reviews must be CompletedReview values")
    identities = [r.reviewer.identity_digest for r in review_list]
    if len(set(identities)) != len(identities):
        raise DuplicateReviewer()
    for review in review_list:
        verify_review_evidence(pack, review.reviewer, review.mapping, review.prepared.packets, key)
        if [p.unit for p in review.prepared.packets] != list(range(len(pack.cases))):
            raise MissingRatings()
    return review_list


def _checked_adjudications(
    pack: ValidationPack,
    adjudications: tuple[Any, ...],
    key: bytes,
    reviewer_identities: set[str],
    conflicts: dict[tuple[int, str], frozenset[str]],
) -> dict[tuple[int, str], PacketRating]:
    """Verified adjudicator ratings keyed by (unit, candidate digest) of the conflict."""
    settled: dict[tuple[int, str], PacketRating] = {}
    for adjudication in adjudications:
        if type(adjudication) is not Adjudication:
            raise InvalidArgument("adjudications must be Adjudication values")
        if adjudication.adjudicator.identity_digest in reviewer_identities:
            raise AdjudicatorWasReviewer()
        verify_review_evidence(
            pack, adjudication.adjudicator, adjudication.mapping, (adjudication.packet,), key
        )
        unit = adjudication.packet.unit
        matched = [
            digest
            for digest in (c.digest for c in pack.candidates)
            if conflicts.get((unit, digest)) == adjudication.conflicting_ratings
        ]
        if not matched:
            raise StaleConflict()
        (digest,) = matched
        if adjudication.mapping.candidate_for(unit, adjudication.rating.alias) != digest:
            raise AdjudicationCandidateMismatch()
        if (unit, digest) in settled:
            raise DuplicateAdjudication()
        settled[(unit, digest)] = adjudication.rating
    return settled
