"""Ratings, completed reviews and adjudications: the caller-attested review evidence.

PYTEST_DONT_REWRITE

A :class:`PacketRating` scores one alias of one packet on the four binary
criteria.  A :class:`CompletedReview` holds one reviewer's current
qualification, the prepared review and exactly one rating per candidate alias
per packet: ratings for unknown packets or aliases, duplicates and gaps are
refused.  An :class:`Adjudication` is a third reviewer's rating of the
disputed candidate on one independently prepared packet, listing exactly the
conflicting rating digests it resolves and a typed reason.  Ratings are
evidence the caller attests; they are not signed testimony.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import digest_json, is_digest

from .aliases import SealedMapping
from .errors import (
    DuplicateRating,
    InvalidInput,
    MissingRatings,
    UnknownAlias,
    UnknownPacket,
)
from .limits import MAX_REVIEWS, MAX_UNITS, materialise
from .qualification import ReviewerQualification
from .review import PreparedReview, ReviewPacket
from .vocabulary import ALIASES, CRITERIA, DisagreementReason

__all__ = ["Adjudication", "CompletedReview", "PacketRating", "rating_digest"]


@dataclass(frozen=True, slots=True)
class PacketRating:
    """Four boolean scores for one candidate alias in one packet."""

    packet_digest: str
    alias: str
    quality: bool
    utility: bool
    privacy: bool
    provenance: bool
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not is_digest(self.packet_digest):
            raise InvalidInput("a rating must cite packet_digest(packet)")
        if type(self.alias) is not str or self.alias not in ALIASES:
            raise UnknownAlias()
        if not all(type(getattr(self, name)) is bool for name in CRITERIA):
            raise TypeError("rating scores must be bools")
        object.__setattr__(self, "digest", digest_json(self.to_dict()))

    def scores(self) -> tuple[bool, bool, bool, bool]:
        """The four criteria, in rubric order."""
        return (self.quality, self.utility, self.privacy, self.provenance)

    def to_dict(self) -> dict[str, Any]:
        return {
            "packet_digest": self.packet_digest,
            "alias": self.alias,
            "quality": self.quality,
            "utility": self.utility,
            "privacy": self.privacy,
            "provenance": self.provenance,
        }

    def __repr__(self) -> str:
        return "PacketRating(<protected>)"


def rating_digest(rating: PacketRating) -> str:
    """The digest an :class:`Adjudication` lists among its conflicting ratings."""
    if type(rating) is not PacketRating:
        raise TypeError("rating must be a PacketRating")
    return rating.digest


@dataclass(frozen=True, slots=True)
class CompletedReview:
    """One reviewer's ratings of both candidates in every packet of a prepared review.

    ``reviewer`` is the reviewer's qualification *as it is now*; the assessment
    refuses it if it differs from the one sealed at preparation.
    """

    reviewer: ReviewerQualification
    prepared: PreparedReview
    ratings: tuple[PacketRating, ...]
    _index: Mapping[tuple[str, str], PacketRating] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if type(self.reviewer) is not ReviewerQualification:
            raise TypeError("reviewer must be a ReviewerQualification")
        if type(self.prepared) is not PreparedReview:
            raise TypeError("prepared must be a PreparedReview")
        ratings = materialise(self.ratings, 2 * MAX_UNITS, "a review holds more than 512 ratings")
        if not all(type(r) is PacketRating for r in ratings):
            raise TypeError("ratings must be PacketRating values")
        packets = {p.digest for p in self.prepared.packets}
        index: dict[tuple[str, str], PacketRating] = {}
        for rating in ratings:
            if rating.packet_digest not in packets:
                raise UnknownPacket()
            slot = (rating.packet_digest, rating.alias)
            if slot in index:
                raise DuplicateRating()
            index[slot] = rating
        if len(index) != len(packets) * len(ALIASES):
            raise MissingRatings()
        object.__setattr__(self, "ratings", ratings)
        object.__setattr__(self, "_index", MappingProxyType(index))

    @property
    def mapping(self) -> SealedMapping:
        return self.prepared.mapping

    def rating_for(self, packet: ReviewPacket, alias: str) -> PacketRating:
        """This reviewer's rating of ``alias`` in ``packet``."""
        try:
            return self._index[(packet.digest, alias)]
        except KeyError:
            raise MissingRatings() from None

    def to_dict(self) -> dict[str, Any]:
        """Stored form without the mapping (store that separately)."""
        from .serialization import completed_review_to_dict

        return completed_review_to_dict(self)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], mappings: Iterable[SealedMapping] | SealedMapping
    ) -> CompletedReview:
        from .serialization import completed_review_from_dict

        return completed_review_from_dict(data, mappings)

    def __repr__(self) -> str:
        return f"CompletedReview(packets={len(self.prepared.packets)})"


@dataclass(frozen=True, slots=True)
class Adjudication:
    """A distinct, qualified third reviewer's resolution of one conflict."""

    adjudicator: ReviewerQualification
    packet: ReviewPacket
    mapping: SealedMapping
    rating: PacketRating
    conflicting_ratings: frozenset[str]
    reason: DisagreementReason

    def __post_init__(self) -> None:
        if type(self.adjudicator) is not ReviewerQualification:
            raise TypeError("adjudicator must be a ReviewerQualification")
        if type(self.packet) is not ReviewPacket:
            raise TypeError("packet must be the adjudicator's ReviewPacket")
        if type(self.mapping) is not SealedMapping:
            raise TypeError("mapping must be the adjudicator's SealedMapping")
        if type(self.rating) is not PacketRating:
            raise TypeError("rating must be a PacketRating")
        if self.rating.packet_digest != self.packet.digest:
            raise UnknownPacket()
        conflicting = materialise(
            self.conflicting_ratings, MAX_REVIEWS, "a conflict holds at most eight ratings"
        )
        if len(conflicting) < 2 or not all(is_digest(d) for d in conflicting):
            raise InvalidInput("a conflict lists two to eight rating digests")
        if len(set(conflicting)) != len(conflicting):
            raise InvalidInput("a conflict lists a rating digest twice")
        try:
            reason = DisagreementReason(self.reason)
        except ValueError:
            raise InvalidInput("reason must be a DisagreementReason") from None
        object.__setattr__(self, "conflicting_ratings", frozenset(conflicting))
        object.__setattr__(self, "reason", reason)

    def to_dict(self) -> dict[str, Any]:
        """Stored form without the mapping (store that separately)."""
        from .serialization import adjudication_to_dict

        return adjudication_to_dict(self)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], mappings: Iterable[SealedMapping] | SealedMapping
    ) -> Adjudication:
        from .serialization import adjudication_from_dict

        return adjudication_from_dict(data, mappings)

    def __repr__(self) -> str:
        return "Adjudication(<protected>)"
