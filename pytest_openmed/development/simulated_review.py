"""Simulated reviews for tests and demos (always ``ReviewOrigin.SIMULATED``).

A simulated reviewer is a development-simulation qualification: synthetic
digests, no person behind it.  ``simulate_review`` prepares that reviewer's
blinded packets and rates them with *explicit* ratings given per candidate
name, so a test states exactly what each simulated reviewer said.  Any public
report built from these reviews is labelled ``development_simulation``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from pytest_openmed._canonical import digest_json
from pytest_openmed.errors import InputRefused

if TYPE_CHECKING:
    from pytest_openmed.multimodal import (
        Adjudication,
        CompletedReview,
        Conflict,
        DisagreementReason,
        ReviewerQualification,
        ValidationPack,
        ValidationTask,
    )

__all__ = [
    "ALL_TRUE",
    "Rating",
    "simulate_adjudication",
    "simulate_review",
    "simulated_reviewer",
]


class Rating(NamedTuple):
    """One reviewer's four binary criteria for one candidate output."""

    quality: bool
    utility: bool
    privacy: bool
    provenance: bool


#: A rating that satisfies every criterion.
ALL_TRUE = Rating(True, True, True, True)


def simulated_reviewer(
    name: str,
    tasks: ValidationTask | str | tuple[ValidationTask | str, ...],
    *,
    recused: bool = False,
) -> ReviewerQualification:
    """A development-simulation qualification for ``name`` (a label, never a person)."""
    from pytest_openmed.multimodal import ReviewerQualification, ReviewOrigin, ValidationTask

    scope = tasks if isinstance(tasks, tuple) else (tasks,)
    return ReviewerQualification(
        identity_digest=digest_json(["development-simulation", "identity", name]),
        task_scope=frozenset(ValidationTask(task) for task in scope),
        qualification_evidence_digest=digest_json(["development-simulation", "evidence", name]),
        conflict_screening_digest=digest_json(["development-simulation", "screening", name]),
        origin=ReviewOrigin.SIMULATED,
        recused=recused,
    )


def simulate_review(
    pack: ValidationPack,
    reviewer: ReviewerQualification,
    *,
    key: bytes,
    ratings: Mapping[str, Rating] | Mapping[str, Mapping[int, Rating]],
) -> CompletedReview:
    """Prepare ``reviewer``'s packets and rate them as ``ratings`` says.

    ``ratings`` maps a candidate name either to one :class:`Rating` for every
    unit or to a mapping unit index → :class:`Rating`.  The simulation reads
    the sealed mapping to put each rating on the right alias; a real review
    interface never shows the mapping to a reviewer.
    """
    from pytest_openmed.multimodal import (
        CompletedReview,
        PacketRating,
        packet_digest,
        prepare_review,
    )

    prepared = prepare_review(pack, reviewer, key=key)
    by_digest = {pack.candidate(name).digest: name for name in ratings}
    collected = []
    for packet in prepared.packets:
        for alias in ("A", "B"):
            name = by_digest.get(prepared.mapping.candidate_for(packet.unit, alias))
            if name is None:
                raise InputRefused("ratings must name both candidates of the pack")
            rating = _rating_for(ratings[name], packet.unit)
            collected.append(PacketRating(packet_digest(packet), alias, *rating))
    return CompletedReview(reviewer=reviewer, prepared=prepared, ratings=tuple(collected))


def simulate_adjudication(
    pack: ValidationPack,
    adjudicator: ReviewerQualification,
    conflict: Conflict,
    *,
    key: bytes,
    rating: Rating,
    reason: DisagreementReason | None = None,
) -> Adjudication:
    """The adjudicator's independently prepared rating of one pending conflict."""
    from pytest_openmed.multimodal import (
        Adjudication,
        DisagreementReason,
        PacketRating,
        packet_digest,
        prepare_review,
    )

    own = prepare_review(pack, adjudicator, key=key)
    packet = own.packets[conflict.unit]
    alias = own.mapping.alias_for(conflict.unit, conflict.candidate_digest)
    return Adjudication(
        adjudicator=adjudicator,
        packet=packet,
        mapping=own.mapping,
        rating=PacketRating(packet_digest(packet), alias, *rating),
        conflicting_ratings=conflict.rating_digests,
        reason=reason or DisagreementReason.CRITERION_INTERPRETATION,
    )


def _rating_for(given: Rating | Mapping[int, Rating], unit: int) -> Rating:
    if isinstance(given, Rating):
        return given
    if isinstance(given, Mapping) and unit in given:
        return Rating(*given[unit])
    raise InputRefused("ratings must give a Rating for every unit of each candidate")
