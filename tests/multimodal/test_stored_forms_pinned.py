"""Every stored document and the public report are byte-identical to the pinned release.

The codecs live with their types and the public report is a pure function of
the tallies; moving code must not change a single byte that evaluators store
or publish.  The pins are SHA-256 digests of ``json.dumps`` (key order kept)
of documents built here from fixed inputs only: PNG assets written byte by
byte (zlib stored blocks, so no compressor version matters), fixed digests,
two reviewers who disagree once, one adjudication, and a 36-unit pack whose
public report is published rather than suppressed.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from pytest_openmed._canonical import digest_json
from pytest_openmed.multimodal import (
    Adjudication,
    CandidateLineage,
    CaseSlice,
    CompletedReview,
    DisagreementReason,
    Observation,
    PacketRating,
    ReviewerQualification,
    ReviewOrigin,
    SafetyFailure,
    SourceAsset,
    ValidationCase,
    ValidationPack,
    ValidationTask,
    assess_validation,
    prepare_review,
)

KEY = b"pinned-evaluator-key-0123456789abcdef"
NAMES = ("cand-a", "cand-b")
Scores = Callable[[int, str], tuple[bool, bool, bool, bool]]


def _digest(label: object) -> str:
    return digest_json(["pinned", label])


def _png(seed: int) -> bytes:
    """A 4×4 greyscale PNG, written without a compressor (stored deflate blocks)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    rows = b"".join(
        b"\x00" + bytes((seed * 7 + 13 * (4 * y + x)) % 256 for x in range(4)) for y in range(4)
    )
    header = struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 0))
        + chunk(b"IEND", b"")
    )


def _lineage(name: str) -> CandidateLineage:
    return CandidateLineage(
        name=name,
        model_digest=_digest((name, "model")),
        preprocessing_digest=_digest((name, "preprocessing")),
        runtime_digest=_digest((name, "runtime")),
        hardware_digest=_digest((name, "hardware")),
        harness_digest=_digest((name, "harness")),
        license_snapshot_digest=_digest((name, "license")),
    )


def _pack(units: int, slices: Callable[[int], CaseSlice]) -> ValidationPack:
    cases = tuple(
        ValidationCase(
            slice=slices(unit),
            assets=(SourceAsset(_png(unit)),),
            observations=tuple(
                Observation(
                    candidate=name,
                    output={"unit": unit, "by": name[-1], "nested": [1, 2.5, None, True, "x"]},
                    abstained=(unit, name) == (1, NAMES[0]),
                    safety_failures=frozenset(
                        {SafetyFailure.PRIVACY} if (unit, name) == (2, NAMES[0]) else ()
                    ),
                )
                for name in NAMES
            ),
            context={"instructions": "rate both outputs", "unit": unit},
        )
        for unit in range(units)
    )
    return ValidationPack(
        task=ValidationTask.FORMS,
        candidates=(_lineage(NAMES[0]), _lineage(NAMES[1])),
        cases=cases,
        intended_use="Development check of form grounding; non-diagnostic.",
        reviewer_requirements_digest=_digest("requirements"),
        sampling_manifest_digest=_digest("sampling"),
        dataset_license_digest=_digest("dataset-license"),
        limitations=("evaluator note",),
    )


def _reviewer(index: int) -> ReviewerQualification:
    return ReviewerQualification(
        identity_digest=_digest(("identity", index)),
        task_scope=frozenset({ValidationTask.FORMS}),
        qualification_evidence_digest=_digest(("evidence", index)),
        conflict_screening_digest=_digest(("screening", index)),
        origin=ReviewOrigin.SIMULATED if index % 2 else ReviewOrigin.ATTESTED,
    )


