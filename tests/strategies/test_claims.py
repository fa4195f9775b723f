"""claims_and_evidence: every sample is accepted, and the claims engine agrees with it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from pytest_openmed.claims import STATES, normalise_class, score_summary_claims
from pytest_openmed.strategies import DEFAULT_CLAIM_CLASSES, ClaimsSample, claims_and_evidence

FAST = settings(max_examples=60, deadline=None)


def _counts(metrics: Any) -> dict[str, int]:
    return {state: metrics.counts[state] for state in STATES}


# -- claims and evidence ------------------------------------------------------------------------


@FAST
@given(claims_and_evidence())
def test_claims_samples_score_to_their_expected_counts(sample: ClaimsSample) -> None:
    report = score_summary_claims(sample.claims, sample.evidence, n_resamples=10)
    assert _counts(report.overall) == dict(sample.expected_counts())
    assert tuple(report.by_claim_class) == sample.class_names
    for name in sample.class_names:
        assert _counts(report.by_claim_class[name]) == dict(sample.expected_counts(name))
    assert report.evidence_count == len(sample.evidence)


@FAST
@given(claims_and_evidence(max_claims=6))
def test_each_claim_gets_its_expected_state(sample: ClaimsSample) -> None:
    for claim in sample.claims:
        report = score_summary_claims([claim], sample.evidence, n_resamples=1)
        state = sample.expected_states[claim["claim_id"]]
        assert _counts(report.overall) == {s: int(s == state) for s in STATES}
        assert tuple(report.by_claim_class) == (sample.expected_classes[claim["claim_id"]],)


@pytest.mark.parametrize("state", STATES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_single_state_mix_yields_only_that_state(state: str, data: st.DataObject) -> None:
    sample = data.draw(claims_and_evidence(min_claims=1, max_claims=8, states={state}))
    assert set(sample.expected_states.values()) == {state}
    report = score_summary_claims(sample.claims, sample.evidence, n_resamples=1)
    assert report.overall.counts[state] == len(sample.claims)


@FAST
@given(claims_and_evidence(max_claims=10, classes=["Ward Round", "LAB", "medication"]))
def test_class_labels_are_drawn_from_the_given_labels(sample: ClaimsSample) -> None:
    report = score_summary_claims(sample.claims, sample.evidence, n_resamples=1)
    allowed = {"lab", "medication", normalise_class("Ward Round")}
    assert set(sample.class_names) == set(report.by_claim_class) <= allowed


@FAST
@given(claims_and_evidence(max_claims=12))
def test_claims_samples_survive_json_as_a_gate_file_would_read_them(sample: ClaimsSample) -> None:
    claims = json.loads(json.dumps(sample.claims))
    evidence = json.loads(json.dumps(sample.evidence))
    report = score_summary_claims(claims, evidence, n_resamples=1)
    assert _counts(report.overall) == dict(sample.expected_counts())


def test_claims_sample_checks_its_own_consistency() -> None:
    claim = {"claim_id": "c", "claim_class": "lab", "claim_key": "k", "evidence_ids": []}
    with pytest.raises(ValueError):
        ClaimsSample((claim,), (), {"other": "uncited"}, {"other": "lab"})
    with pytest.raises(ValueError):
        ClaimsSample((claim,), (), {"c": "fine"}, {"c": "lab"})
    sample = ClaimsSample((claim,), (), {"c": "uncited"}, {"c": "lab"})
    assert dict(sample.expected_counts("lab")) == {
        "supported": 0,
        "contradicted": 0,
        "unresolved": 0,
        "uncited": 1,
    }
    assert sample.expected_counts("vital")["uncited"] == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_claims": 3, "max_claims": 2},
        {"max_claims": 501},
        {"min_claims": -1},
        {"states": set()},
        {"states": {"supported", "maybe"}},
        {"states": "supported"},
        {"classes": []},
        {"classes": ["!!!"]},
    ],
)
def test_claims_strategy_refuses_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        claims_and_evidence(**kwargs)


def test_default_claim_classes_all_normalise() -> None:
    claims_and_evidence(classes=DEFAULT_CLAIM_CLASSES)  # would raise on a bad label


# -- every shape of the record contract is reachable ---------------------------------------------

_SEARCH = settings(max_examples=400, database=None, deadline=None)


def _some_row(predicate: Any) -> Any:
    return lambda sample: any(predicate(row) for row in sample.evidence)


@pytest.mark.parametrize(
    "condition",
    [
        lambda s: any(type(c["claim_id"]) is int for c in s.claims),
        lambda s: any(type(c["claim_id"]) is str for c in s.claims),
        lambda s: any(isinstance(c["claim_key"], dict) and c["claim_key"] for c in s.claims),
        lambda s: any(isinstance(c["claim_key"], list) and c["claim_key"] for c in s.claims),
        lambda s: any(type(c["claim_key"]) is float for c in s.claims),
        lambda s: any(any(ord(ch) > 127 for ch in str(c["claim_key"])) for c in s.claims),
        lambda s: any(str(e).startswith("missing-") for c in s.claims for e in c["evidence_ids"]),
        lambda s: any(
            len(c["evidence_ids"]) != len(set(map(repr, c["evidence_ids"]))) for c in s.claims
        ),
        _some_row(lambda row: str(row.get("claim_key", "")).startswith("sha256:")),
        _some_row(lambda row: "is_approved" in row and "approved" not in row),
        _some_row(lambda row: row.get("relation") == "supported"),
        _some_row(lambda row: "relation" not in row and "contradicted" in row),
        _some_row(lambda row: row.get("approved") is False),
        _some_row(lambda row: "source" in row),
    ],
    ids=[
        "int-ids",
        "str-ids",
        "object-keys",
        "list-keys",
        "float-keys",
        "non-ascii-keys",
        "missing-evidence",
        "cited-twice",
        "fingerprint-links",
        "is-approved-alias",
        "relation-alias",
        "flag-only-relation",
        "unapproved-rows",
        "unknown-fields",
    ],
)
def test_every_shape_of_the_record_contract_is_reachable(condition: Any) -> None:
    find(claims_and_evidence(max_claims=10), condition, settings=_SEARCH)
