"""Property tests with pytest_openmed.strategies: generated data, known ground truth."""

from __future__ import annotations

from hypothesis import given, settings

from pytest_openmed.claims import score_summary_claims
from pytest_openmed.strategies import ClaimsSample, claims_and_evidence


@settings(max_examples=25, deadline=None)
@given(claims_and_evidence(max_claims=20))
def test_unsupported_count_matches_the_generated_mix(sample: ClaimsSample) -> None:
    report = score_summary_claims(sample.claims, sample.evidence, n_resamples=50)
    expected = sample.expected_counts()
    assert report.overall.unsupported_count == len(sample.claims) - expected["supported"]


@settings(max_examples=25, deadline=None)
@given(claims_and_evidence(max_claims=20))
def test_deleting_evidence_never_makes_a_claim_supported(sample: ClaimsSample) -> None:
    # A release gate must not be passable by withholding evidence.
    without = score_summary_claims(sample.claims, [], n_resamples=1)
    assert without.overall.counts["supported"] == 0
    assert without.overall.counts["uncited"] == sample.expected_counts()["uncited"]
