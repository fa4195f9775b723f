"""Hypothesis strategies for downstream property tests of the three engines.

PYTEST_DONT_REWRITE

Import this module only from test code that uses Hypothesis: it imports
``hypothesis`` at module level, and the plugin never imports it.  Every
strategy decides the outcome first (a claim's state, a proposal's decision)
and then builds inputs that must reach it, so each example carries the result
the engine has to produce: ground truth by construction, not a second copy of
the engine's logic.

* :func:`claims_and_evidence` → :class:`ClaimsSample` (claims, evidence and the
  expected state and class of every claim);
* :func:`proposed_tool_calls` → :class:`ProposalsSample` (one turn of planner
  proposals and the harness decision each must get);
* :func:`small_packs` → :class:`~pytest_openmed.multimodal.ValidationPack` over
  tiny real assets (PNG, TIFF, native DICOM, JSON waveform).

Generated values are wholly synthetic, so sample reprs show them: a falsifying
example must be readable.  Ids are opaque counters, never identifiers.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from hypothesis import strategies as st

from pytest_openmed._canonical import digest_json, is_digest
from pytest_openmed.carriers.waveform import WAVEFORM_FORMAT
from pytest_openmed.claims import STANDARD_CLASSES, STATES, normalise_class
from pytest_openmed.multimodal import (
    CandidateLineage,
    CaseSlice,
    MediaType,
    Observation,
    SafetyFailure,
    SourceAsset,
    ValidationCase,
    ValidationPack,
    ValidationTask,
)
from pytest_openmed.planner import (
    EXPORT_TOOL,
    READ_TOOL,
    RESTRICTED_TOOL,
    REVIEW_TOOL,
    ProposedToolCall,
)
from pytest_openmed.planner.calls import (
    ALLOWED,
    DECISIONS,
    OUT_OF_GRANT,
    REVIEW_REQUIRED,
    SCHEMA_INVALID,
)
from pytest_openmed.planner.catalog import (
    GRANTED_ACTION,
    GRANTED_POLICY,
    GRANTED_RESOURCE,
    OPERATIONS,
)

__all__ = [
    "DEFAULT_CLAIM_CLASSES",
    "MAX_SAMPLE_CASES",
    "MAX_SAMPLE_CLAIMS",
    "MAX_SAMPLE_PROPOSALS",
    "PACK_MEDIA",
    "ClaimsSample",
    "ProposalsSample",
    "claims_and_evidence",
    "proposed_tool_calls",
    "small_packs",
]

T = TypeVar("T")
RecordId = str | int

#: Largest ``max_claims``: Hypothesis draws every record, so bigger samples belong in benchmarks.
MAX_SAMPLE_CLAIMS = 500
#: Largest ``max_size`` of a proposal turn: the harness's per-turn limit.
MAX_SAMPLE_PROPOSALS = 16
#: Largest ``max_cases`` of a generated pack ("small").
MAX_SAMPLE_CASES = 16

#: Claim class labels drawn by default: the standard classes, two spelled
#: differently from their normal form, and two custom labels (digest tokens).
DEFAULT_CLAIM_CLASSES: tuple[str, ...] = (
    *sorted(STANDARD_CLASSES),
    "Medication",
    " LAB ",
    "Ward Round",
    "imaging-finding",
)

#: The carrier :func:`small_packs` uses for each task's source assets.
PACK_MEDIA: Mapping[ValidationTask, MediaType] = MappingProxyType(
    {
        ValidationTask.ECG_QUALITY: MediaType.WAVEFORM_JSON,
        ValidationTask.ECG_INTERVALS: MediaType.WAVEFORM_JSON,
        ValidationTask.FORMS: MediaType.PNG,
        ValidationTask.DICOM_FRAMES: MediaType.DICOM,
        ValidationTask.BURNED_IN: MediaType.PNG,
        ValidationTask.WSI_TILES: MediaType.TIFF,
    }
)


def _subset(values: Iterable[T] | None, universe: tuple[T, ...], message: str) -> tuple[T, ...]:
    """A non-empty, duplicate-free subset of ``universe`` in universe order."""
    if values is None:
        return universe
    if isinstance(values, str | bytes):
        raise TypeError(message)
    chosen = set(values)
    if not chosen or not chosen <= set(universe):
        raise ValueError(message)
    return tuple(value for value in universe if value in chosen)


def _sizes(low: object, high: object, cap: int, message: str) -> tuple[int, int]:
    if type(low) is not int or type(high) is not int or not 0 <= low <= high <= cap:
        raise ValueError(message)
    return low, high


# -- claims and evidence ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClaimsSample:
    """Claims and evidence records with the state and class each claim must get.

    ``claims`` and ``evidence`` are plain ``dict`` records, fresh per example
    (JSON-serialisable, ready for ``score_summary_claims`` or a gate file);
    ``expected_states`` maps each ``claim_id`` to one of ``STATES`` and
    ``expected_classes`` to its normalised class.
    """

    claims: tuple[dict[str, Any], ...]
    evidence: tuple[dict[str, Any], ...]
    expected_states: Mapping[RecordId, str]
    expected_classes: Mapping[RecordId, str]

    def __post_init__(self) -> None:
        states = MappingProxyType(dict(self.expected_states))
        classes = MappingProxyType(dict(self.expected_classes))
        ids = [claim["claim_id"] for claim in self.claims]
        if len(set(ids)) != len(ids) or set(ids) != set(states) or set(ids) != set(classes):
            raise ValueError("expected states and classes must cover exactly the claim ids")
        if not set(states.values()) <= set(STATES):
            raise ValueError("expected states must be drawn from the four claim states")
        object.__setattr__(self, "expected_states", states)
        object.__setattr__(self, "expected_classes", classes)

    @property
    def class_names(self) -> tuple[str, ...]:
        """The normalised classes present, sorted (the keys of ``by_claim_class``)."""
        return tuple(sorted(set(self.expected_classes.values())))

    def expected_counts(self, claim_class: str | None = None) -> Mapping[str, int]:
        """Expected count of each of the four states, overall or in one normalised class."""
        tally = Counter(
            state
            for claim_id, state in self.expected_states.items()
            if claim_class is None or self.expected_classes[claim_id] == claim_class
        )
        return MappingProxyType({state: tally.get(state, 0) for state in STATES})


_RELATIONS = ("supports", "contradicts", "unresolved")
_SUPPORT_FLAGS = ("supports", "supported")
_CONTRADICT_FLAGS = ("contradicts", "contradicted")


def _relation_encodings(relation: str) -> tuple[dict[str, bool | str], ...]:
    """Every way the record contract lets a row state ``relation``: a label, flags, or both."""
    labels = {
        "supports": ("supports", "supported"),
        "contradicts": ("contradicts", "contradicted"),
        "unresolved": ("unresolved",),
    }[relation]
    flags: list[dict[str, bool | str]] = []
    if relation == "unresolved":  # neither supports nor contradicts
        flags = [{yes: False, no: False} for yes in _SUPPORT_FLAGS for no in _CONTRADICT_FLAGS]
    else:
        own, other = (
            (_SUPPORT_FLAGS, _CONTRADICT_FLAGS)
            if relation == "supports"
            else (_CONTRADICT_FLAGS, _SUPPORT_FLAGS)
        )
        for flag in own:
            flags.append({flag: True})
            flags.extend({flag: True, denied: False} for denied in other)
    by_label: list[dict[str, bool | str]] = [{"relation": label} for label in labels]
    return (
        *by_label,
        *flags,
        *({**label, **flag} for label in by_label for flag in flags),
    )


_APPROVAL_FIELDS = (("approved",), ("is_approved",), ("approved", "is_approved"))
#: Per (approved, relation): every agreeing encoding of approval and relation, with or
#: without an unknown field (ignored by contract).  One draw picks a row's whole shape.
_ROW_SHAPES: Mapping[tuple[bool, str], tuple[dict[str, Any], ...]] = MappingProxyType(
    {
        (approved, relation): tuple(
            {**dict.fromkeys(names, approved), **encoding, **extra}
            for names in _APPROVAL_FIELDS
            for encoding in _relation_encodings(relation)
            for extra in ({}, {"source": "synthetic"})
        )
        for approved in (True, False)
        for relation in _RELATIONS
    }
)
_UNRESOLVED_DEFECTS = (
    "missing",
    "unapproved",
    "unresolved_relation",
    "claim_id_mismatch",
    "claim_key_mismatch",
    "mixed",
)
_LINK_MODES = ("none", "key", "fingerprint", "id", "key+id")

# Strategies built once: building one per draw would cost more than the draw.
_booleans = st.booleans()
_row_shapes = {shape: st.sampled_from(shapes) for shape, shapes in _ROW_SHAPES.items()}
_link_modes = st.sampled_from(_LINK_MODES)
_defects = st.sampled_from(_UNRESOLVED_DEFECTS)
_relations = st.sampled_from(_RELATIONS)
_verdict_relations = st.sampled_from(_RELATIONS[:2])
_id_styles = st.sampled_from(("str", "int", "mixed"))
_up_to = tuple(st.integers(min_value=0, max_value=high) for high in range(4))  # 0..n
_one_to_three = st.integers(min_value=1, max_value=3)

_key_leaves = st.one_of(
    st.text(max_size=8),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
_key_values = st.one_of(st.none(), _key_leaves)
#: Claim keys: JSON-like facts (never ``None`` at the top, which means "absent").
_claim_keys = st.one_of(
    _key_leaves,
    st.dictionaries(st.text(max_size=6), _key_values, max_size=3),
    st.lists(_key_values, max_size=3),
)


def _reordered(key: Any) -> Any:
    """The same key with every object's member order reversed (same fingerprint)."""
    if isinstance(key, dict):
        return {name: _reordered(key[name]) for name in reversed(list(key))}
    if isinstance(key, list):
        return [_reordered(item) for item in key]
    return key


