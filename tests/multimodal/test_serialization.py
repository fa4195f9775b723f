"""Versioned stored forms: schema-valid, exact round trips, recorded digests re-checked."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal import (
    Adjudication,
    CaseSlice,
    CompletedReview,
    SealedMapping,
    ValidationPack,
    assess_validation,
    prepare_review,
)
from pytest_openmed.multimodal.errors import DocumentInvalid, DuplicateMapping, MissingMapping
from pytest_openmed.multimodal.review import PreparedReview, packets_from_dict
from pytest_openmed.schemas import load_schema

from ._helpers import (
    KEY,
    adjudicate,
    complete,
    conflict_digests,
    dicom_bytes,
    make_case,
    make_pack,
    reviewer,
    reviews,
    tiff_bytes,
    waveform_bytes,
)

A = "cand-a"


def _roundtrip_json(document: dict[str, Any]) -> dict[str, Any]:
    """What storing and reading back as JSON text yields."""
    result: dict[str, Any] = json.loads(json.dumps(document))
    return result


def _valid(document: dict[str, Any], name: str) -> None:
    jsonschema.validate(document, load_schema(name))


def _mixed_pack() -> ValidationPack:
    cases = [
        make_case(0, asset=tiff_bytes(1, bigtiff=True), case_slice=CaseSlice.ADVERSE_ACQUISITION),
        make_case(1, asset=dicom_bytes(2), abstain=[A]),
        make_case(2, asset=waveform_bytes(3), safety={A: ["privacy", "provenance"]}),
        make_case(3, context={"nested": {"list": [1, 2.5, None, True, "x"]}}),
    ]
    return make_pack(cases=cases, limitations=("evaluator note",))


def _disputed() -> tuple[ValidationPack, list[CompletedReview], Adjudication]:
    pack = _mixed_pack()
    disputed = lambda u, n: (True, False, True, True) if (u, n) == (3, A) else (True,) * 4  # noqa: E731
    review_list = reviews(pack, lambda u, n: (True,) * 4, disputed)
    adjudication = adjudicate(
        pack, reviewer(7), 3, A, (True,) * 4, conflict_digests(pack, review_list, 3, A)
    )
    return pack, review_list, adjudication


def test_pack_round_trip() -> None:
    pack = _mixed_pack()
    document = _roundtrip_json(pack.to_dict())
    _valid(document, "multimodal-pack")
    again = ValidationPack.from_dict(document)
    assert again == pack and again.digest == pack.digest
    assert again.to_dict() == document


def test_prepared_review_round_trip_as_two_documents() -> None:
    pack = _mixed_pack()
    prepared = prepare_review(pack, reviewer(1), key=KEY)
    packets_doc = _roundtrip_json(prepared.packets_to_dict())
    mapping_doc = _roundtrip_json(prepared.mapping.to_dict())
    _valid(packets_doc, "multimodal-review-packets")
    _valid(mapping_doc, "multimodal-sealed-mapping")
    assert "seal" not in json.dumps(packets_doc)
    again = PreparedReview.from_dicts(packets_doc, mapping_doc)
    assert [p.digest for p in again.packets] == [p.digest for p in prepared.packets]
    assert again.mapping == prepared.mapping
    assert SealedMapping.from_dict(mapping_doc) == prepared.mapping


def test_completed_review_round_trip_with_its_mapping_supplied_separately() -> None:
    _pack, review_list, _ = _disputed()
    review = review_list[1]
    document = _roundtrip_json(review.to_dict())
    _valid(document, "multimodal-completed-review")
    assert "seal" not in document and "aliases" not in json.dumps(document)
    mappings = [r.mapping for r in review_list]
    again = CompletedReview.from_dict(document, mappings)
    assert again.reviewer == review.reviewer and again.ratings == review.ratings
    assert again.to_dict() == document


def test_adjudication_round_trip() -> None:
    _pack, _review_list, adjudication = _disputed()
    document = _roundtrip_json(adjudication.to_dict())
    _valid(document, "multimodal-adjudication")
    again = Adjudication.from_dict(document, [adjudication.mapping])
    assert again.to_dict() == document
    assert again.conflicting_ratings == adjudication.conflicting_ratings


def test_assessment_from_stored_documents_equals_the_in_memory_one() -> None:
    pack, review_list, adjudication = _disputed()
    mappings = [SealedMapping.from_dict(_roundtrip_json(r.mapping.to_dict())) for r in review_list]
    mappings.append(SealedMapping.from_dict(_roundtrip_json(adjudication.mapping.to_dict())))
    stored_pack = ValidationPack.from_dict(_roundtrip_json(pack.to_dict()))
    stored_reviews = [
        CompletedReview.from_dict(_roundtrip_json(r.to_dict()), mappings) for r in review_list
    ]
    stored_adj = [Adjudication.from_dict(_roundtrip_json(adjudication.to_dict()), mappings)]
    for name in ("cand-a", "cand-b"):
        memory = assess_validation(
            pack, pack.candidate(name), review_list, key=KEY, adjudications=[adjudication]
        )
        stored = assess_validation(
            stored_pack,
            stored_pack.candidate(name),
            stored_reviews,
            key=KEY,
            adjudications=stored_adj,
        )
        assert (memory.decision, memory.reason, memory.to_json()) == (
            stored.decision,
            stored.reason,
            stored.to_json(),
        )


@settings(max_examples=15, deadline=None)
@given(
    units=st.integers(1, 5),
    abstain=st.sets(st.integers(0, 4)),
    scores=st.lists(
        st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()),
        min_size=10,
        max_size=10,
    ),
)
def test_round_trips_hold_for_generated_packs_and_reviews(
    units: int, abstain: set[int], scores: list[tuple[bool, bool, bool, bool]]
) -> None:
    pack = make_pack(units, abstain={u: [A] for u in abstain if u < units})
    assert ValidationPack.from_dict(_roundtrip_json(pack.to_dict())).digest == pack.digest
    review = complete(pack, reviewer(3), lambda u, n: scores[2 * u + (n == A)])
    document = _roundtrip_json(review.to_dict())
    again = CompletedReview.from_dict(document, review.mapping)
    assert again.ratings == review.ratings
    assert [p.digest for p in again.prepared.packets] == [p.digest for p in review.prepared.packets]
    assert (
        packets_from_dict(_roundtrip_json(review.prepared.packets_to_dict()))[0].digest
        == review.prepared.packets[0].digest
    )


def test_tampered_asset_bytes_in_a_stored_pack_are_refused() -> None:
    document = _roundtrip_json(make_pack(2).to_dict())
    import base64

    data = bytearray(base64.b64decode(document["cases"][0]["assets"][0]["data"]))
    data[45] ^= 1
    document["cases"][0]["assets"][0]["data"] = base64.b64encode(bytes(data)).decode()
    with pytest.raises(DocumentInvalid):
        ValidationPack.from_dict(document)


def test_stored_pack_whose_recorded_digest_differs_is_refused() -> None:
    document = _roundtrip_json(make_pack(2).to_dict())
    document["intended_use"] = "edited"
    with pytest.raises(DocumentInvalid):
        ValidationPack.from_dict(document)


def test_stored_packet_whose_recorded_digest_differs_is_refused() -> None:
    pack = make_pack(2)
    document = _roundtrip_json(prepare_review(pack, reviewer(1), key=KEY).packets_to_dict())
    document["packets"][0]["outputs"]["A"]["abstained"] = not document["packets"][0]["outputs"][
        "A"
    ]["abstained"]
    with pytest.raises(DocumentInvalid):
        packets_from_dict(document)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(schema="openmed.multimodal.other"),
        lambda d: d.update(schema_version="2.0"),
        lambda d: d.update(extra=1),
        lambda d: d.pop("cases"),
        lambda d: d.update(cases="not a list"),
        lambda d: d["cases"][0]["observations"][0].update(abstained="yes"),
        lambda d: d["cases"][0]["assets"][0].update(data="***"),
        lambda d: d["candidates"][0].update(model_digest="org/model"),
    ],
)
def test_malformed_stored_packs_are_refused(mutate: Any) -> None:
    document = _roundtrip_json(make_pack(1).to_dict())
    mutate(document)
    with pytest.raises(ValueError):
        ValidationPack.from_dict(document)


def test_completed_review_needs_exactly_one_mapping_of_its_reviewer() -> None:
    pack = make_pack(2)
    first, second = reviews(pack, lambda u, n: (True,) * 4, lambda u, n: (True,) * 4)
    document = _roundtrip_json(first.to_dict())
    with pytest.raises(MissingMapping):
        CompletedReview.from_dict(document, [second.mapping])
    with pytest.raises(DuplicateMapping):
        CompletedReview.from_dict(document, [first.mapping, copy.copy(first.mapping)])


def test_stored_rating_with_wrong_types_is_refused() -> None:
    pack = make_pack(1)
    document = _roundtrip_json(complete(pack, reviewer(1)).to_dict())
    document["ratings"][0]["quality"] = 1
    with pytest.raises(DocumentInvalid):
        CompletedReview.from_dict(document, complete(pack, reviewer(1)).mapping)
