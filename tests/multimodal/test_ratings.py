"""Ratings and completed reviews: unknown packets/aliases, duplicates and gaps are refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal import (
    Adjudication,
    CompletedReview,
    DisagreementReason,
    PacketRating,
    PreparedReview,
    ValidationPack,
    prepare_review,
    rating_digest,
)
from pytest_openmed.multimodal.errors import (
    DuplicateRating,
    InvalidInput,
    MissingRatings,
    UnknownAlias,
    UnknownPacket,
)

from ._helpers import KEY, d, good, make_pack, ratings_for, replaced, reviewer


def _prepared(units: int = 3) -> tuple[ValidationPack, PreparedReview, tuple[PacketRating, ...]]:
    pack = make_pack(units)
    prepared = prepare_review(pack, reviewer(1), key=KEY)
    return pack, prepared, ratings_for(pack, prepared, good)


def test_complete_review_is_accepted() -> None:
    _, prepared, ratings = _prepared()
    review = CompletedReview(reviewer(1), prepared, ratings)
    assert review.rating_for(prepared.packets[2], "B") in ratings


def test_rating_for_an_unknown_packet_is_refused() -> None:
    _, prepared, ratings = _prepared()
    stray = PacketRating(d("not-a-packet"), "A", True, True, True, True)
    with pytest.raises(UnknownPacket):
        CompletedReview(reviewer(1), prepared, (*ratings[:-1], stray))


@pytest.mark.parametrize("alias", ["C", "a", "", "cand-a", 1])
def test_rating_for_an_unknown_alias_is_refused(alias: object) -> None:
    with pytest.raises(UnknownAlias):
        PacketRating(d("p"), alias, True, True, True, True)  # type: ignore[arg-type]


def test_missing_rating_is_refused() -> None:
    _, prepared, ratings = _prepared()
    with pytest.raises(MissingRatings):
        CompletedReview(reviewer(1), prepared, ratings[:-1])


def test_duplicate_rating_is_refused_even_with_different_scores() -> None:
    _, prepared, ratings = _prepared()
    first = ratings[0]
    again = replaced(first, quality=not first.quality)
    with pytest.raises(DuplicateRating):
        CompletedReview(reviewer(1), prepared, (*ratings, again))


def test_scores_must_be_bools() -> None:
    with pytest.raises(TypeError):
        PacketRating(d("p"), "A", 1, True, True, True)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        PacketRating("packet-1", "A", True, True, True, True)


@settings(max_examples=50, deadline=None)
@given(
    scores=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()),
    alias=st.sampled_from("AB"),
)
def test_rating_digest_is_deterministic_and_binds_every_score(
    scores: tuple[bool, bool, bool, bool], alias: str
) -> None:
    rating = PacketRating(d("p"), alias, *scores)
    assert rating_digest(rating) == rating_digest(PacketRating(d("p"), alias, *scores))
    for name in ("quality", "utility", "privacy", "provenance"):
        flipped = replaced(rating, **{name: not getattr(rating, name)})
        assert rating_digest(flipped) != rating_digest(rating)
    assert rating_digest(replaced(rating, alias="B" if alias == "A" else "A")) != rating_digest(
        rating
    )


def test_adjudication_rating_must_cite_its_packet() -> None:
    _, prepared, _ = _prepared()
    packet = prepared.packets[0]
    with pytest.raises(UnknownPacket):
        Adjudication(
            adjudicator=reviewer(9),
            packet=packet,
            mapping=prepared.mapping,
            rating=PacketRating(prepared.packets[1].digest, "A", True, True, True, True),
            conflicting_ratings=frozenset({d(1), d(2)}),
            reason=DisagreementReason.SOURCE_AMBIGUITY,
        )


@pytest.mark.parametrize(
    "conflicting", [frozenset(), frozenset({"sha256:" + "0" * 64}), frozenset({"x", "y"})]
)
def test_adjudication_lists_two_to_eight_rating_digests(conflicting: frozenset[str]) -> None:
    _, prepared, _ = _prepared()
    packet = prepared.packets[0]
    with pytest.raises(InvalidInput):
        Adjudication(
            reviewer(9),
            packet,
            prepared.mapping,
            PacketRating(packet.digest, "A", True, True, True, True),
            conflicting,
            DisagreementReason.SOURCE_AMBIGUITY,
        )


def test_adjudication_reason_is_typed() -> None:
    _, prepared, _ = _prepared()
    packet = prepared.packets[0]
    with pytest.raises(InvalidInput):
        Adjudication(
            reviewer(9),
            packet,
            prepared.mapping,
            PacketRating(packet.digest, "A", True, True, True, True),
            frozenset({d(1), d(2)}),
            "majority vote",  # type: ignore[arg-type]
        )


def test_reprs_hide_values() -> None:
    _, prepared, ratings = _prepared()
    assert "sha256" not in repr(ratings[0]) + repr(CompletedReview(reviewer(1), prepared, ratings))