def _fingerprint(key: Any) -> str:
    return str(key) if is_digest(key) else digest_json(key)


def _other_id(draw: st.DrawFn, claim_id: RecordId) -> RecordId:
    """An id that differs from ``claim_id`` (by value, or by type: ``7`` is not ``"7"``)."""
    if type(claim_id) is int:
        return str(claim_id) if draw(_booleans) else claim_id + 1_000_000
    return f"{claim_id}-other"


class _ClaimBuilder:
    """Allocates opaque evidence ids and builds rows for one sample."""

    def __init__(self, draw: st.DrawFn, id_style: str) -> None:
        self.draw = draw
        self.id_style = id_style
        self.rows: list[dict[str, Any]] = []

    def _evidence_id(self) -> RecordId:
        serial = len(self.rows)
        as_int = self.id_style == "int" or (self.id_style == "mixed" and self.draw(_booleans))
        return serial if as_int else f"ev-{serial}"

    def links(self, claim_id: RecordId, key: Any) -> dict[str, Any]:
        """Links that match the claim: none, its key (reordered or fingerprinted), its id."""
        draw = self.draw
        fields: dict[str, Any] = {}
        mode = draw(_link_modes)
        if mode in ("key", "key+id"):
            fields["claim_key"] = _reordered(key)
        if mode == "fingerprint":
            fields["claim_key"] = _fingerprint(key)
        if mode in ("id", "key+id"):
            fields["claim_id"] = claim_id
        return fields

    def row(self, approved: bool, relation: str, links: Mapping[str, Any]) -> RecordId:
        evidence_id = self._evidence_id()
        shape = self.draw(_row_shapes[approved, relation])
        record: dict[str, Any] = {"evidence_id": evidence_id, **shape, **links}
        self.rows.append(record)
        return evidence_id

    def citations(self, claim_id: RecordId, key: Any, state: str) -> list[RecordId]:
        """Cited evidence ids (rows created as needed) that give the claim ``state``."""
        draw = self.draw
        if state == "uncited":
            if draw(_booleans):  # a matching row that nobody cites changes nothing
                self.row(True, "supports", self.links(claim_id, key))
            return []
        if state in ("supported", "contradicted"):
            relation = "supports" if state == "supported" else "contradicts"
            count = draw(_one_to_three)
            cited = [self.row(True, relation, self.links(claim_id, key)) for _ in range(count)]
            if draw(_booleans):
                cited.append(cited[0])  # citing a row twice is harmless
            return cited
        return self._unresolved(claim_id, key)

    def _unresolved(self, claim_id: RecordId, key: Any) -> list[RecordId]:
        draw = self.draw
        defect = draw(_defects)
        relation = draw(_verdict_relations)
        good = [self.row(True, relation, self.links(claim_id, key)) for _ in range(draw(_up_to[2]))]
        if defect == "missing":
            bad: list[RecordId] = [f"missing-{claim_id}"]
        elif defect == "unapproved":
            any_relation = draw(_relations)
            bad = [self.row(False, any_relation, self.links(claim_id, key))]
        elif defect == "unresolved_relation":
            bad = [self.row(True, "unresolved", self.links(claim_id, key))]
        elif defect == "mixed":
            other = "contradicts" if relation == "supports" else "supports"
            bad = [self.row(True, other, self.links(claim_id, key))]
            if not good:
                bad.append(self.row(True, relation, self.links(claim_id, key)))
        else:
            links = self.links(claim_id, key)
            if defect == "claim_id_mismatch":
                links["claim_id"] = _other_id(draw, claim_id)
            else:  # wrapping a key in a list always changes its fingerprint
                wrong = [key]
                links["claim_key"] = _fingerprint(wrong) if draw(_booleans) else wrong
            bad = [self.row(True, relation, links)]
        position = draw(_up_to[len(good)])  # the defect may sit anywhere among the citations
        return [*good[:position], *bad, *good[position:]]

    def distractor(self, claims: list[dict[str, Any]]) -> None:
        """A row no claim cites, possibly linked to some claim: it must change nothing."""
        draw = self.draw
        links: dict[str, Any] = {}
        linked = draw(_booleans)
        if claims and linked:
            target = claims[draw(st.integers(min_value=0, max_value=len(claims) - 1))]
            links = self.links(target["claim_id"], target["claim_key"])
        self.row(draw(_booleans), draw(_relations), links)


