"""Explicit, versioned stored forms of packs, packets, mappings, reviews and adjudications.

PYTEST_DONT_REWRITE

Evaluators store these documents where they control access; the library never
writes a file.  Each document carries ``schema`` and ``schema_version``; a
reader accepts exactly the keys it documents and rebuilds every value object,
so every construction check runs again.  Recorded digests (asset, packet,
pack) are recomputed and must match.  A prepared review is stored as two
separate documents — reviewer-visible packets and the evaluator-only sealed
mapping — and completed reviews and adjudications are stored without their
mapping, which is supplied again when they are read.  JSON Schemas of every
document are shipped in ``pytest_openmed/schemas/``.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .aliases import SealedMapping
from .errors import DocumentInvalid, DuplicateMapping, MissingMapping
from .limits import MAX_ASSET_BYTES, MAX_REVIEWS, MAX_UNITS, materialise
from .lineage import LINEAGE_FIELDS, CandidateLineage
from .pack import (
    BlindedOutput,
    Observation,
    SourceAsset,
    SourceReference,
    ValidationCase,
    ValidationPack,
)
from .qualification import ReviewerQualification
from .ratings import Adjudication, CompletedReview, PacketRating
from .review import PreparedReview, ReviewPacket
from .vocabulary import ALIASES, CRITERIA

__all__ = [
    "ADJUDICATION_SCHEMA",
    "COMPLETED_REVIEW_SCHEMA",
    "MAPPING_SCHEMA",
    "PACKETS_SCHEMA",
    "PACK_SCHEMA",
    "SCHEMA_VERSION",
    "adjudication_from_dict",
    "adjudication_to_dict",
    "completed_review_from_dict",
    "completed_review_to_dict",
    "mapping_from_dict",
    "mapping_to_dict",
    "pack_from_dict",
    "pack_to_dict",
    "packets_from_dict",
    "packets_to_dict",
    "prepared_review_from_dicts",
]

SCHEMA_VERSION = "1.0"
PACK_SCHEMA = "openmed.multimodal.pack"
PACKETS_SCHEMA = "openmed.multimodal.review_packets"
MAPPING_SCHEMA = "openmed.multimodal.sealed_mapping"
COMPLETED_REVIEW_SCHEMA = "openmed.multimodal.completed_review"
ADJUDICATION_SCHEMA = "openmed.multimodal.adjudication"

_MAX_BASE64 = 4 * ((MAX_ASSET_BYTES + 2) // 3)
_MAX_MAPPINGS = 2 * MAX_UNITS + MAX_REVIEWS


# --- pack ---------------------------------------------------------------------------------------


def pack_to_dict(pack: ValidationPack) -> dict[str, Any]:
    """The stored form of a pack, assets included (base64)."""
    return {
        "schema": PACK_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "pack_digest": pack.digest,
        "task": pack.task.value,
        "intended_use": pack.intended_use,
        "limitations": list(pack.limitations),
        "reviewer_requirements_digest": pack.reviewer_requirements_digest,
        "sampling_manifest_digest": pack.sampling_manifest_digest,
        "dataset_license_digest": pack.dataset_license_digest,
        "candidates": [
            {"name": c.name, **{name: getattr(c, name) for name in LINEAGE_FIELDS}}
            for c in pack.candidates
        ],
        "cases": [
            {
                "slice": case.slice.value,
                "context": case.frozen_context.thaw(),
                "assets": [
                    {
                        "media_type": a.media_type.value,
                        "digest": a.digest,
                        "data": base64.b64encode(a.data).decode("ascii"),
                    }
                    for a in case.assets
                ],
                "observations": [
                    {
                        "candidate": o.candidate,
                        "output": o.blinded.output.thaw(),
                        "abstained": o.abstained,
                        "safety_failures": sorted(f.value for f in o.safety_failures),
                    }
                    for o in (case.observation(c.name) for c in pack.candidates)
                ],
            }
            for case in pack.cases
        ],
    }


def pack_from_dict(data: object) -> ValidationPack:
    """Rebuild a pack; every asset and the pack must match their recorded digests."""
    document = _document(
        data,
        PACK_SCHEMA,
        {
            "pack_digest",
            "task",
            "intended_use",
            "limitations",
            "reviewer_requirements_digest",
            "sampling_manifest_digest",
            "dataset_license_digest",
            "candidates",
            "cases",
        },
    )
    with _malformed():
        candidates = tuple(
            CandidateLineage(**_fields(c, {"name", *LINEAGE_FIELDS}))
            for c in _array(document["candidates"], 2)
        )
        cases = tuple(_case_from_dict(c) for c in _array(document["cases"], MAX_UNITS))
        pack = ValidationPack(
            task=document["task"],
            candidates=candidates,
            cases=cases,
            intended_use=document["intended_use"],
            reviewer_requirements_digest=document["reviewer_requirements_digest"],
            sampling_manifest_digest=document["sampling_manifest_digest"],
            dataset_license_digest=document["dataset_license_digest"],
            limitations=tuple(_array(document["limitations"], 16)),
        )
    if pack.digest != document["pack_digest"]:
        raise DocumentInvalid("the pack document does not match its recorded pack digest")
    return pack


def _case_from_dict(data: object) -> ValidationCase:
    case = _fields(data, {"slice", "context", "assets", "observations"})
    assets = []
    for item in _array(case["assets"], 8):
        entry = _fields(item, {"media_type", "digest", "data"})
        encoded = entry["data"]
        if type(encoded) is not str or len(encoded) > _MAX_BASE64:
            raise DocumentInvalid("asset data must be base64 text of at most 4 MiB")
        try:
            raw = base64.b64decode(encoded.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise DocumentInvalid("asset data is not valid base64") from None
        asset = SourceAsset(raw)
        if asset.digest != entry["digest"] or asset.media_type.value != entry["media_type"]:
            raise DocumentInvalid("an asset does not match its recorded digest and media type")
        assets.append(asset)
    observations = tuple(
        Observation(
            candidate=o["candidate"],
            output=_object(o["output"]),
            abstained=o["abstained"],
            safety_failures=frozenset(_array(o["safety_failures"], 2)),
        )
        for o in (
            _fields(item, {"candidate", "output", "abstained", "safety_failures"})
            for item in _array(case["observations"], 2)
        )
    )
    return ValidationCase(
        slice=case["slice"],
        assets=tuple(assets),
        observations=observations,
        context=_object(case["context"]),
    )


# --- packets and mapping ------------------------------------------------------------------------


def packet_to_dict(packet: ReviewPacket) -> dict[str, Any]:
    return {
        "packet_digest": packet.digest,
        "nonce": packet.nonce,
        "pack_digest": packet.pack_digest,
        "task": packet.task.value,
        "unit": packet.unit,
        "sources": [{"digest": s.digest, "media_type": s.media_type.value} for s in packet.sources],
        "context": packet.frozen_context.thaw(),
        "outputs": {
            alias: {
                "output": packet.outputs[alias].output.thaw(),
                "abstained": packet.outputs[alias].abstained,
            }
            for alias in ALIASES
        },
        "rubric": list(packet.rubric),
    }


def packet_from_dict(data: object) -> ReviewPacket:
    fields = _fields(
        data,
        {"packet_digest", "nonce", "pack_digest", "task", "unit", "sources", "context", "outputs"}
        | {"rubric"},
    )
    with _malformed():
        outputs = _fields(fields["outputs"], set(ALIASES))
        packet = ReviewPacket(
            nonce=fields["nonce"],
            pack_digest=fields["pack_digest"],
            task=fields["task"],
            unit=fields["unit"],
            sources=tuple(
                SourceReference(**_fields(s, {"digest", "media_type"}))
                for s in _array(fields["sources"], 8)
            ),
            context=_object(fields["context"]),
            outputs={alias: _blinded_from_dict(outputs[alias]) for alias in ALIASES},
            rubric=tuple(_array(fields["rubric"], len(CRITERIA))),
        )
    if packet.digest != fields["packet_digest"]:
        raise DocumentInvalid("a packet does not match its recorded packet digest")
    return packet


def _blinded_from_dict(data: object) -> BlindedOutput:
    fields = _fields(data, {"output", "abstained"})
    return BlindedOutput(output=_object(fields["output"]), abstained=fields["abstained"])  # type: ignore[arg-type]


def packets_to_dict(packets: Iterable[ReviewPacket]) -> dict[str, Any]:
    """The reviewer-visible document of a prepared review."""
    return {
        "schema": PACKETS_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "packets": [packet_to_dict(p) for p in packets],
    }


def packets_from_dict(data: object) -> tuple[ReviewPacket, ...]:
    document = _document(data, PACKETS_SCHEMA, {"packets"})
    return tuple(packet_from_dict(p) for p in _array(document["packets"], MAX_UNITS))


def mapping_to_dict(mapping: SealedMapping) -> dict[str, Any]:
    """The evaluator-only document of a prepared review; never send it to a reviewer."""
    return {
        "schema": MAPPING_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "pack_digest": mapping.pack_digest,
        "reviewer_digest": mapping.reviewer_digest,
        "identity_digest": mapping.identity_digest,
        "aliases": [dict(zip(ALIASES, row, strict=True)) for row in mapping.aliases],
        "key_check": mapping.key_check,
        "seal": mapping.seal,
    }


def mapping_from_dict(data: object) -> SealedMapping:
    document = _document(
        data,
        MAPPING_SCHEMA,
        {"pack_digest", "reviewer_digest", "identity_digest", "aliases", "key_check", "seal"},
    )
    with _malformed():
        rows = tuple(
            (row["A"], row["B"])
            for row in (_fields(r, set(ALIASES)) for r in _array(document["aliases"], MAX_UNITS))
        )
        mapping = SealedMapping(
            pack_digest=document["pack_digest"],
            reviewer_digest=document["reviewer_digest"],
            identity_digest=document["identity_digest"],
            aliases=rows,
            key_check=document["key_check"],
            seal=document["seal"],
        )
    return mapping


def prepared_review_from_dicts(packets: object, mapping: object) -> PreparedReview:
    """Rebuild a prepared review from its two separately stored documents."""
    return PreparedReview(packets=packets_from_dict(packets), mapping=mapping_from_dict(mapping))


# --- reviewer, completed review, adjudication ----------------------------------------------------


def _reviewer_from_dict(data: object) -> ReviewerQualification:
    fields = _fields(
        data,
        {
            "identity_digest",
            "task_scope",
            "qualification_evidence_digest",
            "conflict_screening_digest",
            "origin",
            "recused",
        },
    )
    with _malformed():
        fields["task_scope"] = frozenset(_array(fields["task_scope"], 6))
        reviewer = ReviewerQualification(**fields)
    return reviewer


def _rating_from_dict(data: object) -> PacketRating:
    with _malformed():
        rating = PacketRating(**_fields(data, {"packet_digest", "alias", *CRITERIA}))
    return rating


def _select_mapping(
    identity: object, mappings: Iterable[SealedMapping] | SealedMapping
) -> SealedMapping:
    """The one supplied mapping prepared for ``identity``."""
    if isinstance(mappings, SealedMapping):
        mappings = (mappings,)
    found = [
        m
        for m in materialise(mappings, _MAX_MAPPINGS, "too many mappings were supplied")
        if type(m) is SealedMapping and m.identity_digest == identity
    ]
    if not found:
        raise MissingMapping()
    if len(found) > 1:
        raise DuplicateMapping()
    return found[0]


def completed_review_to_dict(review: CompletedReview) -> dict[str, Any]:
    """A completed review without its mapping (store the mapping separately)."""
    return {
        "schema": COMPLETED_REVIEW_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "reviewer": review.reviewer.declaration(),
        "packets": [packet_to_dict(p) for p in review.prepared.packets],
        "ratings": [r.to_dict() for r in review.ratings],
    }


def completed_review_from_dict(
    data: object, mappings: Iterable[SealedMapping] | SealedMapping
) -> CompletedReview:
    """Rebuild a completed review, pairing it with the mapping of its reviewer identity."""
    document = _document(data, COMPLETED_REVIEW_SCHEMA, {"reviewer", "packets", "ratings"})
    reviewer = _reviewer_from_dict(document["reviewer"])
    packets = tuple(packet_from_dict(p) for p in _array(document["packets"], MAX_UNITS))
    ratings = tuple(_rating_from_dict(r) for r in _array(document["ratings"], 2 * MAX_UNITS))
    mapping = _select_mapping(reviewer.identity_digest, mappings)
    return CompletedReview(
        reviewer=reviewer,
        prepared=PreparedReview(packets=packets, mapping=mapping),
        ratings=ratings,
    )


def adjudication_to_dict(adjudication: Adjudication) -> dict[str, Any]:
    """An adjudication without its mapping (store the mapping separately)."""
    return {
        "schema": ADJUDICATION_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "adjudicator": adjudication.adjudicator.declaration(),
        "packet": packet_to_dict(adjudication.packet),
        "rating": adjudication.rating.to_dict(),
        "conflicting_ratings": sorted(adjudication.conflicting_ratings),
        "reason": adjudication.reason.value,
    }


def adjudication_from_dict(
    data: object, mappings: Iterable[SealedMapping] | SealedMapping
) -> Adjudication:
    """Rebuild an adjudication, pairing it with the mapping of its adjudicator identity."""
    document = _document(
        data,
        ADJUDICATION_SCHEMA,
        {"adjudicator", "packet", "rating", "conflicting_ratings", "reason"},
    )
    adjudicator = _reviewer_from_dict(document["adjudicator"])
    packet = packet_from_dict(document["packet"])
    rating = _rating_from_dict(document["rating"])
    mapping = _select_mapping(adjudicator.identity_digest, mappings)
    with _malformed():
        adjudication = Adjudication(
            adjudicator=adjudicator,
            packet=packet,
            mapping=mapping,
            rating=rating,
            conflicting_ratings=frozenset(_array(document["conflicting_ratings"], MAX_REVIEWS)),
            reason=document["reason"],
        )
    return adjudication


# --- structural helpers ---------------------------------------------------------------------------


def _document(data: object, schema: str, keys: set[str]) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise DocumentInvalid("a stored document must be a JSON object")
    if data.get("schema") != schema:
        raise DocumentInvalid("the stored document is not of the expected type")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise DocumentInvalid("the stored document has an unsupported schema_version")
    return _fields(data, keys | {"schema", "schema_version"})


def _fields(data: object, keys: set[str]) -> dict[str, Any]:
    if not isinstance(data, Mapping) or set(data) != keys:
        raise DocumentInvalid("a stored object does not have exactly its documented keys")
    return {key: data[key] for key in keys}


def _array(data: object, limit: int) -> tuple[Any, ...]:
    if type(data) is not list and type(data) is not tuple:
        raise DocumentInvalid("a stored field must be a JSON array")
    if len(data) > limit:
        raise DocumentInvalid("a stored array exceeds its limit")
    return tuple(data)


def _object(data: object) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise DocumentInvalid("a stored field must be a JSON object")
    return data


@contextlib.contextmanager
def _malformed() -> Iterator[None]:
    """Turn type errors raised while rebuilding value objects into :class:`DocumentInvalid`."""
    try:
        yield
    except TypeError:
        raise DocumentInvalid("a stored field has the wrong type") from None