def _review(pack: ValidationPack, index: int, scores: Scores) -> CompletedReview:
    prepared = prepare_review(pack, _reviewer(index), key=KEY)
    names = {c.digest: c.name for c in pack.candidates}
    ratings = tuple(
        PacketRating(
            packet.digest,
            alias,
            *scores(packet.unit, names[prepared.mapping.candidate_for(packet.unit, alias)]),
        )
        for packet in prepared.packets
        for alias in ("A", "B")
    )
    return CompletedReview(_reviewer(index), prepared, ratings)


def _documents() -> dict[str, Any]:
    pack = _pack(6, lambda unit: tuple(CaseSlice)[unit % 3])
    agree: Scores = lambda unit, name: (True, True, True, True)  # noqa: E731
    disputed: Scores = lambda unit, name: (True, (unit, name) != (3, NAMES[0]), True, True)  # noqa: E731
    reviews = [_review(pack, 0, agree), _review(pack, 2, disputed)]
    target = pack.candidate(NAMES[0]).digest
    conflict = frozenset(
        r.rating_for(r.prepared.packets[3], r.mapping.alias_for(3, target)).digest for r in reviews
    )
    prepared = prepare_review(pack, _reviewer(7), key=KEY)
    packet = prepared.packets[3]
    adjudication = Adjudication(
        adjudicator=_reviewer(7),
        packet=packet,
        mapping=prepared.mapping,
        rating=PacketRating(
            packet.digest, prepared.mapping.alias_for(3, target), True, True, True, True
        ),
        conflicting_ratings=conflict,
        reason=DisagreementReason.CRITERION_INTERPRETATION,
    )
    assessment = assess_validation(
        pack, pack.candidate(NAMES[0]), reviews, key=KEY, adjudications=[adjudication]
    )
    published = _pack(36, lambda unit: tuple(CaseSlice)[unit % 3])
    half: Scores = lambda unit, name: (True, (unit // 3) % 2 == 0, True, True)  # noqa: E731
    counted = assess_validation(
        published,
        published.candidate(NAMES[1]),
        [_review(published, 0, half), _review(published, 2, half)],
        key=KEY,
    )
    return {
        "pack": pack.to_dict(),
        "packets": prepared.packets_to_dict(),
        "mapping": prepared.mapping.to_dict(),
        "completed_review": reviews[1].to_dict(),
        "adjudication": adjudication.to_dict(),
        "public_report": assessment.public_report(),
        "public_report_json": assessment.to_json(),
        "published_report_json": counted.to_json(),
    }


PINNED = {
    "adjudication": "f58893a914699f6b67006809ead8d328f5009c89aaa73485c94fef61b4cfe775",
    "completed_review": "a0f423127d5c44a299503135a45cd469ec2b76cd3a1d4278c9aad52070c8cffd",
    "mapping": "3a5885671f34324552c9e3722fc6d0d92dcb27e6a989594baf313f98177e226a",
    "pack": "802a0e852eeea78a4c73b0da04fd3abfe1cf37cabdeb89eb2484c2df44d466aa",
    "packets": "de8b653a41ff3e17cd7cd2f28baae952984c1d0585813fc4b7880c828844bafb",
    "public_report": "e3140903b6ad9a26e62ea3f572883f7f322292026ef43930d2df735ab20f1f2b",
    "public_report_json": "34fec7820068416eed68bae4a9825540132764f4149755ade728f5d03bf68c85",
    "published_report_json": "c6b2aa0c48cbf205aae282d06f5f38dad4eb395f621d7d493c5d4006ed7e6537",
}


@pytest.fixture(scope="module")
def documents() -> dict[str, Any]:
    return _documents()


@pytest.mark.parametrize("name", sorted(PINNED))
def test_stored_form_is_byte_identical(name: str, documents: dict[str, Any]) -> None:
    document = documents[name]
    text = document if isinstance(document, str) else json.dumps(document)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == PINNED[name]


def test_the_published_report_is_not_suppressed(documents: dict[str, Any]) -> None:
    report = json.loads(documents["published_report_json"])
    assert report["overall"]["suppressed"] is False
    assert report["overall"]["metrics"]["utility"]["count"] == 18