@st.composite
def _claims_samples(
    draw: st.DrawFn,
    min_claims: int,
    max_claims: int,
    states: tuple[str, ...],
    labels: tuple[str, ...],
) -> ClaimsSample:
    id_style = draw(_id_styles)
    builder = _ClaimBuilder(draw, id_style)
    label_strategy, state_strategy = st.sampled_from(labels), st.sampled_from(states)
    count = draw(st.integers(min_value=min_claims, max_value=max_claims))
    claims: list[dict[str, Any]] = []
    expected_states: dict[RecordId, str] = {}
    expected_classes: dict[RecordId, str] = {}
    for index in range(count):
        as_int = id_style == "int" or (id_style == "mixed" and draw(_booleans))
        claim_id: RecordId = index if as_int else f"claim-{index}"
        label = draw(label_strategy)
        key = draw(_claim_keys)
        state = draw(state_strategy)
        claims.append(
            {
                "claim_id": claim_id,
                "claim_class": label,
                "claim_key": key,
                "evidence_ids": builder.citations(claim_id, key, state),
            }
        )
        expected_states[claim_id] = state
        expected_classes[claim_id] = normalise_class(label)
    for _ in range(draw(_up_to[3])):
        builder.distractor(claims)
    return ClaimsSample(
        claims=tuple(draw(st.permutations(claims))),
        evidence=tuple(draw(st.permutations(builder.rows))),
        expected_states=expected_states,
        expected_classes=expected_classes,
    )


