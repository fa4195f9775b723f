"""Adversarial assessments of packs built from the real components (separate from the controls).

One 18-unit forms pack (six generated units per slice, both configurations run
for real; config-a abstains on every ambiguous unit and on no other) serves
every test.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from typing import Any

import pytest

from pytest_openmed.development import ALL_TRUE, Rating, simulate_review, simulated_reviewer
from pytest_openmed.development.packs import DevelopmentSource, build_pack
from pytest_openmed.development.simulated_review import simulate_adjudication
from pytest_openmed.multimodal import (
    CompletedReview,
    ValidationPack,
    ValidationRefused,
    assess_validation,
)

KEY = secrets.token_bytes(32)
SLICES = ("nominal", "adverse_acquisition", "ambiguity_conflict")
#: Adverse seeds whose ink config-a reads without abstaining (dark and light-blue
#: pages; config-a abstains on pencil — graphite under its ink level, and the hint
#: boxes of a light-ink page — which would blur the counts).
SEEDS = {
    "nominal": range(6),
    "adverse_acquisition": (0, 2, 6, 13, 15, 16),
    "ambiguity_conflict": range(6),
}
SOURCES = tuple(
    DevelopmentSource("forms:generate_form_grounding", name, seed)
    for name in SLICES
    for seed in SEEDS[name]
)
QUALITY_FAILS = Rating(quality=False, utility=True, privacy=True, provenance=True)
PRIVACY_FAILS = Rating(quality=True, utility=True, privacy=False, provenance=True)


@pytest.fixture(scope="module")
def pack() -> ValidationPack:
    return build_pack("forms", SOURCES)


def review(pack: ValidationPack, name: str, **exceptions: dict[int, Rating]) -> CompletedReview:
    """All-true ratings except ``exceptions[candidate] = {unit: rating}``."""
    ratings = {
        candidate: {
            unit: exceptions.get(candidate.replace("-", "_"), {}).get(unit, ALL_TRUE)
            for unit in range(len(pack.cases))
        }
        for candidate in ("config-a", "config-b")
    }
    return simulate_review(pack, simulated_reviewer(name, pack.task), key=KEY, ratings=ratings)


def public(pack: ValidationPack, candidate: str, reviews: list[CompletedReview]) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(
        assess_validation(pack, pack.candidate(candidate), reviews, key=KEY).to_json()
    )
    return report


def test_the_pack_has_all_three_slices_and_real_abstentions(pack: ValidationPack) -> None:
    assert [case.slice.value for case in pack.cases] == [s.slice for s in SOURCES]
    assert [case.observations[0].abstained for case in pack.cases] == [False] * 12 + [True] * 6


def test_complementary_suppression_hides_the_small_cell_and_the_overall(
    pack: ValidationPack,
) -> None:
    # Both reviewers fail config-b's quality on one adverse unit (unit 6):
    # adverse quality is 5 of 6, a complement of 1 < 5.
    reviews = [review(pack, name, config_b={6: QUALITY_FAILS}) for name in ("r1", "r2")]
    report = public(pack, "config-b", reviews)
    slices = report["slices"]
    assert slices["adverse_acquisition"]["suppressed"] is True
    assert (
        "metrics" not in slices["adverse_acquisition"]
        or not slices["adverse_acquisition"]["metrics"]
    )
    assert slices["nominal"]["suppressed"] is False
    assert slices["ambiguity_conflict"]["suppressed"] is False
    # Otherwise overall minus the published slices would recover the hidden cell.
    assert report["overall"]["suppressed"] is True
    assert "metrics" not in report["overall"] or not report["overall"]["metrics"]


def test_the_same_pack_publishes_everything_when_no_cell_is_small(pack: ValidationPack) -> None:
    reviews = [review(pack, name) for name in ("r1", "r2")]
    report = public(pack, "config-b", reviews)
    assert not report["overall"]["suppressed"]
    assert not any(block["suppressed"] for block in report["slices"].values())


def test_abstention_never_counts_as_useful_emission(pack: ValidationPack) -> None:
    reviews = [review(pack, name) for name in ("r1", "r2")]
    assessment = assess_validation(pack, pack.candidate("config-a"), reviews, key=KEY)
    assert assessment.decision == "rubric_satisfied"  # emitted on 12 units, abstained on 6
    metrics = json.loads(assessment.to_json())["overall"]["metrics"]
    assert (metrics["emission"]["count"], metrics["emission"]["denominator"]) == (12, 18)
    assert (
        metrics["utility"]["count"] == 12
    )  # reviewers said "useful" on all 18; abstained units are not
    ambiguous = json.loads(assessment.to_json())["slices"]["ambiguity_conflict"]["metrics"]
    assert ambiguous["utility"]["count"] == ambiguous["emission"]["count"] == 0


def test_a_minority_privacy_failure_blocks_despite_majority_and_adjudicator(
    pack: ValidationPack,
) -> None:
    reviews = [
        review(pack, "r1"),
        review(pack, "r2"),
        review(pack, "r3", config_a={0: PRIVACY_FAILS}),
    ]
    assessment = assess_validation(pack, pack.candidate("config-a"), reviews, key=KEY)
    assert assessment.decision == "blocked"
    assert assessment.reason.value == "safety"


def test_an_unresolved_disagreement_holds_and_an_adjudication_resolves_it(
    pack: ValidationPack,
) -> None:
    reviews = [review(pack, "r1"), review(pack, "r2", config_b={3: QUALITY_FAILS})]
    held = assess_validation(pack, pack.candidate("config-b"), reviews, key=KEY)
    assert (held.decision, held.reason.value) == ("hold", "disagreement")
    adjudications = [
        simulate_adjudication(
            pack, simulated_reviewer("r3", pack.task), conflict, key=KEY, rating=ALL_TRUE
        )
        for conflict in held.pending_conflicts
    ]
    resolved = assess_validation(
        pack, pack.candidate("config-b"), reviews, key=KEY, adjudications=adjudications
    )
    assert resolved.decision == "rubric_satisfied"


def test_evidence_changed_after_review_is_refused(pack: ValidationPack) -> None:
    reviews = [review(pack, name) for name in ("r1", "r2")]
    changed = build_pack("forms", (*SOURCES[:-1], replace(SOURCES[-1], seed=99)))
    with pytest.raises(ValidationRefused):
        assess_validation(changed, changed.candidate("config-b"), reviews, key=KEY)
