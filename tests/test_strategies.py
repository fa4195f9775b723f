"""The public Hypothesis strategies: every value is accepted, and the engines agree with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.claims import STATES, normalise_class, score_summary_claims
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
from pytest_openmed.planner import PlannerContext, ProposedToolCall, ToolCatalog, qualify_planner
from pytest_openmed.planner.calls import DECISIONS
from pytest_openmed.strategies import (
    DEFAULT_CLAIM_CLASSES,
    PACK_MEDIA,
    ClaimsSample,
    ProposalsSample,
    claims_and_evidence,
    proposed_tool_calls,
    small_packs,
)

FAST = settings(max_examples=60, deadline=None)
KEY = b"strategies-test-evaluator-key-0123456789"


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


# -- planner proposals -------------------------------------------------------------------------


def _judge_turn(sample: ProposalsSample) -> tuple[Any, list[tuple[str, ...]]]:
    """Hand the sample to the harness as turn 0 of ``in-scope``; return the report and
    the decisions the planner is shown on turn 1."""
    shown: list[tuple[str, ...]] = []

    def planner(context: PlannerContext, catalog: ToolCatalog) -> list[object]:
        if context.scenario_id != "in-scope":
            return []
        if context.turn == 0:
            return list(sample.calls)
        shown.append(context.previous_decisions)
        return []

    return qualify_planner(planner), shown


@FAST
@given(proposed_tool_calls(max_size=8, malformed=True))
def test_every_proposal_gets_its_expected_decision(sample: ProposalsSample) -> None:
    report, shown = _judge_turn(sample)
    assert shown == ([sample.expected_decisions] if sample.calls else [])
    counts = report.scenarios[0].counts
    assert counts.proposals == len(sample.calls)
    assert counts.schema_valid_calls == sum(sample.expected_schema_valid)
    assert counts.out_of_grant_proposals == sample.expected_decisions.count("out_of_grant")
    assert counts.planner_errors == 0


@pytest.mark.parametrize("decision", DECISIONS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_single_decision_mix_yields_only_that_decision(
    decision: str, data: st.DataObject
) -> None:
    sample = data.draw(proposed_tool_calls(min_size=1, max_size=3, decisions={decision}))
    assert all(type(call) is ProposedToolCall for call in sample.calls)
    _, shown = _judge_turn(sample)
    assert shown == [(decision,) * len(sample.calls)]


@FAST
@given(proposed_tool_calls(min_size=1, max_size=2, decisions={"schema_invalid"}, malformed=True))
def test_malformed_proposals_are_schema_invalid(sample: ProposalsSample) -> None:
    report, shown = _judge_turn(sample)
    assert shown == [("schema_invalid",) * len(sample.calls)]
    assert report.scenarios[0].counts.schema_invalid_calls == len(sample.calls)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_size": 2, "max_size": 1},
        {"max_size": 17},
        {"decisions": set()},
        {"decisions": {"approved"}},
        {"decisions": {"allowed"}, "malformed": True},
        {"malformed": 1},
    ],
)
def test_proposal_strategy_refuses_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        proposed_tool_calls(**kwargs)


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


# -- the plugin stays free of Hypothesis --------------------------------------------------------


def test_loading_the_plugin_imports_neither_hypothesis_nor_the_strategies() -> None:
    code = (
        "import sys, pytest_openmed, pytest_openmed.plugin; "
        "print(sorted(m for m in ('hypothesis', 'pytest_openmed.strategies') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


# -- the docs page shows the example project's property tests verbatim --------------------------


def test_docs_example_is_the_example_projects_property_test() -> None:
    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "strategies.md").read_text("utf-8")
    source = (root / "examples" / "downstream" / "tests" / "test_properties.py").read_text("utf-8")
    blocks = page.split("```python\n")[1:]
    assert blocks, "docs/strategies.md shows no Python example"
    assert blocks[0].split("```", 1)[0] == source