def claims_and_evidence(
    *,
    min_claims: int = 0,
    max_claims: int = 50,
    states: Iterable[str] | None = None,
    classes: Iterable[str] | None = None,
) -> st.SearchStrategy[ClaimsSample]:
    """Valid claims and evidence whose four-state mix and classes you control.

    ``states`` is a non-empty subset of ``STATES`` to draw each claim's state
    from (default: all four); ``classes`` are raw class labels to draw from
    (default :data:`DEFAULT_CLAIM_CLASSES`), each of which must normalise.
    Every way the contract allows to express a relation, an approval or a link
    is exercised, as is every way a claim can end up ``unresolved``.
    """
    min_claims, max_claims = _sizes(
        min_claims, max_claims, MAX_SAMPLE_CLAIMS, "need 0 <= min_claims <= max_claims <= 500"
    )
    chosen = _subset(states, STATES, "states must be a non-empty subset of the four claim states")
    labels = DEFAULT_CLAIM_CLASSES if classes is None else tuple(dict.fromkeys(classes))
    if not labels:
        raise ValueError("classes must name at least one claim class label")
    for label in labels:
        normalise_class(label)  # refuses (TypeError/ValueError) a label that cannot normalise
    return _claims_samples(min_claims, max_claims, chosen, labels)


# -- planner proposals -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProposalsSample:
    """One turn of planner output and what the harness must decide for each proposal.

    ``calls`` are ``ProposedToolCall`` values (and, when asked for, malformed
    objects); ``expected_decisions`` hold one of ``allowed``, ``schema_invalid``,
    ``out_of_grant``, ``review_required`` per call, whatever their order, and
    ``expected_schema_valid`` whether each call passes its tool's schema.
    """

    calls: tuple[object, ...]
    expected_decisions: tuple[str, ...]
    expected_schema_valid: tuple[bool, ...]

    def __post_init__(self) -> None:
        if not len(self.calls) == len(self.expected_decisions) == len(self.expected_schema_valid):
            raise ValueError("one expected decision and schema outcome per call")
        if not set(self.expected_decisions) <= set(DECISIONS):
            raise ValueError("expected decisions must come from the closed decision set")


