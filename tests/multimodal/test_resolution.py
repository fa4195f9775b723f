"""Unit-level resolution of each criterion (DESIGN §6, bullet 3), rule by rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal import CaseSlice, Observation, PacketRating, SafetyFailure
from pytest_openmed.multimodal.resolution import needs_adjudication, resolve_unit

from ._helpers import d

SLICE = CaseSlice.NOMINAL


def r(q: bool = True, u: bool = True, p: bool = True, v: bool = True, i: int = 0) -> PacketRating:
    return PacketRating(d(("packet", i)), "A", q, u, p, v)


def obs(abstained: bool = False, failures: tuple[str, ...] = ()) -> Observation:
    return Observation(
        "cand-a",
        {"x": 1},
        abstained=abstained,
        safety_failures=frozenset(SafetyFailure(f) for f in failures),
    )


def test_quality_true_when_every_original_reviewer_said_true() -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(i=1), r(i=2)], None, obs())
    assert unit.quality and not unit.adjudication and not unit.unresolved


def test_quality_disagreement_without_adjudication_is_false_and_unresolved() -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(q=False, i=1)], None, obs())
    assert not unit.quality and unit.unresolved and unit.adjudication
    assert not unit.quality_utility_failure


def test_adjudication_settles_a_quality_disagreement() -> None:
    settled = resolve_unit(SLICE, [r(i=0), r(q=False, i=1)], r(i=9), obs())
    assert settled.quality and settled.adjudication and not settled.unresolved
    failed = resolve_unit(SLICE, [r(i=0), r(q=False, i=1)], r(q=False, i=9), obs())
    assert not failed.quality and failed.quality_utility_failure


def test_adjudication_cannot_overturn_an_agreed_failure() -> None:
    # Quality failure agreed by both; the adjudication was needed for utility only.
    unit = resolve_unit(SLICE, [r(q=False, i=0), r(q=False, u=False, i=1)], r(i=9), obs())
    assert not unit.quality and unit.utility and unit.quality_utility_failure


def test_utility_false_on_an_abstained_unit_even_when_rated_useful() -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(i=1)], None, obs(abstained=True))
    assert not unit.utility and not unit.emission
    assert not unit.quality_utility_failure  # abstention is reported, not a utility failure


def test_utility_failure_counts_only_where_the_candidate_emitted() -> None:
    emitted = resolve_unit(SLICE, [r(u=False, i=0), r(u=False, i=1)], None, obs())
    abstained = resolve_unit(SLICE, [r(u=False, i=0), r(u=False, i=1)], None, obs(abstained=True))
    assert emitted.quality_utility_failure and not abstained.quality_utility_failure


def test_minority_privacy_false_makes_privacy_false() -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(i=1), r(p=False, i=2)], None, obs())
    assert not unit.privacy and unit.safety_failure
    assert not unit.adjudication  # privacy disagreement needs no adjudication: it blocks


def test_adjudicator_privacy_false_makes_privacy_false() -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(q=False, i=1)], r(p=False, i=9), obs())
    assert not unit.privacy


def test_adjudicator_cannot_restore_privacy() -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(q=False, v=False, i=1)], r(i=9), obs())
    assert not unit.provenance


@pytest.mark.parametrize("failure", ["privacy", "provenance"])
def test_observation_safety_failure_makes_the_criterion_false(failure: str) -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(i=1)], None, obs(failures=(failure,)))
    assert getattr(unit, failure) is False
    assert unit.safety_failure


def test_reviewer_agreement_requires_identical_ratings_on_all_four() -> None:
    assert resolve_unit(SLICE, [r(i=0), r(i=1)], None, obs()).reviewer_agreement
    assert not resolve_unit(SLICE, [r(i=0), r(v=False, i=1)], None, obs()).reviewer_agreement


def test_adjudication_ignored_when_not_needed() -> None:
    unit = resolve_unit(SLICE, [r(i=0), r(i=1)], r(q=False, p=False, i=9), obs())
    assert unit.quality and unit.privacy and not unit.adjudication


bools = st.booleans()
ratings = st.lists(st.tuples(bools, bools, bools, bools), min_size=2, max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    originals=ratings,
    adjudicator=st.none() | st.tuples(bools, bools, bools, bools),
    abstained=bools,
)
def test_resolution_invariants(
    originals: list[tuple[bool, bool, bool, bool]],
    adjudicator: tuple[bool, bool, bool, bool] | None,
    abstained: bool,
) -> None:
    rated = [r(*scores, i=i) for i, scores in enumerate(originals)]
    adj = None if adjudicator is None else r(*adjudicator, i=99)
    unit = resolve_unit(SLICE, rated, adj, obs(abstained=abstained))
    needed = needs_adjudication(rated)
    assert unit.adjudication == needed
    assert unit.unresolved == (needed and adj is None)
    assert unit.emission == (not abstained)
    assert not (unit.utility and abstained)
    assert unit.privacy <= all(s[2] for s in originals)
    assert unit.provenance <= all(s[3] for s in originals)
    if all(s[0] for s in originals):
        assert unit.quality
    if not any(s[0] for s in originals):
        assert not unit.quality
    assert unit.reviewer_agreement == (len(set(originals)) == 1)
