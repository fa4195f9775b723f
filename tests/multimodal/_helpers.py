"""Small hand-built packs, reviewers and reviews for the multimodal engine tests.

Real carriers, tiny sizes, all written by the one asset builder,
:mod:`pytest_openmed.strategies.assets`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from pytest_openmed._canonical import digest_json
from pytest_openmed.multimodal import (
    Adjudication,
    CandidateLineage,
    CaseSlice,
    CompletedReview,
    DisagreementReason,
    Observation,
    PacketRating,
    PreparedReview,
    ReviewerQualification,
    ReviewOrigin,
    SafetyFailure,
    SourceAsset,
    ValidationCase,
    ValidationPack,
    ValidationTask,
    prepare_review,
)
from pytest_openmed.multimodal.vocabulary import ALIASES
from pytest_openmed.strategies import assets

KEY = b"evaluator-key-for-tests-0123456789abcdef"
OTHER_KEY = b"another-evaluator-key-0123456789abcdef!!"

Scores = tuple[bool, bool, bool, bool]
ScoreFn = Callable[[int, str], Scores]
GOOD: Scores = (True, True, True, True)


def d(label: object) -> str:
    """A deterministic test digest."""
    return digest_json(["test", label])


# --- carriers ------------------------------------------------------------------------------------


def _pixels(seed: int, size: int = 4) -> bytes:
    return bytes((seed * 7 + i * 13) % 256 for i in range(size * size))


def png_bytes(seed: int, size: int = 4) -> bytes:
    pixels = bytearray(_pixels(seed, size))
    pixels[0], pixels[1] = seed % 256, (seed // 256) % 256
    return assets.png(bytes(pixels), size)


def padded_png(seed: int, total: int) -> bytes:
    """A valid PNG of exactly ``total`` bytes: a private ancillary chunk carries padding."""
    pad_length = total - len(png_bytes(seed)) - 12
    assert pad_length >= 0
    pixels = bytearray(_pixels(seed))
    pixels[0], pixels[1] = seed % 256, (seed // 256) % 256
    return assets.png(bytes(pixels), extra_chunks=[(b"prVt", bytes(pad_length))])


def tiff_bytes(seed: int, *, bigtiff: bool = False, byteorder: Literal["<", ">"] = "<") -> bytes:
    pixels = bytes((i + seed) % 256 for i in range(16))
    return assets.tiff(pixels, bigtiff=bigtiff, byteorder=byteorder)


def dicom_bytes(
    seed: int, *, transfer_syntax: str = assets.EXPLICIT_VR_LITTLE_ENDIAN, pixels: bool = True
) -> bytes:
    data = bytes((seed + i) % 256 for i in range(16)) if pixels else None
    return assets.dicom(
        data, seed, transfer_syntax=transfer_syntax, modality=None, patient_name="Synthetic^Test"
    )


def _waveform_samples(seed: int, leads: int) -> list[list[float]]:
    return [[((seed + i + j) % 7) / 10 for j in range(8)] for i in range(leads)]


def waveform_document(seed: int, leads: Sequence[str] = ("I", "II")) -> dict[str, Any]:
    return assets.waveform_document(_waveform_samples(seed, len(leads)), leads)


def waveform_bytes(seed: int, leads: Sequence[str] = ("I", "II")) -> bytes:
    return assets.waveform(_waveform_samples(seed, len(leads)), leads)


# --- packs -----------------------------------------------------------------------------------------


def candidate(name: str, tag: str | None = None) -> CandidateLineage:
    tag = name if tag is None else tag
    return CandidateLineage(
        name=name,
        model_digest=d((tag, "model")),
        preprocessing_digest=d((tag, "preprocessing")),
        runtime_digest=d((tag, "runtime")),
        hardware_digest=d((tag, "hardware")),
        harness_digest=d((tag, "harness")),
        license_snapshot_digest=d((tag, "license")),
    )


CANDIDATES = ("cand-a", "cand-b")
SLICES = tuple(CaseSlice)


def make_case(
    unit: int,
    *,
    case_slice: CaseSlice = CaseSlice.NOMINAL,
    abstain: Iterable[str] = (),
    safety: Mapping[str, Iterable[str]] | None = None,
    asset: bytes | None = None,
    context: Mapping[str, Any] | None = None,
    outputs: Mapping[str, Mapping[str, Any]] | None = None,
) -> ValidationCase:
    abstained = set(abstain)
    safety = safety or {}
    observations = tuple(
        Observation(
            candidate=name,
            output=(outputs or {}).get(name, {"unit": unit, "by": name[-1], "value": unit * 2}),
            abstained=name in abstained,
            safety_failures=frozenset(SafetyFailure(f) for f in safety.get(name, ())),
        )
        for name in CANDIDATES
    )
    return ValidationCase(
        slice=case_slice,
        assets=(SourceAsset(png_bytes(unit) if asset is None else asset),),
        observations=observations,
        context={"instructions": "rate both outputs", "unit": unit} if context is None else context,
    )


def make_pack(
    units: int = 3,
    *,
    task: ValidationTask = ValidationTask.FORMS,
    slices: Sequence[CaseSlice] | None = None,
    abstain: Mapping[int, Iterable[str]] | None = None,
    safety: Mapping[int, Mapping[str, Iterable[str]]] | None = None,
    cases: Sequence[ValidationCase] | None = None,
    candidates: Sequence[CandidateLineage] | None = None,
    intended_use: str = "Development check of form grounding; non-diagnostic.",
    limitations: tuple[str, ...] = (),
) -> ValidationPack:
    if cases is None:
        cases = [
            make_case(
                unit,
                case_slice=(slices[unit] if slices else CaseSlice.NOMINAL),
                abstain=(abstain or {}).get(unit, ()),
                safety=(safety or {}).get(unit),
            )
            for unit in range(units)
        ]
    return ValidationPack(
        task=task,
        candidates=tuple(candidates or (candidate(CANDIDATES[0]), candidate(CANDIDATES[1]))),
        cases=tuple(cases),
        intended_use=intended_use,
        reviewer_requirements_digest=d("requirements"),
        sampling_manifest_digest=d("sampling"),
        dataset_license_digest=d("dataset-license"),
        limitations=limitations,
    )


# --- reviewers and reviews ------------------------------------------------------------------------


def reviewer(
    index: int,
    *,
    origin: ReviewOrigin = ReviewOrigin.SIMULATED,
    scope: Iterable[ValidationTask] = (ValidationTask.FORMS,),
    recused: bool = False,
    evidence: str = "evidence",
) -> ReviewerQualification:
    return ReviewerQualification(
        identity_digest=d(("identity", index)),
        task_scope=frozenset(scope),
        qualification_evidence_digest=d((evidence, index)),
        conflict_screening_digest=d(("screening", index)),
        origin=origin,
        recused=recused,
    )


def good(_unit: int, _name: str) -> Scores:
    return GOOD


def ratings_for(
    pack: ValidationPack, prepared: PreparedReview, scores: ScoreFn
) -> tuple[PacketRating, ...]:
    """Ratings as a reviewer would give them, scored per true candidate (test-side knowledge)."""
    names = {c.digest: c.name for c in pack.candidates}
    return tuple(
        PacketRating(
            packet.digest,
            alias,
            *scores(packet.unit, names[prepared.mapping.candidate_for(packet.unit, alias)]),
        )
        for packet in prepared.packets
        for alias in ALIASES
    )


def complete(
    pack: ValidationPack,
    qualification: ReviewerQualification,
    scores: ScoreFn = good,
    *,
    key: bytes = KEY,
) -> CompletedReview:
    prepared = prepare_review(pack, qualification, key=key)
    return CompletedReview(qualification, prepared, ratings_for(pack, prepared, scores))


def reviews(pack: ValidationPack, *score_fns: ScoreFn, key: bytes = KEY) -> list[CompletedReview]:
    return [complete(pack, reviewer(i), fn, key=key) for i, fn in enumerate(score_fns)]


def conflict_digests(
    pack: ValidationPack, review_list: Sequence[CompletedReview], unit: int, name: str
) -> frozenset[str]:
    """The rating digests of all original reviewers for ``name`` on ``unit``."""
    target = pack.candidate(name).digest
    return frozenset(
        r.rating_for(r.prepared.packets[unit], r.mapping.alias_for(unit, target)).digest
        for r in review_list
    )


def adjudicate(
    pack: ValidationPack,
    adjudicator: ReviewerQualification,
    unit: int,
    name: str,
    scores: Scores,
    conflicting: frozenset[str],
    *,
    key: bytes = KEY,
    reason: DisagreementReason = DisagreementReason.CRITERION_INTERPRETATION,
) -> Adjudication:
    prepared = prepare_review(pack, adjudicator, key=key)
    packet = prepared.packets[unit]
    alias = prepared.mapping.alias_for(unit, pack.candidate(name).digest)
    return Adjudication(
        adjudicator=adjudicator,
        packet=packet,
        mapping=prepared.mapping,
        rating=PacketRating(packet.digest, alias, *scores),
        conflicting_ratings=conflicting,
        reason=reason,
    )


T = TypeVar("T")


def replaced(value: T, **changes: Any) -> T:
    """``dataclasses.replace`` for tests that deliberately pass ill-typed values."""
    result: T = dataclasses.replace(value, **changes)  # type: ignore[type-var]
    return result
