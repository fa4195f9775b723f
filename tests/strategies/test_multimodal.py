"""small_packs: every pack is valid, in its task's carrier, and assesses to its ground truth."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import find, given, settings

from pytest_openmed.multimodal import (
    CompletedReview,
    Decision,
    PacketRating,
    ReviewerQualification,
    ReviewOrigin,
    ValidationPack,
    ValidationTask,
    assess_validation,
    prepare_review,
)
from pytest_openmed.multimodal.vocabulary import ALIASES
from pytest_openmed.strategies import PACK_MEDIA, small_packs

KEY = b"strategies-test-evaluator-key-0123456789"


# -- multimodal packs ----------------------------------------------------------------------------


def _reviewer(index: int, task: ValidationTask) -> ReviewerQualification:
    from pytest_openmed._canonical import digest_json

    return ReviewerQualification(
        identity_digest=digest_json(["reviewer", index]),
        task_scope=frozenset({task}),
        qualification_evidence_digest=digest_json(["evidence", index]),
        conflict_screening_digest=digest_json(["screening", index]),
        origin=ReviewOrigin.SIMULATED,
    )


def _approving_review(pack: ValidationPack, index: int) -> CompletedReview:
    reviewer = _reviewer(index, pack.task)
    prepared = prepare_review(pack, reviewer, key=KEY)
    ratings = tuple(
        PacketRating(packet.digest, alias, True, True, True, True)
        for packet in prepared.packets
        for alias in ALIASES
    )
    return CompletedReview(reviewer, prepared, ratings)


@settings(max_examples=25, deadline=None)
@given(small_packs())
def test_packs_are_valid_and_assess_to_their_ground_truth(pack: ValidationPack) -> None:
    assert ValidationPack.from_dict(json.loads(json.dumps(pack.to_dict()))).digest == pack.digest
    assert {a.media_type for case in pack.cases for a in case.assets} == {PACK_MEDIA[pack.task]}
    assert pack.describe()["non_diagnostic"] is True
    reviews = [_approving_review(pack, 1), _approving_review(pack, 2)]
    for candidate in pack.candidates:
        observations = [case.observation(candidate.name) for case in pack.cases]
        if any(o.safety_failures for o in observations):
            expected = Decision.BLOCKED
        elif all(o.abstained for o in observations):
            expected = Decision.HOLD
        else:
            expected = Decision.RUBRIC_SATISFIED
        assessment = assess_validation(pack, candidate, reviews, key=KEY)
        assert assessment.decision is expected


@settings(max_examples=20, deadline=None)
@given(
    small_packs(
        tasks=[ValidationTask.DICOM_FRAMES, "wsi_tiles"],
        min_cases=2,
        max_cases=4,
        max_assets=3,
        abstentions=False,
        safety_failures=False,
    )
)
def test_pack_options_are_honoured(pack: ValidationPack) -> None:
    assert pack.task in (ValidationTask.DICOM_FRAMES, ValidationTask.WSI_TILES)
    assert 2 <= len(pack.cases) <= 4
    assert all(1 <= len(case.assets) <= 3 for case in pack.cases)
    for case in pack.cases:
        for observation in case.observations:
            assert not observation.abstained and not observation.safety_failures
    for candidate in pack.candidates:
        assert (
            assess_validation(
                pack, candidate, [_approving_review(pack, 1), _approving_review(pack, 2)], key=KEY
            ).decision
            is Decision.RUBRIC_SATISFIED
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_cases": 0},
        {"min_cases": 3, "max_cases": 2},
        {"max_cases": 17},
        {"max_assets": 0},
        {"max_assets": 9},
        {"tasks": []},
        {"tasks": ["radiology"]},
        {"abstentions": "yes"},
    ],
)
def test_pack_strategy_refuses_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        small_packs(**kwargs)


def test_pack_media_covers_every_task() -> None:
    assert set(PACK_MEDIA) == set(ValidationTask)


_SEARCH = settings(max_examples=200, database=None, deadline=None)


def _observations(pack: ValidationPack) -> list[Any]:
    return [o for case in pack.cases for o in case.observations]


@pytest.mark.parametrize(
    "condition",
    [
        lambda p: any(o.abstained for o in _observations(p)),
        lambda p: any(len(o.safety_failures) == 2 for o in _observations(p)),
        lambda p: any(len(case.assets) == 2 for case in p.cases),
        lambda p: len({case.slice for case in p.cases}) >= 2,
        lambda p: p.task is ValidationTask.ECG_QUALITY,
    ],
    ids=["abstention", "both-safety-failures", "two-assets", "two-slices", "waveform-task"],
)
def test_every_kind_of_pack_is_reachable(condition: Any) -> None:
    find(small_packs(), condition, settings=_SEARCH)
