"""prepare_review: eligibility, key checks, blinded packets and evidence verification."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed._canonical import canonical_json
from pytest_openmed.multimodal import (
    ReviewPacket,
    ValidationTask,
    packet_digest,
    prepare_review,
)
from pytest_openmed.multimodal.errors import (
    InvalidInput,
    ReviewerOutOfScope,
    ReviewerRecused,
    StaleEvidence,
)
from pytest_openmed.multimodal.review import verify_review_evidence
from pytest_openmed.multimodal.vocabulary import CRITERIA

from ._helpers import KEY, make_case, make_pack, replaced, reviewer


def test_prepared_review_has_one_packet_per_unit_and_a_sealed_mapping() -> None:
    pack = make_pack(4)
    prepared = prepare_review(pack, reviewer(1), key=KEY)
    assert [p.unit for p in prepared.packets] == [0, 1, 2, 3]
    assert all(p.rubric == CRITERIA for p in prepared.packets)
    assert prepared.mapping.pack_digest == pack.digest
    assert prepared.mapping.reviewer_digest == reviewer(1).digest
    verify_review_evidence(pack, reviewer(1), prepared.mapping, prepared.packets, KEY)


def test_prepared_packets_equal_the_public_constructors_packets() -> None:
    """prepare_review builds packets without re-checking the pack's own values."""
    pack = make_pack(3)
    for packet in prepare_review(pack, reviewer(1), key=KEY).packets:
        public = ReviewPacket(
            **{f.name: getattr(packet, f.name) for f in dataclasses.fields(packet) if f.init}
        )
        assert public == packet and public.digest == packet.digest
        for field in dataclasses.fields(packet):
            assert getattr(public, field.name) == getattr(packet, field.name), field.name
        assert type(packet.outputs) is type(public.outputs)


def test_recused_reviewer_cannot_receive_a_review() -> None:
    with pytest.raises(ReviewerRecused):
        prepare_review(make_pack(1), reviewer(1, recused=True), key=KEY)


def test_out_of_scope_reviewer_cannot_receive_a_review() -> None:
    with pytest.raises(ReviewerOutOfScope):
        prepare_review(make_pack(1), reviewer(1, scope=[ValidationTask.ECG_QUALITY]), key=KEY)


@pytest.mark.parametrize("key", [b"", b"x" * 31, "k" * 40])
def test_short_or_non_bytes_keys_are_refused(key: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        prepare_review(make_pack(1), reviewer(1), key=key)  # type: ignore[arg-type]


def test_packets_show_outputs_but_no_candidate_identity() -> None:
    # The default builder's outputs mention the candidate; use neutral outputs here.
    cases = [
        make_case(u, outputs={"cand-a": {"v": 1, "u": u}, "cand-b": {"v": 2, "u": u}})
        for u in range(3)
    ]
    pack = make_pack(cases=cases)
    prepared = prepare_review(pack, reviewer(1), key=KEY)
    text = canonical_json(prepared.packets_to_dict())
    assert "cand-a" not in text and "cand-b" not in text
    for lineage in pack.candidates:
        assert lineage.digest not in text
        assert lineage.model_digest not in text
    assert reviewer(1).identity_digest not in text
    assert prepared.mapping.seal not in text
    shown = [json.loads(text)["packets"][0]["outputs"][alias]["output"]["v"] for alias in "AB"]
    assert sorted(shown) == [1, 2]


def test_packets_differ_between_reviewers_even_for_one_unit() -> None:
    pack = make_pack(1)
    one = prepare_review(pack, reviewer(1), key=KEY).packets[0]
    two = prepare_review(pack, reviewer(2), key=KEY).packets[0]
    assert packet_digest(one) != packet_digest(two)


def test_packet_sources_resolve_against_the_pack() -> None:
    pack = make_pack(2)
    packet = prepare_review(pack, reviewer(1), key=KEY).packets[1]
    assert pack.asset(packet.sources[0].digest).data == pack.cases[1].assets[0].data


@settings(max_examples=20, deadline=None)
@given(units=st.integers(1, 5), who=st.integers(0, 50))
def test_preparation_is_deterministic(units: int, who: int) -> None:
    pack = make_pack(units)
    one = prepare_review(pack, reviewer(who), key=KEY)
    two = prepare_review(pack, reviewer(who), key=KEY)
    assert [p.digest for p in one.packets] == [p.digest for p in two.packets]
    assert one.mapping == two.mapping


def _replace_packet(packet: ReviewPacket, **change: object) -> ReviewPacket:
    return replaced(packet, **change)


def test_packet_digest_binds_outputs_context_sources_and_nonce() -> None:
    pack = make_pack(2)
    packet = prepare_review(pack, reviewer(1), key=KEY).packets[0]
    other = prepare_review(pack, reviewer(1), key=KEY).packets[1]
    changes: list[dict[str, Any]] = [
        {"outputs": {"A": packet.outputs["B"], "B": packet.outputs["A"]}},
        {"context": {"instructions": "changed"}},
        {"sources": other.sources},
        {"nonce": other.nonce},
        {"unit": 1},
        {"task": ValidationTask.BURNED_IN},
    ]
    for change in changes:
        assert _replace_packet(packet, **change).digest != packet.digest


def test_swapped_packet_outputs_do_not_verify() -> None:
    pack = make_pack(2)
    prepared = prepare_review(pack, reviewer(1), key=KEY)
    packet = prepared.packets[0]
    swapped = _replace_packet(packet, outputs={"A": packet.outputs["B"], "B": packet.outputs["A"]})
    with pytest.raises(StaleEvidence):
        verify_review_evidence(pack, reviewer(1), prepared.mapping, (swapped,), KEY)


def test_a_packet_with_another_nonce_does_not_verify() -> None:
    pack = make_pack(2)
    prepared = prepare_review(pack, reviewer(1), key=KEY)
    others = prepare_review(pack, reviewer(2), key=KEY)
    for nonce in (prepared.packets[1].nonce, others.packets[0].nonce):
        forged = _replace_packet(prepared.packets[0], nonce=nonce)
        with pytest.raises(StaleEvidence):
            verify_review_evidence(pack, reviewer(1), prepared.mapping, (forged,), KEY)
    verify_review_evidence(pack, reviewer(1), prepared.mapping, prepared.packets, KEY)


def test_packet_needs_exactly_the_rubric_and_two_aliases() -> None:
    packet = prepare_review(make_pack(1), reviewer(1), key=KEY).packets[0]
    with pytest.raises(InvalidInput):
        _replace_packet(packet, rubric=("quality", "utility"))
    with pytest.raises(InvalidInput):
        _replace_packet(packet, outputs={"A": packet.outputs["A"]})
    with pytest.raises(InvalidInput):
        _replace_packet(packet, unit=-1)


def test_packet_and_prepared_reprs_hide_values() -> None:
    prepared = prepare_review(make_pack(1), reviewer(1), key=KEY)
    assert "sha256" not in repr(prepared) + repr(prepared.packets[0]) + repr(prepared.mapping)
