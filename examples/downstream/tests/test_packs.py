"""A blinded-review rehearsal on a development pack (simulated reviewers, non-diagnostic)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_openmed.development import ALL_TRUE, simulate_review
from pytest_openmed.multimodal import Decision, assess_validation


@pytest.mark.openmed_gate(kind="pack")
def test_forms_review_rehearsal(
    development_pack: Any, simulated_reviewers: Any, evaluator_key: bytes
) -> None:
    # The development pack runs the forms component under two configurations on
    # one generated form; two simulated reviewers approve every output.
    pack = development_pack("forms")
    ratings = {candidate.name: ALL_TRUE for candidate in pack.candidates}
    reviews = [
        simulate_review(pack, reviewer, key=evaluator_key, ratings=ratings)
        for reviewer in simulated_reviewers("forms")
    ]
    for candidate in pack.candidates:
        observations = [case.observation(candidate.name) for case in pack.cases]
        if any(observation.safety_failures for observation in observations):
            expected = Decision.BLOCKED  # non-compensable, whatever the reviewers said
        elif all(observation.abstained for observation in observations):
            expected = Decision.HOLD  # abstention is never useful emission
        else:
            expected = Decision.RUBRIC_SATISFIED
        assessment = assess_validation(pack, candidate, reviews, key=evaluator_key)
        assert assessment.decision is expected
        public = json.loads(assessment.to_json())
        assert public["review_origin"] == "development_simulation"
