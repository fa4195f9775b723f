"""Blinded review packets, preparation of a review, and verification of review evidence.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

:func:`prepare_review` gives one eligible reviewer two separately handled
parts: reviewer-visible ``packets`` (context, source references, the two
blinded outputs under aliases ``A``/``B``, and the four binary criteria) and
the evaluator-only sealed ``mapping``.  A packet's identity binds the pack
digest, a keyed reviewer-specific nonce, the unit, its sources, context,
outputs and rubric, so :func:`packet_digest` changes whenever any of them does.

:func:`verify_review_evidence` is the one place where stored evidence is
checked against the pack *as it is now* before any alias is resolved.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import Signer, digest_json, is_digest, require_key
from pytest_openmed.errors import InvalidArgument

from ._checked import build_checked
from ._structure import array, document, envelope, fields, json_object, malformed, materialise
from .aliases import SealedMapping, assign_aliases, seal_mapping, verify_mapping
from .errors import (
    DocumentInvalid,
    InvalidInput,
    QualificationChanged,
    ReviewerMismatch,
    StaleEvidence,
)
from .jsonvalue import FrozenJson, freeze_object
from .limits import MAX_ASSETS_PER_CASE, MAX_JSON_BYTES, MAX_UNITS, spelled
from .pack import BlindedOutput, SourceReference, ValidationPack
from .qualification import ReviewerQualification, check_eligible
from .vocabulary import ALIASES, CRITERIA, ValidationTask

__all__ = [
    "NONCE_DOMAIN",
    "PACKETS_SCHEMA",
    "PreparedReview",
    "ReviewPacket",
    "packet_digest",
    "packets_from_dict",
    "packets_to_dict",
    "prepare_review",
    "verify_review_evidence",
]

NONCE_DOMAIN = "openmed.multimodal.packet-nonce.v1"
#: The type of the stored reviewer-visible packets document.
PACKETS_SCHEMA = "openmed.multimodal.review_packets"


@dataclass(frozen=True, slots=True)
class ReviewPacket:
    """What one reviewer sees of one source unit."""

    nonce: str
    pack_digest: str
    task: ValidationTask
    unit: int
    sources: tuple[SourceReference, ...]
    context: Mapping[str, Any]
    outputs: Mapping[str, BlindedOutput]
    rubric: tuple[str, ...] = CRITERIA
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not is_digest(self.nonce) or not is_digest(self.pack_digest):
            raise InvalidInput("packet nonce and pack digest must be 'sha256:' digests")
        try:
            object.__setattr__(self, "task", ValidationTask(self.task))
        except ValueError:
            raise InvalidInput("packet task must be a validation task") from None
        if type(self.unit) is not int or not 0 <= self.unit < MAX_UNITS:
            raise InvalidInput(f"packet unit must be an integer from 0 to {MAX_UNITS - 1}")
        sources = materialise(
            self.sources,
            MAX_ASSETS_PER_CASE,
            f"a packet has more than {MAX_ASSETS_PER_CASE} sources",
        )
        if not sources or not all(type(s) is SourceReference for s in sources):
            raise InvalidInput(f"a packet references one to {spelled(MAX_ASSETS_PER_CASE)} sources")
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "context", freeze_object(self.context, max_bytes=MAX_JSON_BYTES))
        outputs = self.outputs
        if not isinstance(outputs, Mapping) or sorted(outputs) != list(ALIASES):
            raise InvalidInput("a packet shows exactly the outputs of aliases A and B")
        if not all(type(outputs[alias]) is BlindedOutput for alias in ALIASES):
            raise InvalidInput("packet outputs must be BlindedOutput values")
        object.__setattr__(self, "outputs", MappingProxyType({a: outputs[a] for a in ALIASES}))
        if tuple(self.rubric) != CRITERIA:
            raise InvalidInput("a packet carries exactly the four rubric criteria")
        object.__setattr__(self, "rubric", CRITERIA)
        object.__setattr__(
            self,
            "digest",
            _identity_digest(self),
        )

    @property
    def frozen_context(self) -> FrozenJson:
        assert isinstance(self.context, FrozenJson)
        return self.context

    def to_dict(self) -> dict[str, Any]:
        """The stored form of one packet, as a reviewer receives it."""
        return {
            "packet_digest": self.digest,
            "nonce": self.nonce,
            "pack_digest": self.pack_digest,
            "task": self.task.value,
            "unit": self.unit,
            "sources": [
                {"digest": s.digest, "media_type": s.media_type.value} for s in self.sources
            ],
            "context": self.frozen_context.thaw(),
            "outputs": {alias: self.outputs[alias].to_dict() for alias in ALIASES},
            "rubric": list(self.rubric),
        }

    @classmethod
    def from_dict(cls, data: object) -> ReviewPacket:
        """Rebuild a stored packet; it must match its recorded packet digest."""
        stored = fields(
            data,
            {"packet_digest", "nonce", "pack_digest", "task", "unit", "sources", "context"}
            | {"outputs", "rubric"},
        )
        with malformed():
            outputs = fields(stored["outputs"], set(ALIASES))
            packet = cls(
                nonce=stored["nonce"],
                pack_digest=stored["pack_digest"],
                task=stored["task"],
                unit=stored["unit"],
                sources=tuple(
                    SourceReference(**fields(s, {"digest", "media_type"}))
                    for s in array(stored["sources"], MAX_ASSETS_PER_CASE)
                ),
                context=json_object(stored["context"]),
                outputs={alias: BlindedOutput.from_dict(outputs[alias]) for alias in ALIASES},
                rubric=tuple(array(stored["rubric"], len(CRITERIA))),
            )
        if packet.digest != stored["packet_digest"]:
            raise DocumentInvalid("a packet does not match its recorded packet digest")
        return packet

    def __repr__(self) -> str:
        return f"ReviewPacket(unit={self.unit})"


def packets_to_dict(packets: Iterable[ReviewPacket]) -> dict[str, Any]:
    """The reviewer-visible document of a prepared review (never holds the mapping)."""
    return {**envelope(PACKETS_SCHEMA), "packets": [p.to_dict() for p in packets]}


def packets_from_dict(data: object) -> tuple[ReviewPacket, ...]:
    """Read the document :func:`packets_to_dict` writes."""
    stored = document(data, PACKETS_SCHEMA, {"packets"})
    return tuple(ReviewPacket.from_dict(p) for p in array(stored["packets"], MAX_UNITS))


def packet_digest(packet: ReviewPacket) -> str:
    """The identity of a packet, as a :class:`PacketRating` must cite it."""
    if type(packet) is not ReviewPacket:
        raise InvalidArgument("packet must be a ReviewPacket")
    return packet.digest


def _identity_digest(packet: ReviewPacket) -> str:
    """The digest binding every field of ``packet`` (see :func:`packet_digest`)."""
    return digest_json(
        _identity_document(
            packet.nonce,
            packet.pack_digest,
            packet.task,
            packet.unit,
            [[s.digest, s.media_type] for s in packet.sources],
            packet.frozen_context.digest,
            [packet.outputs[alias].digest for alias in ALIASES],
        )
    )


def _identity_document(
    nonce: str, pack: str, task: str, unit: int, sources: Any, context: str, outputs: list[str]
) -> dict[str, Any]:
    """The document a packet's identity digest is the digest of."""
    return {
        "schema": "openmed.multimodal.packet.v1",
        "nonce": nonce,
        "pack": pack,
        "task": task,
        "unit": unit,
        "sources": sources,
        "context": context,
        "outputs": dict(zip(ALIASES, outputs, strict=True)),
        "rubric": list(CRITERIA),
    }


