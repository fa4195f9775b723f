"""The public report: schema-valid, closed labels only, no identifier, digest or decision."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal import (
    Adjudication,
    CaseSlice,
    CompletedReview,
    ReviewOrigin,
    ValidationAssessment,
    ValidationPack,
    assess_validation,
)
from pytest_openmed.multimodal.vocabulary import LIMITATIONS, SIMULATION_LIMITATION
from pytest_openmed.schemas import load_schema

from ._helpers import (
    KEY,
    adjudicate,
    candidate,
    complete,
    conflict_digests,
    good,
    make_case,
    make_pack,
    reviewer,
)

A = "cand-a"
SCHEMA = load_schema("multimodal-public-report")


def _validate(text: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(text)
    jsonschema.validate(document, SCHEMA, format_checker=jsonschema.FormatChecker())
    return document


def _assess(
    pack: ValidationPack,
    review_list: Sequence[CompletedReview],
    adjudications: Sequence[Adjudication] = (),
    min_cell: int = 5,
) -> ValidationAssessment:
    return assess_validation(
        pack,
        pack.candidate(A),
        review_list,
        key=KEY,
        adjudications=adjudications,
        min_cell=min_cell,
    )


def test_schema_limitation_enum_is_the_fixed_text() -> None:
    assert SCHEMA["properties"]["limitations"]["items"]["enum"] == [
        *LIMITATIONS,
        SIMULATION_LIMITATION,
    ]


def test_report_is_schema_valid_and_states_non_diagnostic() -> None:
    pack = make_pack(
        15,
        slices=[CaseSlice.NOMINAL] * 5
        + [CaseSlice.ADVERSE_ACQUISITION] * 5
        + [CaseSlice.AMBIGUITY_CONFLICT] * 5,
    )
    report = _validate(_assess(pack, [complete(pack, reviewer(i)) for i in range(2)]).to_json())
    assert report["non_diagnostic"] is True
    assert report["task"] == "forms"
    assert report["overall"]["suppressed"] is False


def test_simulated_reviews_label_the_report_development_simulation() -> None:
    pack = make_pack(2)
    report = _validate(
        _assess(pack, [complete(pack, reviewer(0)), complete(pack, reviewer(1))]).to_json()
    )
    assert report["review_origin"] == "development_simulation"
    assert SIMULATION_LIMITATION in report["limitations"]


def test_attested_reviews_are_labelled_attested() -> None:
    pack = make_pack(2)
    attested = [complete(pack, reviewer(i, origin=ReviewOrigin.ATTESTED)) for i in range(2)]
    report = _validate(_assess(pack, attested).to_json())
    assert report["review_origin"] == "attested"
    assert report["limitations"] == list(LIMITATIONS)


def test_one_simulated_reviewer_among_attested_labels_simulation() -> None:
    pack = make_pack(2)
    mixed = [complete(pack, reviewer(0, origin=ReviewOrigin.ATTESTED)), complete(pack, reviewer(1))]
    assert _validate(_assess(pack, mixed).to_json())["review_origin"] == "development_simulation"


def test_simulated_adjudication_labels_simulation() -> None:
    pack = make_pack(2)
    disputed = lambda u, n: (False, True, True, True) if (u, n) == (0, A) else (True,) * 4  # noqa: E731
    review_list = [
        complete(pack, reviewer(0, origin=ReviewOrigin.ATTESTED)),
        complete(pack, reviewer(1, origin=ReviewOrigin.ATTESTED), disputed),
    ]
    adjudication = adjudicate(
        pack, reviewer(7), 0, A, (True,) * 4, conflict_digests(pack, review_list, 0, A)
    )
    assert _assess(pack, review_list).review_origin == "attested"
    assert (
        _validate(_assess(pack, review_list, [adjudication]).to_json())["review_origin"]
        == "development_simulation"
    )


def test_report_carries_no_decision_reason_or_private_counts() -> None:
    pack = make_pack(3, safety={0: {A: ["privacy"]}})
    result = _assess(pack, [complete(pack, reviewer(i)) for i in range(2)])
    assert result.decision == "blocked"
    report = json.loads(result.to_json())
    assert report.pop("limitations")[: len(LIMITATIONS)] == list(LIMITATIONS)  # fixed text only
    text = json.dumps(report)
    for word in (
        "blocked",
        "hold",
        "rubric_satisfied",
        "decision",
        "reason",
        "safety",
        "sha256",
        "digest",
    ):
        assert word not in text


CANARY = "zq-canary-7781"


@settings(max_examples=15, deadline=None)
@given(units=st.integers(1, 12), adjudicate_first=st.booleans())
def test_no_identifier_or_digest_in_to_json(units: int, adjudicate_first: bool) -> None:
    cases = [
        make_case(
            u,
            case_slice=list(CaseSlice)[u % 3],
            context={"note": f"{CANARY}-context-{u}", "patient": f"{CANARY}-mrn"},
            outputs={"cand-a": {"text": f"{CANARY}-out-a"}, "cand-b": {"text": f"{CANARY}-out-b"}},
        )
        for u in range(units)
    ]
    names = [f"{CANARY}-model-a", f"{CANARY}-model-b"]
    pack = make_pack(
        cases=[
            type(c)(
                slice=c.slice,
                assets=c.assets,
                context=c.context,
                observations=tuple(
                    type(o)(
                        candidate=names[i],
                        output=o.output,
                        abstained=o.abstained,
                        safety_failures=o.safety_failures,
                    )
                    for i, o in enumerate(c.observations)
                ),
            )
            for c in cases
        ],
        candidates=[candidate(names[0]), candidate(names[1])],
        intended_use=f"{CANARY}-intended-use",
        limitations=(f"{CANARY}-limitation",),
    )
    disputed = lambda u, n: (False, True, True, True) if (u, n) == (0, names[0]) else (True,) * 4  # noqa: E731
    review_list = [complete(pack, reviewer(0)), complete(pack, reviewer(1), disputed)]
    adjudications = []
    if adjudicate_first:
        conflict = conflict_digests(pack, review_list, 0, names[0])
        adjudications.append(adjudicate(pack, reviewer(5), 0, names[0], (True,) * 4, conflict))
    result = assess_validation(
        pack, pack.candidates[0], review_list, key=KEY, adjudications=adjudications
    )
    text = result.to_json()
    _validate(text)
    assert CANARY not in text
    assert "sha256:" not in text
    forbidden = {
        pack.digest,
        result.candidate_digest,
        *(r.reviewer.identity_digest for r in review_list),
    }
    forbidden |= {p.digest for r in review_list for p in r.prepared.packets}
    forbidden |= {a.digest for c in pack.cases for a in c.assets}
    forbidden |= {digest[len("sha256:") :][:16] for digest in list(forbidden)}
    assert not any(value in text for value in forbidden)
    assert CANARY not in repr(result)


def test_blocked_and_satisfied_small_packs_publish_identical_reports() -> None:
    clean = make_pack(3)
    failing = make_pack(3, safety={0: {A: ["privacy"]}})
    results = [
        _assess(p, [complete(p, reviewer(i), good) for i in range(2)]) for p in (clean, failing)
    ]
    assert [r.decision for r in results] == ["rubric_satisfied", "blocked"]
    assert results[0].to_json() == results[1].to_json()