class _LookAlikeCall(ProposedToolCall):
    """A subclass is not a ``ProposedToolCall`` to the harness: malformed."""

    __slots__ = ()


_Untyped: Any = ProposedToolCall  # builds deliberately ill-typed proposals
_GRANTED_SCOPE = {
    "resource": GRANTED_RESOURCE,
    "action": GRANTED_ACTION,
    "policy_profile": GRANTED_POLICY,
}
_tokens = st.one_of(st.none(), st.text(max_size=40))
_valid_arguments = st.sampled_from(OPERATIONS).map(lambda operation: {"operation": operation})
_short_text = st.text(max_size=24)
_invalid_arguments: st.SearchStrategy[dict[str, str]] = st.one_of(
    st.just({}),
    _short_text.filter(lambda text: text not in OPERATIONS).map(lambda text: {"operation": text}),
    st.tuples(
        st.sampled_from(OPERATIONS), _short_text.filter(lambda name: name != "operation")
    ).map(lambda pair: {"operation": pair[0], pair[1] or "extra": "x"}),
    _short_text.filter(lambda name: name != "operation").map(lambda name: {name: "summarize"}),
)


@st.composite
def _scope(draw: st.DrawFn, *, wrong: bool) -> dict[str, str]:
    """The granted scope (explicit or by default), or one field of it changed."""
    scope = dict(_GRANTED_SCOPE) if draw(st.booleans()) else {}
    if wrong:
        name = draw(st.sampled_from(tuple(_GRANTED_SCOPE)))
        granted = _GRANTED_SCOPE[name]
        scope[name] = draw(st.text(max_size=32).filter(lambda text: text != granted))
    return scope


