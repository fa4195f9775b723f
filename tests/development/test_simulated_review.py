"""Simulated reviews: explicit ratings, always labelled development simulation."""

from __future__ import annotations

import json
import secrets

import pytest

from pytest_openmed.development import (
    ALL_TRUE,
    Rating,
    development_pack,
    simulate_review,
    simulated_reviewer,
)
from pytest_openmed.multimodal import ReviewOrigin, assess_validation

KEY = secrets.token_bytes(32)


def test_a_simulated_reviewer_is_simulated_and_scoped() -> None:
    reviewer = simulated_reviewer("r1", "forms")
    assert reviewer.origin is ReviewOrigin.SIMULATED
    assert {task.value for task in reviewer.task_scope} == {"forms"}


def test_ratings_land_on_the_named_candidate_whatever_the_alias() -> None:
    pack = development_pack("ecg_intervals")
    failing = Rating(quality=False, utility=True, privacy=True, provenance=True)
    reviews = [
        simulate_review(
            pack,
            simulated_reviewer(name, pack.task),
            key=KEY,
            ratings={"config-a": ALL_TRUE, "config-b": failing},
        )
        for name in ("r1", "r2")
    ]
    assert (
        assess_validation(pack, pack.candidate("config-a"), reviews, key=KEY).decision
        == "rubric_satisfied"
    )
    assert (
        assess_validation(pack, pack.candidate("config-b"), reviews, key=KEY).decision == "blocked"
    )


def test_reports_from_simulated_reviews_say_so() -> None:
    pack = development_pack("dicom_frames")
    reviews = [
        simulate_review(
            pack,
            simulated_reviewer(name, pack.task),
            key=KEY,
            ratings={"config-a": ALL_TRUE, "config-b": ALL_TRUE},
        )
        for name in ("r1", "r2")
    ]
    report = json.loads(
        assess_validation(pack, pack.candidate("config-a"), reviews, key=KEY).to_json()
    )
    assert "development_simulation" in json.dumps(report)


def test_ratings_must_name_both_candidates() -> None:
    pack = development_pack("forms")
    with pytest.raises(ValueError, match="both candidates"):
        simulate_review(
            pack, simulated_reviewer("r1", "forms"), key=KEY, ratings={"config-a": ALL_TRUE}
        )


def test_per_unit_ratings_must_cover_every_unit() -> None:
    pack = development_pack("forms")
    with pytest.raises(ValueError, match="every unit"):
        simulate_review(
            pack,
            simulated_reviewer("r1", "forms"),
            key=KEY,
            ratings={"config-a": {5: ALL_TRUE}, "config-b": ALL_TRUE},
        )
