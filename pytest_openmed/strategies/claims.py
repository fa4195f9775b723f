"""Claims and evidence whose four-state outcome is decided before they are built."""

from __future__ import annotations

import math
import struct
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from hypothesis import strategies as st

from pytest_openmed._canonical import digest_json, is_digest
from pytest_openmed.claims import STANDARD_CLASSES, STATES, normalise_class
from pytest_openmed.errors import InputRefused
from pytest_openmed.strategies._arguments import sizes, subset
from pytest_openmed.strategies._choices import Choices, seeded

RecordId = str | int

#: Largest ``max_claims``: Hypothesis draws every record, so bigger samples belong in benchmarks.
MAX_SAMPLE_CLAIMS = 500

#: Claim class labels drawn by default: the standard classes, two spelled
#: differently from their normal form, and two custom labels (digest tokens).
DEFAULT_CLAIM_CLASSES: tuple[str, ...] = (
    *sorted(STANDARD_CLASSES),
    "Medication",
    " LAB ",
    "Ward Round",
    "imaging-finding",
)

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
            raise InputRefused("expected states and classes must cover exactly the claim ids")
        if not set(states.values()) <= set(STATES):
            raise InputRefused("expected states must be drawn from the four claim states")
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


def _key_leaf(choices: Choices) -> Any:
    """Text (at most 8), an integer within one million, a bool, or a finite 32-bit float."""
    kind = choices.below(4)
    if kind == 0:
        return choices.text(8)
    if kind == 1:
        zigzag = choices.below(2_000_001)  # 0, 1, -1, 2, -2, ...
        return (zigzag + 1) // 2 if zigzag % 2 else -(zigzag // 2)
    if kind == 2:
        return choices.flag()
    (number,) = struct.unpack("<f", choices.raw(4))
    return number if math.isfinite(number) else 0.0


def _key_value(choices: Choices) -> Any:
    return None if choices.below(5) == 0 else _key_leaf(choices)


def _claim_key(choices: Choices) -> Any:
    """A JSON-like fact: a leaf, an object of at most 3 members or a list of at most 3 items.

    Never ``None`` at the top, which means "absent".
    """
    kind = choices.below(3)
    if kind == 0:
        return _key_leaf(choices)
    if kind == 1:
        return {choices.text(6): _key_value(choices) for _ in range(choices.below(4))}
    return [_key_value(choices) for _ in range(choices.below(4))]


def _reordered(key: Any) -> Any:
    """The same key with every object's member order reversed (same fingerprint)."""
    if isinstance(key, dict):
        return {name: _reordered(key[name]) for name in reversed(list(key))}
    if isinstance(key, list):
        return [_reordered(item) for item in key]
    return key


def _fingerprint(key: Any) -> str:
    return str(key) if is_digest(key) else digest_json(key)


def _other_id(choices: Choices, claim_id: RecordId) -> RecordId:
    """An id that differs from ``claim_id`` (by value, or by type: ``7`` is not ``"7"``)."""
    if type(claim_id) is int:
        return str(claim_id) if choices.flag() else claim_id + 1_000_000
    return f"{claim_id}-other"