@dataclass(frozen=True, slots=True)
class PreparedReview:
    """The two separately handled parts of one reviewer's review."""

    packets: tuple[ReviewPacket, ...]
    mapping: SealedMapping

    def __post_init__(self) -> None:
        packets = materialise(
            self.packets, MAX_UNITS, f"a review holds more than {MAX_UNITS} packets"
        )
        if not all(type(p) is ReviewPacket for p in packets):
            raise InvalidInput("packets must be ReviewPacket values")
        if len({p.unit for p in packets}) != len(packets):
            raise InvalidInput("a review holds two packets for one unit")
        if type(self.mapping) is not SealedMapping:
            raise InvalidInput("mapping must be a SealedMapping")
        object.__setattr__(self, "packets", tuple(sorted(packets, key=lambda p: p.unit)))

    def packets_to_dict(self) -> dict[str, Any]:
        """The reviewer-visible document; read it with :func:`packets_from_dict`."""
        return packets_to_dict(self.packets)

    @classmethod
    def from_dicts(cls, packets: object, mapping: object) -> PreparedReview:
        """Rebuild a prepared review from its two separately stored documents."""
        return cls(packets=packets_from_dict(packets), mapping=SealedMapping.from_dict(mapping))

    def __repr__(self) -> str:
        return f"PreparedReview(packets={len(self.packets)})"


