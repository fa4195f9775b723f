"""Every refusal of DESIGN §6 is a typed error, never a decision: one tamper per test."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_openmed.multimodal import (
    Adjudication,
    CompletedReview,
    ReviewOrigin,
    SourceAsset,
    ValidationAssessment,
    ValidationPack,
    ValidationTask,
    assess_validation,
    prepare_review,
)
from pytest_openmed.multimodal.errors import (
    AdjudicationCandidateMismatch,
    AdjudicatorWasReviewer,
    DuplicateAdjudication,
    DuplicateRating,
    DuplicateReviewer,
    ForgedMapping,
    MinCellRefused,
    MissingRatings,
    QualificationChanged,
    ReviewCountRefused,
    ReviewerMismatch,
    ReviewerOutOfScope,
    ReviewerRecused,
    StaleConflict,
    StaleEvidence,
    UnknownCandidate,
    UnknownPacket,
    WrongKey,
)

from ._helpers import (
    GOOD,
    KEY,
    OTHER_KEY,
    Scores,
    adjudicate,
    candidate,
    complete,
    conflict_digests,
    d,
    good,
    make_pack,
    ratings_for,
    replaced,
    reviewer,
    reviews,
)

A = "cand-a"


def _assess(
    pack: ValidationPack,
    review_list: list[CompletedReview],
    *,
    key: bytes = KEY,
    adjudications: Sequence[Adjudication] = (),
    min_cell: object = 5,
) -> ValidationAssessment:
    return assess_validation(
        pack,
        pack.candidate(A),
        review_list,
        key=key,
        adjudications=adjudications,
        min_cell=min_cell,  # type: ignore[arg-type]
    )


def test_baseline_is_accepted() -> None:
    pack = make_pack(3)
    assert _assess(pack, reviews(pack, good, good)).decision == "rubric_satisfied"


@pytest.mark.parametrize("count", [0, 1, 9])
def test_fewer_than_two_or_more_than_eight_reviews(count: int) -> None:
    pack = make_pack(1)
    review_list = [complete(pack, reviewer(i)) for i in range(count)]
    with pytest.raises(ReviewCountRefused):
        _assess(pack, review_list)


def test_eight_reviews_are_accepted() -> None:
    pack = make_pack(1)
    assert _assess(pack, [complete(pack, reviewer(i)) for i in range(8)]).review_count == 8


def test_two_reviews_with_one_reviewer_identity() -> None:
    pack = make_pack(2)
    same_person = replaced(reviewer(1), qualification_evidence_digest=d("other-role"))
    with pytest.raises(DuplicateReviewer):
        _assess(pack, [complete(pack, reviewer(1)), complete(pack, same_person)])


def test_changed_asset_byte_invalidates_reviews() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, good, good)
    data = bytearray(pack.cases[1].assets[0].data)
    data[45] ^= 0x01
    changed_case = replaced(pack.cases[1], assets=(SourceAsset(bytes(data)),))
    changed = replaced(pack, cases=(pack.cases[0], changed_case, pack.cases[2]))
    with pytest.raises(StaleEvidence):
        _assess(changed, review_list)


def test_changed_lineage_digest_invalidates_reviews() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, good, good)
    lineage = replaced(pack.candidates[1], hardware_digest=d("new-gpu"))
    changed = replaced(pack, candidates=(pack.candidates[0], lineage))
    with pytest.raises(StaleEvidence):
        _assess(changed, review_list)


def test_wrong_key() -> None:
    pack = make_pack(2)
    with pytest.raises(WrongKey):
        _assess(pack, reviews(pack, good, good), key=OTHER_KEY)


def test_short_key() -> None:
    pack = make_pack(1)
    with pytest.raises(ValueError):
        _assess(pack, reviews(pack, good, good), key=b"short")


def _with_mapping(review: CompletedReview, **change: object) -> CompletedReview:
    mapping = replaced(review.mapping, **change)
    prepared = replaced(review.prepared, mapping=mapping)
    return replaced(review, prepared=prepared)


def test_swapped_aliases_in_the_mapping() -> None:
    pack = make_pack(3)
    first, second = reviews(pack, good, good)
    rows = [(b, a) for a, b in first.mapping.aliases]
    with pytest.raises(ForgedMapping):
        _assess(pack, [_with_mapping(first, aliases=tuple(rows)), second])


def test_forged_mapping_pointing_at_the_current_pack() -> None:
    old = make_pack(2)
    new = make_pack(2, intended_use="changed after review")
    first, second = reviews(old, good, good)
    with pytest.raises(ForgedMapping):
        _assess(new, [_with_mapping(first, pack_digest=new.digest), second])


def test_mapping_of_another_reviewer() -> None:
    pack = make_pack(2)
    first, second = reviews(pack, good, good)
    with pytest.raises(ReviewerMismatch):
        _assess(
            pack, [_with_mapping(first, identity_digest=second.mapping.identity_digest), second]
        )


def test_tampered_packet() -> None:
    pack = make_pack(2)
    first, second = reviews(pack, good, good)
    packet = first.prepared.packets[0]
    swapped = replaced(packet, outputs={"A": packet.outputs["B"], "B": packet.outputs["A"]})
    prepared = replaced(first.prepared, packets=(swapped, first.prepared.packets[1]))
    tampered = CompletedReview(first.reviewer, prepared, ratings_for(pack, prepared, good))
    with pytest.raises(StaleEvidence):
        _assess(pack, [tampered, second])


def test_review_prepared_for_a_pack_with_fewer_units() -> None:
    pack = make_pack(3)
    first, second = reviews(pack, good, good)
    prepared = replaced(first.prepared, packets=first.prepared.packets[:2])
    partial = CompletedReview(first.reviewer, prepared, ratings_for(pack, prepared, good))
    with pytest.raises(MissingRatings):
        _assess(pack, [partial, second])


def test_rating_for_unknown_packet_from_another_review() -> None:
    pack = make_pack(2)
    first, second = reviews(pack, good, good)
    with pytest.raises(UnknownPacket):
        CompletedReview(first.reviewer, first.prepared, second.ratings)


def test_missing_rating() -> None:
    pack = make_pack(2)
    first, _ = reviews(pack, good, good)
    with pytest.raises(MissingRatings):
        CompletedReview(first.reviewer, first.prepared, first.ratings[1:])


def test_duplicate_rating() -> None:
    pack = make_pack(2)
    first, _ = reviews(pack, good, good)
    with pytest.raises(DuplicateRating):
        CompletedReview(first.reviewer, first.prepared, (*first.ratings, first.ratings[0]))


def test_reviewer_recused_since_preparation() -> None:
    pack = make_pack(2)
    first, second = reviews(pack, good, good)
    recused = replaced(first, reviewer=replaced(first.reviewer, recused=True))
    with pytest.raises(ReviewerRecused):
        _assess(pack, [recused, second])


def test_reviewer_out_of_scope_now() -> None:
    pack = make_pack(2)
    first, second = reviews(pack, good, good)
    narrowed = replaced(first.reviewer, task_scope=frozenset({"burned_in"}))
    with pytest.raises(ReviewerOutOfScope):
        _assess(pack, [replaced(first, reviewer=narrowed), second])


def test_changed_credentials_since_preparation() -> None:
    pack = make_pack(2)
    first, second = reviews(pack, good, good)
    changed = replaced(first.reviewer, qualification_evidence_digest=d("new-cert"))
    with pytest.raises(QualificationChanged):
        _assess(pack, [replaced(first, reviewer=changed), second])


def test_unknown_candidate() -> None:
    pack = make_pack(1)
    with pytest.raises(UnknownCandidate):
        assess_validation(pack, candidate("cand-z"), reviews(pack, good, good), key=KEY)


@pytest.mark.parametrize("min_cell", [4, 0, -5, 5.0, True])
def test_min_cell_below_five_or_not_an_integer(min_cell: object) -> None:
    pack = make_pack(1)
    with pytest.raises(MinCellRefused):
        _assess(pack, reviews(pack, good, good), min_cell=min_cell)


# --- adjudication refusals ---------------------------------------------------------------


def _disagree(unit: int, name: str) -> Scores:
    return (False, True, True, True) if (unit, name) == (1, A) else (True, True, True, True)


def _conflicted() -> tuple[ValidationPack, list[CompletedReview], frozenset[str]]:
    pack = make_pack(3)
    review_list = reviews(pack, good, _disagree)
    return pack, review_list, conflict_digests(pack, review_list, 1, A)


def test_adjudicator_who_was_an_original_reviewer() -> None:
    pack, review_list, conflict = _conflicted()
    # One person under a second role: another qualification record, same identity digest.
    second_role = replaced(reviewer(0), qualification_evidence_digest=d("adjudicator-role"))
    adjudication = adjudicate(pack, second_role, 1, A, (True,) * 4, conflict)
    with pytest.raises(AdjudicatorWasReviewer):
        _assess(pack, review_list, adjudications=[adjudication])


def test_stale_conflict_set() -> None:
    pack, review_list, conflict = _conflicted()
    # The second reviewer revises the disputed rating: the old conflict set is stale.
    revised = complete(
        pack,
        reviewer(1),
        lambda u, n: (False, False, True, True) if (u, n) == (1, A) else (True,) * 4,
    )
    adjudication = adjudicate(pack, reviewer(7), 1, A, (True,) * 4, conflict)
    with pytest.raises(StaleConflict):
        _assess(pack, [review_list[0], revised], adjudications=[adjudication])


def test_conflict_set_with_a_missing_rating_digest() -> None:
    pack, review_list, conflict = _conflicted()
    partial = frozenset(sorted(conflict)[:1]) | {d("invented")}
    adjudication = adjudicate(pack, reviewer(7), 1, A, (True,) * 4, partial)
    with pytest.raises(StaleConflict):
        _assess(pack, review_list, adjudications=[adjudication])


def test_adjudication_of_a_unit_without_conflict() -> None:
    pack, review_list, conflict = _conflicted()
    adjudication = adjudicate(pack, reviewer(7), 0, A, (True,) * 4, conflict)
    with pytest.raises(StaleConflict):
        _assess(pack, review_list, adjudications=[adjudication])


def test_adjudicator_rating_the_other_candidate() -> None:
    pack, review_list, conflict = _conflicted()
    adjudication = adjudicate(pack, reviewer(7), 1, "cand-b", (True,) * 4, conflict)
    with pytest.raises(AdjudicationCandidateMismatch):
        _assess(pack, review_list, adjudications=[adjudication])


def test_one_conflict_adjudicated_twice() -> None:
    pack, review_list, conflict = _conflicted()
    first = adjudicate(pack, reviewer(7), 1, A, (True,) * 4, conflict)
    second = adjudicate(pack, reviewer(8), 1, A, (False, True, True, True), conflict)
    with pytest.raises(DuplicateAdjudication):
        _assess(pack, review_list, adjudications=[first, second])


def test_adjudicator_with_changed_credentials() -> None:
    pack, review_list, conflict = _conflicted()
    adjudication = adjudicate(pack, reviewer(7), 1, A, (True,) * 4, conflict)
    changed = replaced(adjudication.adjudicator, conflict_screening_digest=d("rescreened"))
    with pytest.raises(QualificationChanged):
        _assess(
            pack,
            review_list,
            adjudications=[replaced(adjudication, adjudicator=changed)],
        )


def test_recused_adjudicator() -> None:
    pack, review_list, conflict = _conflicted()
    adjudication = adjudicate(pack, reviewer(7), 1, A, (True,) * 4, conflict)
    recused = replaced(adjudication.adjudicator, recused=True)
    with pytest.raises(ReviewerRecused):
        _assess(
            pack,
            review_list,
            adjudications=[replaced(adjudication, adjudicator=recused)],
        )


def test_out_of_scope_adjudicator_cannot_be_prepared() -> None:
    pack, _, _ = _conflicted()
    with pytest.raises(ReviewerOutOfScope):
        prepare_review(pack, reviewer(7, scope=[ValidationTask.WSI_TILES]), key=KEY)


def test_adjudication_under_the_wrong_key() -> None:
    pack, review_list, conflict = _conflicted()
    adjudication = adjudicate(pack, reviewer(7), 1, A, (True,) * 4, conflict, key=OTHER_KEY)
    with pytest.raises(WrongKey):
        _assess(pack, review_list, adjudications=[adjudication])


def test_adjudication_packet_of_another_unit_does_not_verify() -> None:
    pack, review_list, conflict = _conflicted()
    adjudication = adjudicate(pack, reviewer(7), 1, A, (True,) * 4, conflict)
    moved = replaced(adjudication.packet, unit=0)
    rating = replaced(adjudication.rating, packet_digest=moved.digest)
    with pytest.raises(StaleEvidence):
        _assess(
            pack,
            review_list,
            adjudications=[replaced(adjudication, packet=moved, rating=rating)],
        )


def test_refusal_messages_are_fixed_and_echo_nothing() -> None:
    pack = make_pack(2, intended_use="canary-use")
    first, second = reviews(pack, good, good)
    try:
        _assess(pack, [first, second], key=OTHER_KEY)
    except WrongKey as error:
        text = str(error)
    assert text == WrongKey.message
    assert "sha256" not in text and "canary" not in text


# --- every qualification field, and adjudications that cite or come from the wrong people ---


@pytest.mark.parametrize(
    "change",
    [
        {"task_scope": frozenset({ValidationTask.FORMS, ValidationTask.BURNED_IN})},
        {"qualification_evidence_digest": d("renewed")},
        {"conflict_screening_digest": d("rescreened")},
        {"origin": ReviewOrigin.ATTESTED},
    ],
    ids=["scope", "evidence", "screening", "origin"],
)
def test_any_qualification_field_changed_after_preparation_is_refused(
    change: dict[str, object],
) -> None:
    pack = make_pack(2)
    first, second = reviews(pack, lambda u, n: GOOD, lambda u, n: GOOD)
    changed = replaced(second, reviewer=replaced(second.reviewer, **change))
    with pytest.raises(QualificationChanged):
        assess_validation(pack, pack.candidates[0], [first, changed], key=KEY)


def _dispute(unit: int, name: str) -> Scores:
    return (False, True, True, True) if (unit, name) == (1, "cand-a") else GOOD


def test_adjudication_citing_a_superset_of_the_conflict_is_refused() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, lambda u, n: GOOD, _dispute)
    conflict = conflict_digests(pack, review_list, 1, "cand-a")
    unrelated = conflict_digests(pack, review_list, 0, "cand-a")
    adjudication = adjudicate(pack, reviewer(5), 1, "cand-a", GOOD, conflict | unrelated)
    with pytest.raises(StaleConflict):
        assess_validation(
            pack, pack.candidates[0], review_list, key=KEY, adjudications=[adjudication]
        )


def test_original_reviewer_adjudicating_under_another_origin_is_refused() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, lambda u, n: GOOD, _dispute)
    conflict = conflict_digests(pack, review_list, 1, "cand-a")
    same_person = replaced(reviewer(0), origin=ReviewOrigin.ATTESTED)
    adjudication = adjudicate(pack, same_person, 1, "cand-a", GOOD, conflict)
    with pytest.raises(AdjudicatorWasReviewer):
        assess_validation(
            pack, pack.candidates[0], review_list, key=KEY, adjudications=[adjudication]
        )