class _ClaimBuilder:
    """Allocates opaque evidence ids and builds rows for one sample, in one pass."""

    def __init__(self, choices: Choices, id_style: str) -> None:
        self.choices = choices
        self.id_style = id_style
        self.rows: list[dict[str, Any]] = []

    def record_id(self, serial: int, prefix: str) -> RecordId:
        as_int = self.id_style == "int" or (self.id_style == "mixed" and self.choices.flag())
        return serial if as_int else f"{prefix}-{serial}"

    def links(self, claim_id: RecordId, key: Any) -> dict[str, Any]:
        """Links that match the claim: none, its key (reordered or fingerprinted), its id."""
        fields: dict[str, Any] = {}
        mode = self.choices.pick(_LINK_MODES)
        if mode in ("key", "key+id"):
            fields["claim_key"] = _reordered(key)
        if mode == "fingerprint":
            fields["claim_key"] = _fingerprint(key)
        if mode in ("id", "key+id"):
            fields["claim_id"] = claim_id
        return fields

    def row(self, approved: bool, relation: str, links: Mapping[str, Any]) -> RecordId:
        evidence_id = self.record_id(len(self.rows), "ev")
        shape = self.choices.pick(_ROW_SHAPES[approved, relation])
        record: dict[str, Any] = {"evidence_id": evidence_id, **shape, **links}
        self.rows.append(record)
        return evidence_id

    def citations(self, claim_id: RecordId, key: Any, state: str) -> list[RecordId]:
        """Cited evidence ids (rows created as needed) that give the claim ``state``."""
        choices = self.choices
        if state == "uncited":
            if choices.flag():  # a matching row that nobody cites changes nothing
                self.row(True, "supports", self.links(claim_id, key))
            return []
        if state in ("supported", "contradicted"):
            relation = "supports" if state == "supported" else "contradicts"
            count = choices.between(1, 3)
            cited = [self.row(True, relation, self.links(claim_id, key)) for _ in range(count)]
            if choices.flag():
                cited.append(cited[0])  # citing a row twice is harmless
            return cited
        return self._unresolved(claim_id, key)

    def _unresolved(self, claim_id: RecordId, key: Any) -> list[RecordId]:
        choices = self.choices
        defect = choices.pick(_UNRESOLVED_DEFECTS)
        relation = choices.pick(_RELATIONS[:2])
        good = [
            self.row(True, relation, self.links(claim_id, key)) for _ in range(choices.below(3))
        ]
        if defect == "missing":
            bad: list[RecordId] = [f"missing-{claim_id}"]
        elif defect == "unapproved":
            bad = [self.row(False, choices.pick(_RELATIONS), self.links(claim_id, key))]
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
                links["claim_id"] = _other_id(choices, claim_id)
            else:  # wrapping a key in a list always changes its fingerprint
                wrong = [key]
                links["claim_key"] = _fingerprint(wrong) if choices.flag() else wrong
            bad = [self.row(True, relation, links)]
        position = choices.below(len(good) + 1)  # the defect may sit anywhere among the citations
        return [*good[:position], *bad, *good[position:]]

    def distractor(self, claims: list[dict[str, Any]]) -> None:
        """A row no claim cites, possibly linked to some claim: it must change nothing."""
        choices = self.choices
        links: dict[str, Any] = {}
        if claims and choices.flag():
            target = claims[choices.below(len(claims))]
            links = self.links(target["claim_id"], target["claim_key"])
        self.row(choices.flag(), choices.pick(_RELATIONS), links)


@st.composite
def _claims_samples(
    draw: st.DrawFn,
    min_claims: int,
    max_claims: int,
    states: tuple[str, ...],
    labels: tuple[str, ...],
) -> ClaimsSample:
    count = draw(st.integers(min_value=min_claims, max_value=max_claims))
    choices = seeded(draw)
    id_style = choices.pick(("str", "int", "mixed"))
    builder = _ClaimBuilder(choices, id_style)
    claims: list[dict[str, Any]] = []
    expected_states: dict[RecordId, str] = {}
    expected_classes: dict[RecordId, str] = {}
    for index in range(count):
        claim_id = builder.record_id(index, "claim")
        label = choices.pick(labels)
        key = _claim_key(choices)
        state = choices.pick(states)
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
    for _ in range(choices.below(4)):
        builder.distractor(claims)
    return ClaimsSample(
        claims=tuple(choices.shuffled(claims)),
        evidence=tuple(choices.shuffled(builder.rows)),
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
    min_claims, max_claims = sizes(
        min_claims,
        max_claims,
        MAX_SAMPLE_CLAIMS,
        f"need 0 <= min_claims <= max_claims <= {MAX_SAMPLE_CLAIMS}",
    )
    chosen = subset(states, STATES, "states must be a non-empty subset of the four claim states")
    labels = DEFAULT_CLAIM_CLASSES if classes is None else tuple(dict.fromkeys(classes))
    if not labels:
        raise InputRefused("classes must name at least one claim class label")
    for label in labels:
        normalise_class(label)  # refuses (TypeError/ValueError) a label that cannot normalise
    return _claims_samples(min_claims, max_claims, chosen, labels)
