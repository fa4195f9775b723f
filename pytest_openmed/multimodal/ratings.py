"""Ratings, completed reviews and adjudications: the caller-attested review evidence.

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
from pytest_openmed.errors import InvalidArgument

from ._structure import array, document, envelope, fields, malformed, materialise
from .aliases import SealedMapping
from .errors import (
    DuplicateMapping,
    DuplicateRating,
    InvalidInput,
    MissingMapping,
    MissingRatings,
    UnknownAlias,
    UnknownPacket,
)
from .limits import MAX_REVIEWS, MAX_UNITS, spelled
from .qualification import ReviewerQualification
from .review import PreparedReview, ReviewPacket
from .vocabulary import ALIASES, CRITERIA, DisagreementReason

__all__ = [
    "ADJUDICATION_SCHEMA",
    "COMPLETED_REVIEW_SCHEMA",
    "Adjudication",
    "CompletedReview",
    "PacketRating",
    "rating_digest",
]

#: The type of the stored completed-review document (stored without its mapping).
COMPLETED_REVIEW_SCHEMA = "openmed.multimodal.completed_review"
#: The type of the stored adjudication document (stored without its mapping).
ADJUDICATION_SCHEMA = "openmed.multimodal.adjudication"

_MAX_MAPPINGS = 2 * MAX_UNITS + MAX_REVIEWS
#: Ratings of one review: one per unit and candidate alias.
_MAX_RATINGS = 2 * MAX_UNITS


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
            raise InvalidArgument("rating scores must be bools")
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

    @classmethod
    def from_dict(cls, data: object) -> PacketRating:
        """Rebuild a stored rating (the inverse of :meth:`to_dict`)."""
        with malformed():
            rating = cls(**fields(data, {"packet_digest", "alias", *CRITERIA}))
        return rating

    def __repr__(self) -> str:
        return "PacketRating(<protected>)"


def rating_digest(rating: PacketRating) -> str:
    """The digest an :class:`Adjudication` lists among its conflicting ratings."""
    if type(rating) is not PacketRating:
        raise InvalidArgument("rating must be a PacketRating")
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
            raise InvalidArgument("reviewer must be a ReviewerQualification")
        if type(self.prepared) is not PreparedReview:
            raise InvalidArgument("prepared must be a PreparedReview")
        ratings = materialise(
            self.ratings, _MAX_RATINGS, f"a review holds more than {_MAX_RATINGS} ratings"
        )
        if not all(type(r) is PacketRating for r in ratings):
            raise InvalidArgument("ratings must be PacketRating values")
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
        return {
            **envelope(COMPLETED_REVIEW_SCHEMA),
            "reviewer": self.reviewer.declaration(),
            "packets": [p.to_dict() for p in self.prepared.packets],
            "ratings": [r.to_dict() for r in self.ratings],
        }

    @classmethod
    def from_dict(
        cls, data: object, mappings: Iterable[SealedMapping] | SealedMapping
    ) -> CompletedReview:
        """Rebuild a completed review, pairing it with the mapping of its reviewer identity."""
        stored = document(data, COMPLETED_REVIEW_SCHEMA, {"reviewer", "packets", "ratings"})
        reviewer = ReviewerQualification.from_declaration(stored["reviewer"])
        packets = tuple(ReviewPacket.from_dict(p) for p in array(stored["packets"], MAX_UNITS))
        ratings = tuple(PacketRating.from_dict(r) for r in array(stored["ratings"], _MAX_RATINGS))
        mapping = _select_mapping(reviewer.identity_digest, mappings)
        return cls(
            reviewer=reviewer,
            prepared=PreparedReview(packets=packets, mapping=mapping),
            ratings=ratings,
        )

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
            raise InvalidArgument("adjudicator must be a ReviewerQualification")
        if type(self.packet) is not ReviewPacket:
            raise InvalidArgument("packet must be the adjudicator's ReviewPacket")
        if type(self.mapping) is not SealedMapping:
            raise InvalidArgument("mapping must be the adjudicator's SealedMapping")
        if type(self.rating) is not PacketRating:
            raise InvalidArgument("rating must be a PacketRating")
        if self.rating.packet_digest != self.packet.digest:
            raise UnknownPacket()
        conflicting = materialise(
            self.conflicting_ratings,
            MAX_REVIEWS,
            f"a conflict holds at most {spelled(MAX_REVIEWS)} ratings",
        )
        if len(conflicting) < 2 or not all(is_digest(d) for d in conflicting):
            raise InvalidInput(f"a conflict lists two to {spelled(MAX_REVIEWS)} rating digests")
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
        return {
            **envelope(ADJUDICATION_SCHEMA),
            "adjudicator": self.adjudicator.declaration(),
            "packet": self.packet.to_dict(),
            "rating": self.rating.to_dict(),
            "conflicting_ratings": sorted(self.conflicting_ratings),
            "reason": self.reason.value,
        }

    @classmethod
    def from_dict(
        cls, data: object, mappings: Iterable[SealedMapping] | SealedMapping
    ) -> Adjudication:
        """Rebuild an adjudication, pairing it with the mapping of its adjudicator identity."""
        stored = document(
            data,
            ADJUDICATION_SCHEMA,
            {"adjudicator", "packet", "rating", "conflicting_ratings", "reason"},
        )
        adjudicator = ReviewerQualification.from_declaration(stored["adjudicator"])
        packet = ReviewPacket.from_dict(stored["packet"])
        rating = PacketRating.from_dict(stored["rating"])
        mapping = _select_mapping(adjudicator.identity_digest, mappings)
        with malformed():
            adjudication = cls(
                adjudicator=adjudicator,
                packet=packet,
                mapping=mapping,
                rating=rating,
                conflicting_ratings=frozenset(array(stored["conflicting_ratings"], MAX_REVIEWS)),
                reason=stored["reason"],
            )
        return adjudication

    def __repr__(self) -> str:
        return "Adjudication(<protected>)"


def _select_mapping(
    identity: object, mappings: Iterable[SealedMapping] | SealedMapping
) -> SealedMapping:
    """The one supplied mapping prepared for ``identity``."""
    if isinstance(mappings, SealedMapping):
        mappings = (mappings,)
    found = [
        m
        for m in materialise(mappings, _MAX_MAPPINGS, "too many mappings were supplied")
        if type(m) is SealedMapping and m.identity_digest == identity
    ]
    if not found:
        raise MissingMapping()
    if len(found) > 1:
        raise DuplicateMapping()
    return found[0]