@st.composite
def _call(draw: st.DrawFn, decision: str) -> tuple[object, bool]:
    """A well-formed proposal that must get ``decision``, and whether its schema passes."""
    token = draw(_tokens)
    if decision == ALLOWED:
        arguments = draw(_valid_arguments)
        return ProposedToolCall(
            READ_TOOL, arguments, approval_token=token, **draw(_scope(wrong=False))
        ), True
    if decision == REVIEW_REQUIRED:
        arguments = draw(_valid_arguments)
        call = ProposedToolCall(
            REVIEW_TOOL, arguments, approval_token=token, **draw(_scope(wrong=False))
        )
        return call, True
    if decision == SCHEMA_INVALID:
        tool = draw(st.sampled_from((READ_TOOL, REVIEW_TOOL)))
        arguments = draw(_invalid_arguments)
        return ProposedToolCall(
            tool, arguments, approval_token=token, **draw(_scope(wrong=False))
        ), False
    if decision != OUT_OF_GRANT:
        raise ValueError("unknown harness decision")
    # out of grant: a never-granted tool, a projection failure, an unknown tool or a wrong scope
    variant = draw(st.sampled_from(("export", "restricted", "unknown", "scope")))
    valid = draw(st.booleans())
    arguments = draw(_valid_arguments if valid else _invalid_arguments)
    if variant == "unknown":
        tool = draw(
            st.one_of(
                st.sampled_from((READ_TOOL, REVIEW_TOOL, EXPORT_TOOL)).map(lambda t: f"{t}@1.0.0"),
                st.text(max_size=24).filter(
                    lambda t: t not in (READ_TOOL, REVIEW_TOOL, EXPORT_TOOL, RESTRICTED_TOOL)
                ),
            )
        )
        valid = False
    elif variant == "scope":
        tool = draw(st.sampled_from((READ_TOOL, REVIEW_TOOL, RESTRICTED_TOOL)))
    else:
        tool = EXPORT_TOOL if variant == "export" else RESTRICTED_TOOL
    scope = draw(_scope(wrong=variant == "scope"))
    return ProposedToolCall(tool, arguments, approval_token=token, **scope), valid


#: Objects that are not well-formed proposals; each draw builds a fresh one.
_MALFORMED: tuple[Callable[[], object], ...] = (
    lambda: None,
    lambda: 0,
    lambda: READ_TOOL,
    lambda: {"tool": READ_TOOL, "arguments": {"operation": "summarize"}},
    lambda: _LookAlikeCall(READ_TOOL, {"operation": "summarize"}),
    lambda: _Untyped(1, {"operation": "summarize"}),
    lambda: _Untyped(None, {"operation": "summarize"}),
    lambda: _Untyped(READ_TOOL.encode("ascii"), {"operation": "summarize"}),
    lambda: _Untyped(READ_TOOL, [("operation", "summarize")]),
    lambda: _Untyped(READ_TOOL, MappingProxyType({"operation": "summarize"})),
    lambda: _Untyped(READ_TOOL, {f"k{i}": "summarize" for i in range(5)}),
    lambda: _Untyped(READ_TOOL, {"operation": 1}),
    lambda: _Untyped(READ_TOOL, {1: "summarize"}),
    lambda: _Untyped(READ_TOOL, {"operation": "s" * 4097}),
    lambda: _Untyped(READ_TOOL, {"operation": "summarize"}, resource="x" * 513),
    lambda: _Untyped(READ_TOOL, {"operation": "summarize"}, action="x" * 513),
    lambda: _Untyped(READ_TOOL, {"operation": "summarize"}, policy_profile=None),
    lambda: _Untyped("x" * 513, {"operation": "summarize"}),
)
_malformed_calls = st.sampled_from(_MALFORMED).map(lambda build: build())


@st.composite
def _proposal_samples(
    draw: st.DrawFn, min_size: int, max_size: int, decisions: tuple[str, ...], malformed: bool
) -> ProposalsSample:
    kinds = (*decisions, "malformed") if malformed else decisions
    calls: list[object] = []
    expected: list[str] = []
    valid: list[bool] = []
    for _ in range(draw(st.integers(min_value=min_size, max_value=max_size))):
        kind = draw(st.sampled_from(kinds))
        if kind == "malformed":
            calls.append(draw(_malformed_calls))
            expected.append(SCHEMA_INVALID)
            valid.append(False)
        else:
            call, schema_valid = draw(_call(kind))
            calls.append(call)
            expected.append(kind)
            valid.append(schema_valid)
    return ProposalsSample(tuple(calls), tuple(expected), tuple(valid))


