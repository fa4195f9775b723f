"""Decision precedence for one candidate, one test per step, through assess_validation."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal import (
    Adjudication,
    CompletedReview,
    ValidationAssessment,
    ValidationPack,
    assess_validation,
)
from pytest_openmed.multimodal.decision import decide
from pytest_openmed.multimodal.resolution import UnitResolution
from pytest_openmed.multimodal.vocabulary import CaseSlice

from ._helpers import (
    KEY,
    ScoreFn,
    Scores,
    adjudicate,
    complete,
    conflict_digests,
    good,
    make_pack,
    reviewer,
    reviews,
)

A, B = "cand-a", "cand-b"
OK: Scores = (True, True, True, True)


def only(unit: int, name: str, scores: Scores) -> ScoreFn:
    def fn(u: int, n: str) -> Scores:
        return scores if (u, n) == (unit, name) else OK

    return fn


def _assess(
    pack: ValidationPack,
    review_list: Sequence[CompletedReview],
    name: str = A,
    adjudications: Sequence[Adjudication] = (),
) -> ValidationAssessment:
    return assess_validation(
        pack, pack.candidate(name), review_list, key=KEY, adjudications=adjudications
    )


def test_rubric_satisfied_when_everything_passes() -> None:
    pack = make_pack(3)
    result = _assess(pack, reviews(pack, good, good, good))
    assert (result.decision, result.reason) == ("rubric_satisfied", "ok")


def test_minority_privacy_failure_blocks_despite_majority_and_adjudicator() -> None:
    pack = make_pack(3)
    # Reviewer 2 flags privacy and also disagrees on quality; the adjudicator says all is fine.
    review_list = reviews(pack, good, good, only(1, A, (False, True, False, True)))
    conflict = conflict_digests(pack, review_list, 1, A)
    adjudication = adjudicate(pack, reviewer(7), 1, A, OK, conflict)
    result = _assess(pack, review_list, adjudications=[adjudication])
    assert (result.decision, result.reason) == ("blocked", "safety")
    assert result.adjudication_count == 1


def test_minority_provenance_failure_blocks() -> None:
    pack = make_pack(3)
    result = _assess(pack, reviews(pack, good, good, only(2, A, (True, True, True, False))))
    assert (result.decision, result.reason) == ("blocked", "safety")


def test_adjudicator_privacy_failure_blocks() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, good, only(0, A, (False, True, True, True)))
    adjudication = adjudicate(
        pack,
        reviewer(7),
        0,
        A,
        (True, True, False, True),
        conflict_digests(pack, review_list, 0, A),
    )
    assert _assess(pack, review_list, adjudications=[adjudication]).reason == "safety"


def test_observation_safety_failure_blocks_although_all_reviewers_pass_it() -> None:
    pack = make_pack(3, safety={2: {A: ["provenance"]}})
    result = _assess(pack, reviews(pack, good, good))
    assert (result.decision, result.reason) == ("blocked", "safety")
    other = _assess(pack, reviews(pack, good, good), name=B)
    assert other.decision == "rubric_satisfied"


def test_safety_precedes_quality_and_disagreement() -> None:
    pack = make_pack(3, safety={0: {A: ["privacy"]}})
    review_list = reviews(
        pack, only(1, A, (False, False, True, True)), only(2, A, (False, True, True, True))
    )
    assert _assess(pack, review_list).reason == "safety"


def test_agreed_quality_failure_blocks() -> None:
    pack = make_pack(3)
    result = _assess(
        pack,
        reviews(pack, only(1, A, (False, True, True, True)), only(1, A, (False, True, True, True))),
    )
    assert (result.decision, result.reason) == ("blocked", "quality_utility")


def test_agreed_utility_failure_on_an_emitted_unit_blocks() -> None:
    pack = make_pack(3)
    bad = only(0, A, (True, False, True, True))
    assert _assess(pack, reviews(pack, bad, bad)).reason == "quality_utility"


def test_adjudicated_failure_blocks() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, good, only(2, A, (False, True, True, True)))
    adjudication = adjudicate(
        pack,
        reviewer(7),
        2,
        A,
        (False, True, True, True),
        conflict_digests(pack, review_list, 2, A),
    )
    result = _assess(pack, review_list, adjudications=[adjudication])
    assert (result.decision, result.reason) == ("blocked", "quality_utility")


def test_quality_failure_precedes_an_unresolved_disagreement() -> None:
    pack = make_pack(3)
    fail0 = only(0, A, (False, True, True, True))

    def fail0_disagree1(u: int, n: str) -> Scores:
        return (True, False, True, True) if (u, n) == (1, A) else fail0(u, n)

    assert _assess(pack, reviews(pack, fail0, fail0_disagree1)).reason == "quality_utility"


def test_unresolved_disagreement_holds() -> None:
    pack = make_pack(3)
    result = _assess(pack, reviews(pack, good, only(1, A, (True, False, True, True))))
    assert (result.decision, result.reason) == ("hold", "disagreement")
    assert [c.unit for c in result.pending_conflicts] == [1]
    assert result.unresolved_units == 1


def test_adjudicated_disagreement_resolves() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, good, only(1, A, (True, False, True, True)))
    held = _assess(pack, review_list)
    conflict = held.pending_conflicts[0].rating_digests
    assert conflict == conflict_digests(pack, review_list, 1, A)
    adjudication = adjudicate(pack, reviewer(7), 1, A, OK, conflict)
    result = _assess(pack, review_list, adjudications=[adjudication])
    assert (result.decision, result.reason) == ("rubric_satisfied", "ok")
    assert result.pending_conflicts == ()
    assert result.tally().counts["adjudication"] == 1
    assert result.tally().counts["reviewer_agreement"] == 2


def test_adjudications_of_the_other_candidate_are_verified_and_not_used() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, good, only(1, B, (True, False, True, True)))
    adjudication = adjudicate(
        pack, reviewer(7), 1, B, OK, conflict_digests(pack, review_list, 1, B)
    )
    for_a = _assess(pack, review_list, name=A, adjudications=[adjudication])
    for_b = _assess(pack, review_list, name=B, adjudications=[adjudication])
    assert for_a.decision == for_b.decision == "rubric_satisfied"
    assert (for_a.adjudication_count, for_b.adjudication_count) == (0, 1)


def test_all_abstention_holds() -> None:
    pack = make_pack(3, abstain={0: [A], 1: [A], 2: [A]})
    result = _assess(pack, reviews(pack, good, good))
    assert (result.decision, result.reason) == ("hold", "all_abstained")
    assert result.tally().counts["utility"] == 0
    assert result.tally().counts["emission"] == 0


def test_abstention_never_credits_utility() -> None:
    pack = make_pack(3, abstain={1: [A]})
    result = _assess(pack, reviews(pack, good, good))  # reviewers even call the abstention useful
    assert result.decision == "rubric_satisfied"
    counts = result.tally().counts
    assert (counts["utility"], counts["emission"], counts["quality"]) == (2, 2, 3)


def test_utility_disagreement_on_an_abstained_unit_still_holds() -> None:
    pack = make_pack(3, abstain={1: [A]})
    assert (
        _assess(pack, reviews(pack, good, only(1, A, (True, False, True, True)))).reason
        == "disagreement"
    )


def test_each_unit_counts_once_whatever_the_number_of_reviewers() -> None:
    pack = make_pack(4)
    for count in (2, 5, 8):
        result = _assess(pack, [complete(pack, reviewer(i)) for i in range(count)])
        assert result.tally().units == 4
        assert all(
            value == (0 if name == "adjudication" else 4)
            for name, value in result.tally().counts.items()
        )


def _unit(**values: bool) -> UnitResolution:
    base = dict(
        quality=True,
        utility=True,
        privacy=True,
        provenance=True,
        emission=True,
        reviewer_agreement=True,
        adjudication=False,
        quality_utility_failure=False,
        unresolved=False,
    )
    base.update(values)
    return UnitResolution(slice=CaseSlice.NOMINAL, **base)


def test_decide_applies_the_precedence_in_order() -> None:
    assert (
        decide([_unit(privacy=False), _unit(quality_utility_failure=True), _unit(unresolved=True)])[
            1
        ]
        == "safety"
    )
    assert (
        decide([_unit(quality_utility_failure=True), _unit(unresolved=True)])[1]
        == "quality_utility"
    )
    assert (
        decide([_unit(unresolved=True, emission=False), _unit(emission=False)])[1] == "disagreement"
    )
    assert decide([_unit(emission=False), _unit(emission=False)])[1] == "all_abstained"
    assert decide([_unit(emission=False), _unit()])[1] == "ok"


def _scored(table: list[Scores]) -> ScoreFn:
    def fn(unit: int, name: str) -> Scores:
        return table[unit] if name == A else OK

    return fn


score_tuples = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans())


@settings(max_examples=25, deadline=None)
@given(
    scores=st.lists(st.lists(score_tuples, min_size=3, max_size=3), min_size=2, max_size=3),
    abstain=st.sets(st.integers(0, 2)),
    safety=st.sets(st.integers(0, 2)),
)
def test_decision_agrees_with_the_published_unit_metrics(
    scores: list[list[Scores]], abstain: set[int], safety: set[int]
) -> None:
    pack = make_pack(
        3, abstain={u: [A] for u in abstain}, safety={u: {A: ["privacy"]} for u in safety}
    )
    result = _assess(pack, reviews(pack, *(_scored(table) for table in scores)))
    counts, units = result.tally().counts, result.tally().units
    safe = counts["privacy"] == counts["provenance"] == units
    assert (result.reason == "safety") == (not safe)
    if result.decision == "rubric_satisfied":
        assert counts["quality"] == units
        assert counts["utility"] == counts["emission"] > 0
        assert result.unresolved_units == 0
    if result.reason == "disagreement":
        assert result.unresolved_units > 0
    assert counts["utility"] <= counts["emission"]
    assert counts["reviewer_agreement"] + counts["adjudication"] <= units
    assert counts["adjudication"] == len(result.pending_conflicts)