def prepare_review(
    pack: ValidationPack, reviewer: ReviewerQualification, *, key: bytes
) -> PreparedReview:
    """Prepare one eligible reviewer's blinded packets and the sealed mapping."""
    key = require_key(key)
    if type(pack) is not ValidationPack:
        raise InvalidArgument("pack must be a ValidationPack")
    check_eligible(reviewer, pack.task)
    first, second = pack.candidates
    aliases = assign_aliases(
        key,
        reviewer.identity_digest,
        [case.unit_digest for case in pack.cases],
        (first.digest, second.digest),
    )
    mapping = seal_mapping(key, pack.digest, reviewer.digest, reviewer.identity_digest, aliases)
    names = {c.digest: c.name for c in pack.candidates}
    signer = Signer(key)
    packets = []
    for unit, (case, row) in enumerate(zip(pack.cases, aliases, strict=True)):
        packets.append(
            _packet_of_checked_pack(
                nonce=_nonce(signer, pack.digest, reviewer.identity_digest, case.unit_digest),
                pack_digest=pack.digest,
                task=pack.task,
                unit=unit,
                sources=case.references,
                context=case.frozen_context,
                outputs=MappingProxyType(
                    {
                        alias: case.observation(names[digest]).blinded
                        for alias, digest in zip(ALIASES, row, strict=True)
                    }
                ),
            )
        )
    return PreparedReview(packets=tuple(packets), mapping=mapping)


def _packet_of_checked_pack(**values: Any) -> ReviewPacket:
    """A :class:`ReviewPacket` from the values of a pack that was checked when it was built.

    Only the identity digest is computed: the fields are the pack's own values,
    of the type and form the public constructor checks for.
    """
    packet = build_checked(ReviewPacket, rubric=CRITERIA, **values)
    object.__setattr__(packet, "digest", _identity_digest(packet))
    return packet


def _nonce(signer: Signer, pack_digest: str, identity_digest: str, unit_digest: str) -> str:
    """The keyed, reviewer-specific nonce of one unit's packet: the pack, the identity, the unit."""
    return signer.digest(NONCE_DOMAIN, [pack_digest, identity_digest, unit_digest])


def verify_review_evidence(
    pack: ValidationPack,
    reviewer: ReviewerQualification,
    mapping: SealedMapping,
    packets: Iterable[ReviewPacket],
    key: bytes,
) -> None:
    """Refuse evidence that does not verify, before any alias is resolved.

    In order: the reviewer must be eligible now; the mapping must belong to the
    reviewer's identity, be made with this key and be unaltered; it must have
    been prepared for this exact pack and for the reviewer's qualification as
    it is now; every packet must equal the packet rebuilt from the pack now.
    """
    check_eligible(reviewer, pack.task)
    if mapping.identity_digest != reviewer.identity_digest:
        raise ReviewerMismatch()
    verify_mapping(key, mapping)
    if mapping.pack_digest != pack.digest or len(mapping.aliases) != len(pack.cases):
        raise StaleEvidence()
    if mapping.reviewer_digest != reviewer.digest:
        raise QualificationChanged()
    names = {c.digest: c.name for c in pack.candidates}
    if any(set(row) != set(names) for row in mapping.aliases):
        raise StaleEvidence()
    signer = Signer(key)
    for packet in packets:
        if not _packet_matches(pack, signer, mapping, names, packet):
            raise StaleEvidence()


def _packet_matches(
    pack: ValidationPack,
    signer: Signer,
    mapping: SealedMapping,
    names: Mapping[str, str],
    packet: ReviewPacket,
) -> bool:
    """True when ``packet`` is exactly the packet ``prepare_review`` builds from the pack now.

    A packet's digest is computed from its fields when it is built, so equal
    fields mean an equal digest: the pack digest, task, unit, the source
    references, the context, the two blinded outputs under the mapping's
    aliases, and the keyed reviewer-specific nonce (the rubric is fixed).
    """
    if packet.unit >= len(pack.cases):
        return False
    case = pack.cases[packet.unit]
    first, second = mapping.aliases[packet.unit]
    return (
        packet.pack_digest == pack.digest
        and packet.task is pack.task
        and packet.sources == case.references
        and packet.frozen_context.digest == case.frozen_context.digest
        and packet.outputs["A"].digest == case.observation(names[first]).blinded.digest
        and packet.outputs["B"].digest == case.observation(names[second]).blinded.digest
        and hmac.compare_digest(
            _nonce(signer, pack.digest, mapping.identity_digest, case.unit_digest), packet.nonce
        )
    )