def proposed_tool_calls(
    *,
    min_size: int = 0,
    max_size: int = 4,
    decisions: Iterable[str] | None = None,
    malformed: bool = False,
) -> st.SearchStrategy[ProposalsSample]:
    """One turn of proposals (0-16) with the harness decision each must receive.

    ``decisions`` is a non-empty subset of ``allowed``, ``schema_invalid``,
    ``out_of_grant``, ``review_required`` (default: all four).  With
    ``malformed=True`` the turn may also hold objects that are not well formed
    (wrong types, oversized fields, look-alikes), decided ``schema_invalid``;
    that needs ``schema_invalid`` among the decisions.  Decisions do not depend
    on order or on the scenario, so a turn can be checked anywhere.
    """
    min_size, max_size = _sizes(
        min_size, max_size, MAX_SAMPLE_PROPOSALS, "need 0 <= min_size <= max_size <= 16"
    )
    chosen = _subset(decisions, DECISIONS, "decisions must be a non-empty subset of the four")
    if type(malformed) is not bool:
        raise TypeError("malformed must be a bool")
    if malformed and SCHEMA_INVALID not in chosen:
        raise ValueError("malformed proposals are decided schema_invalid; include that decision")
    return _proposal_samples(min_size, max_size, chosen, malformed)


# -- multimodal packs ----------------------------------------------------------------------------

_SIDE = 4  # tiny images: 4 x 4 pixels


def _png(pixels: bytes) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.frombytes("L", (_SIDE, _SIDE), pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def _tiff(pixels: bytes) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.frombytes("L", (_SIDE, _SIDE), pixels).save(buffer, format="TIFF")
    return buffer.getvalue()


def _dicom(pixels: bytes, serial: int) -> bytes:
    """A single-frame native DICOM (explicit VR little endian) with file meta."""
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import UID, ExplicitVRLittleEndian, SecondaryCaptureImageStorage

    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = SecondaryCaptureImageStorage
    meta.MediaStorageSOPInstanceUID = UID(f"1.2.826.0.1.3680043.10.2.{serial + 1}")
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    dataset = Dataset()
    dataset.file_meta = meta
    dataset.SOPClassUID = meta.MediaStorageSOPClassUID
    dataset.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    dataset.Modality = "OT"
    dataset.Rows = _SIDE
    dataset.Columns = _SIDE
    dataset.SamplesPerPixel = 1
    dataset.PhotometricInterpretation = "MONOCHROME2"
    dataset.BitsAllocated = 8
    dataset.BitsStored = 8
    dataset.HighBit = 7
    dataset.PixelRepresentation = 0
    dataset.PixelData = pixels
    buffer = io.BytesIO()
    dataset.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


def _waveform(samples: list[list[int]], serial: int) -> bytes:
    """An ``openmed.waveform.v1`` document; the first sample of lead I is the serial."""
    names = ("I", "II", "V1")
    leads = [{"name": names[index], "samples": lead} for index, lead in enumerate(samples)]
    leads[0]["samples"] = [serial, *samples[0][1:]]
    document = {
        "format": WAVEFORM_FORMAT,
        "sampling_rate_hz": 500,
        "units": "mV",
        "leads": leads,
    }
    return json.dumps(document).encode("utf-8")


@st.composite
def _asset(draw: st.DrawFn, media: MediaType, serial: int) -> SourceAsset:
    """One tiny real asset; ``serial`` is stamped in so no two assets of a pack match."""
    if media is MediaType.WAVEFORM_JSON:
        width = draw(st.integers(min_value=2, max_value=12))
        lead = st.lists(
            st.integers(min_value=-2000, max_value=2000), min_size=width, max_size=width
        )
        return SourceAsset(_waveform(draw(st.lists(lead, min_size=1, max_size=3)), serial))
    pixels = bytearray(draw(st.binary(min_size=_SIDE * _SIDE, max_size=_SIDE * _SIDE)))
    pixels[0], pixels[1] = serial % 256, serial // 256
    if media is MediaType.PNG:
        return SourceAsset(_png(bytes(pixels)))
    if media is MediaType.TIFF:
        return SourceAsset(_tiff(bytes(pixels)))
    return SourceAsset(_dicom(bytes(pixels), serial))


_outputs = st.fixed_dictionaries(
    {
        "result": st.sampled_from(("present", "absent", "indeterminate")),
        "score": st.integers(min_value=0, max_value=100),
        "regions": st.lists(st.integers(min_value=0, max_value=_SIDE * _SIDE - 1), max_size=4),
    }
)
_candidate_names = st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True)


def _lineage(name: str, salt: int) -> CandidateLineage:
    def digest(part: str) -> str:
        return digest_json(["openmed.strategies.lineage", name, part, salt])

    return CandidateLineage(
        name=name,
        model_digest=digest("model"),
        preprocessing_digest=digest("preprocessing"),
        runtime_digest=digest("runtime"),
        hardware_digest=digest("hardware"),
        harness_digest=digest("harness"),
        license_snapshot_digest=digest("license"),
    )


@st.composite
def _packs(
    draw: st.DrawFn,
    tasks: tuple[ValidationTask, ...],
    min_cases: int,
    max_cases: int,
    max_assets: int,
    abstentions: bool,
    safety_failures: bool,
) -> ValidationPack:
    task = draw(st.sampled_from(tasks))
    salt = draw(st.integers(min_value=0, max_value=2**32))
    names = draw(st.lists(_candidate_names, min_size=2, max_size=2, unique=True))
    failures = (
        st.frozensets(st.sampled_from(tuple(SafetyFailure)))
        if safety_failures
        else st.just(frozenset())
    )
    cases = []
    for unit in range(draw(st.integers(min_value=min_cases, max_value=max_cases))):
        assets = tuple(
            draw(_asset(PACK_MEDIA[task], unit * max_assets + index))
            for index in range(draw(st.integers(min_value=1, max_value=max_assets)))
        )
        observations = tuple(
            Observation(
                candidate=name,
                output=draw(_outputs),
                abstained=abstentions and draw(st.booleans()),
                safety_failures=draw(failures),
            )
            for name in names
        )
        cases.append(
            ValidationCase(
                slice=draw(st.sampled_from(tuple(CaseSlice))),
                assets=assets,
                observations=observations,
                context={"instructions": "Rate both outputs against the rubric.", "unit": unit},
            )
        )

    def declaration(part: str) -> str:
        return digest_json(["openmed.strategies.pack", part, salt])

    return ValidationPack(
        task=task,
        candidates=(_lineage(names[0], salt), _lineage(names[1], salt)),
        cases=tuple(cases),
        intended_use=f"Development exercise of {task.value}; non-diagnostic.",
        reviewer_requirements_digest=declaration("reviewer-requirements"),
        sampling_manifest_digest=declaration("sampling-manifest"),
        dataset_license_digest=declaration("dataset-license"),
    )


def small_packs(
    *,
    tasks: Iterable[ValidationTask | str] | None = None,
    min_cases: int = 1,
    max_cases: int = 3,
    max_assets: int = 2,
    abstentions: bool = True,
    safety_failures: bool = True,
) -> st.SearchStrategy[ValidationPack]:
    """Small valid packs over tiny real assets, in the carrier of each task (:data:`PACK_MEDIA`).

    Two candidates with distinct lineages, ``min_cases``-``max_cases`` source
    units (at most 16) of 1-``max_assets`` assets, every slice possible, and
    observations that may abstain (``abstentions``) or record privacy /
    provenance failures (``safety_failures``).  DICOM needs pydicom and the
    images need Pillow (the ``imaging`` extra).
    """
    min_cases, max_cases = _sizes(
        min_cases, max_cases, MAX_SAMPLE_CASES, "need 0 <= min_cases <= max_cases <= 16"
    )
    if min_cases < 1:
        raise ValueError("a pack needs at least one case: min_cases >= 1")
    if type(max_assets) is not int or not 1 <= max_assets <= 8:
        raise ValueError("max_assets must be from 1 to 8")
    if type(abstentions) is not bool or type(safety_failures) is not bool:
        raise TypeError("abstentions and safety_failures must be bools")
    try:
        wanted = None if tasks is None else [ValidationTask(task) for task in tasks]
    except ValueError:
        raise ValueError("tasks must be validation tasks") from None
    chosen = _subset(wanted, tuple(ValidationTask), "tasks must be a non-empty set of tasks")
    return _packs(chosen, min_cases, max_cases, max_assets, abstentions, safety_failures)
