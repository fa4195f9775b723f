"""Claim and evidence records: checked, normalised, never echoed.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

Callers hand over mappings or typed objects (dataclasses, named tuples, model
instances) that carry identifiers and claim keys.  This module reads each
record once, refuses anything outside the contract with a fixed message from
:mod:`pytest_openmed.claims.messages`, and keeps only what scoring needs: ids
for lookups, normalised claim classes, relations, and claim keys for linking.

The per-record work is deliberately lean (a 100,000-claim evaluation must
finish in well under a second): claim keys are walked only when they are
containers, and then fingerprinted at once (caller code that runs later must
not change what was checked); a scalar key is hashed only when an evidence
row links by key and a plain comparison cannot decide.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import digest_json, is_digest
from pytest_openmed._validate import bounded
from pytest_openmed.claims import messages
from pytest_openmed.claims.limits import (
    MAX_CITATIONS,
    MAX_CLAIMS,
    MAX_EVIDENCE,
    MAX_KEY_DEPTH,
    MAX_KEY_NODES,
)
from pytest_openmed.contract import locate_input_error
from pytest_openmed.errors import InputRefused, InvalidArgument, OpenmedError

__all__ = [
    "MAX_CITATIONS",
    "MAX_CLAIMS",
    "MAX_EVIDENCE",
    "MAX_KEY_DEPTH",
    "MAX_KEY_NODES",
    "RELATIONS",
    "STANDARD_CLASSES",
    "ClaimFields",
    "EvidenceIndex",
    "EvidenceRow",
    "RecordId",
    "check_claim_key",
    "claim_fields",
    "collect",
    "evidence_fields",
    "key_fingerprint",
    "keys_match",
    "normalise_class",
    "read_evidence",
]


#: A claim or evidence identifier: a non-empty ``str`` or a 64-bit ``int`` (never a bool).
RecordId = str | int

# Integers in ids and claim keys must fit in 64 signed bits: larger ones are not
# portable JSON, and Python refuses to print very long ones.
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1

#: Claim classes that stay readable in reports; any other label becomes a digest token.
STANDARD_CLASSES = frozenset(
    {
        "allergy",
        "diagnosis",
        "finding",
        "history",
        "lab",
        "medication",
        "other",
        "procedure",
        "symptom",
        "treatment",
        "vital",
    }
)

SUPPORTS = "supports"
CONTRADICTS = "contradicts"
UNRESOLVED = "unresolved"
#: The three relations an evidence row can have, in their canonical spelling.
RELATIONS = (SUPPORTS, CONTRADICTS, UNRESOLVED)

_RELATION_LABELS = {
    "supports": SUPPORTS,
    "supported": SUPPORTS,
    "contradicts": CONTRADICTS,
    "contradicted": CONTRADICTS,
    "unresolved": UNRESOLVED,
}

# Evidence fields that only the full check understands (approval and relation aliases).
_ALIAS_FIELDS = frozenset({"is_approved", "supports", "supported", "contradicts", "contradicted"})

#: A normalised claim class (:func:`normalise_class`), as gate files and markers name it.
CLAIM_CLASS_PATTERN = re.compile(r"[a-z0-9][a-z0-9_]{0,63}")
_OUTSIDE_CLASS_ALPHABET = re.compile(r"[^a-z0-9]+")
_CLASS_TOKEN = re.compile(r"class_[0-9a-f]{16}")

# Values that are plainly not records; everything else that is not a mapping
# is read as a typed object, by attribute.
_NOT_RECORDS = (str, bytes, bytearray, int, float, list, set, frozenset, type(None))


#: One claim as read: ``(claim_id, raw class label, claim key, cited evidence ids)``.
#: Plain tuples, not named tuples: the garbage collector untracks plain tuples of
#: atoms, which keeps a 300,000-record evaluation from paying for repeated full
#: collections over its own rows.
ClaimFields = tuple[RecordId, str, Any, tuple[RecordId, ...]]

#: One evidence row as read: ``(approved, relation, link claim_key, link claim_id)``;
#: a link that the row does not declare is ``None``.
EvidenceRow = tuple[bool, str, Any, RecordId | None]


@dataclass(frozen=True, slots=True)
class EvidenceIndex:
    """Evidence rows by id, with the count and digest a report records."""

    rows: Mapping[RecordId, EvidenceRow]
    digest: str

    @property
    def count(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"EvidenceIndex(count={self.count})"


def collect(items: object, limit: int, type_message: str, limit_message: str) -> list[Any]:
    """:func:`~pytest_openmed._validate.bounded` with this engine's messages.

    A list is copied: reading a record may run caller code that appends to
    it.  Whatever the caller's iterator raises becomes a fixed error, since
    its text may hold an identifier.
    """
    return bounded(
        items, limit, limit_message, wrong_type=type_message, failed=messages.ITERATION_FAILED
    )


def normalise_class(label: object) -> str:
    """The report name of a claim class label.

    Case-fold, turn every run of characters outside ``a-z0-9`` into one ``_``,
    strip ``_`` at both ends; the result must match ``[a-z0-9][a-z0-9_]{0,63}``.
    Standard classes and existing ``class_`` + 16-hex tokens are kept; any
    other label becomes ``class_`` + the first 16 hex digits of its SHA-256,
    so a caller-supplied value never reaches a report.
    """
    if type(label) is not str:
        raise InvalidArgument(messages.CLASS_TYPE)
    folded = _OUTSIDE_CLASS_ALPHABET.sub("_", label.casefold()).strip("_")
    if not CLAIM_CLASS_PATTERN.fullmatch(folded):
        raise InputRefused(messages.CLASS_INVALID)
    if folded in STANDARD_CLASSES or _CLASS_TOKEN.fullmatch(folded):
        return folded
    return "class_" + hashlib.sha256(folded.encode("ascii")).hexdigest()[:16]


def check_claim_key(key: object) -> object:
    """Check a claim key and return the form kept for linking.

    Refuses a key that is not JSON-like or exceeds the nesting/node limits: a
    key may nest 32 containers around a value (33 is refused) and hold at most
    10,000 nodes, containers and leaves counted (object keys are not nodes);
    object keys must be strings.  A scalar is kept as it is (it cannot
    change); a container is fingerprinted at once (docs/claims.md, "Input
    contract"), so caller code that runs later (a property, a citation
    iterator) cannot change what was checked.  Either form links exactly as
    the key would.
    """
    kind = type(key)
    if kind is str or kind is bool:
        return key
    if kind is int:
        if not _INT_MIN <= key <= _INT_MAX:  # type: ignore[operator]
            raise InputRefused(messages.KEY_INTEGER_RANGE)
        return key
    if kind is float:
        if not math.isfinite(key):  # type: ignore[arg-type]
            raise InputRefused(messages.KEY_NOT_FINITE)
        return key
    _check_key_structure(key)
    return digest_json(key)


def _check_key_structure(root: object) -> None:
    nodes = 1
    pending: list[tuple[object, int]] = [(root, 0)]
    while pending:
        value, around = pending.pop()
        kind = type(value)
        if kind is str or kind is bool or value is None:
            continue
        if kind is int:
            if not _INT_MIN <= value <= _INT_MAX:  # type: ignore[operator]
                raise InputRefused(messages.KEY_INTEGER_RANGE)
            continue
        if kind is float:
            if not math.isfinite(value):  # type: ignore[arg-type]
                raise InputRefused(messages.KEY_NOT_FINITE)
            continue
        if kind is dict:
            children: Iterable[object] = value.values()  # type: ignore[attr-defined]
            if not all(type(name) is str for name in value):  # type: ignore[attr-defined]
                raise InvalidArgument(messages.KEY_OBJECT_KEY)
        elif kind is list or kind is tuple:
            children = value  # type: ignore[assignment]
        else:
            raise InvalidArgument(messages.KEY_TYPE)
        if around + 1 > MAX_KEY_DEPTH:
            raise InputRefused(messages.KEY_TOO_DEEP)
        nodes += len(value)  # type: ignore[arg-type]
        if nodes > MAX_KEY_NODES:
            raise InputRefused(messages.KEY_TOO_LARGE)
        pending.extend((child, around + 1) for child in children)


def key_fingerprint(key: object) -> str:
    """``sha256:`` fingerprint of a checked claim key.

    A key that already is a ``sha256:`` digest is its own fingerprint, so
    fingerprinted records stay linkable when they are fed back in.
    """
    if is_digest(key):
        return key  # type: ignore[return-value]
    return digest_json(key)


def keys_match(claim_key: object, link_key: object) -> bool:
    """Whether two checked claim keys have the same canonical JSON fingerprint.

    Two strings that are both digests, or both not, match exactly when they are
    equal; only the mixed and structured cases need hashing.
    """
    if type(claim_key) is str and type(link_key) is str:
        if claim_key == link_key:
            return True
        if is_digest(claim_key) == is_digest(link_key):
            return False
    return key_fingerprint(claim_key) == key_fingerprint(link_key)


def _reader(record: object, type_message: str) -> Callable[[str], Any]:
    """A field getter for a mapping (by key) or a typed object (by attribute).

    Only a plain ``dict`` is read directly.  Any other record runs caller code
    (``__getitem__``, properties, ``__getattr__``, even ``__class__``), and
    whatever that raises becomes one fixed error, never the caller's text.
    """
    if type(record) is dict:
        return record.get
    try:
        mapping = isinstance(record, Mapping)
        not_record = not mapping and isinstance(record, _NOT_RECORDS)
    except Exception:
        raise InvalidArgument(messages.RECORD_UNREADABLE) from None
    if not_record:
        raise InvalidArgument(type_message)

    def get(name: str) -> Any:
        try:
            if mapping:
                return record.get(name)  # type: ignore[attr-defined]
            return getattr(record, name, None)
        except Exception:
            raise InvalidArgument(messages.RECORD_UNREADABLE) from None

    return get


def _check_id(value: object) -> RecordId:
    kind = type(value)
    if kind is int:
        if not _INT_MIN <= value <= _INT_MAX:  # type: ignore[operator]
            raise InputRefused(messages.ID_TYPE)
        return value  # type: ignore[return-value]
    if kind is str:
        if not value:
            raise InputRefused(messages.ID_TYPE)
        return value  # type: ignore[return-value]
    raise InvalidArgument(messages.ID_TYPE)


def _citations(cited: object) -> tuple[RecordId, ...]:
    if cited is None:
        raise InputRefused(messages.CITATIONS_MISSING)
    items = collect(cited, MAX_CITATIONS, messages.CITATIONS_TYPE, messages.TOO_MANY_CITATIONS)
    for evidence_id in items:
        if not (type(evidence_id) is str and evidence_id):
            _check_id(evidence_id)
    return tuple(items)


def claim_fields(record: object) -> ClaimFields:
    """Read and check one claim record (class label not yet normalised)."""
    if type(record) is dict:
        plain = _plain_claim(record)
        if plain is not None:
            return plain
    get = _reader(record, messages.CLAIM_RECORD_TYPE)
    claim_id = get("claim_id")
    label = get("claim_class")
    key = get("claim_key")
    cited = get("evidence_ids")
    if claim_id is None:
        raise InputRefused(messages.CLAIM_ID_MISSING)
    if label is None:
        raise InputRefused(messages.CLAIM_CLASS_MISSING)
    if key is None:
        raise InputRefused(messages.CLAIM_KEY_MISSING)
    if type(label) is not str:
        raise InvalidArgument(messages.CLASS_TYPE)
    key = check_claim_key(key)
    return (_check_id(claim_id), label, key, _citations(cited))


def _plain_claim(record: dict[str, Any]) -> ClaimFields | None:
    """Fast path for a well-formed dict claim with string ids; ``None`` means "check fully".

    It accepts only what the full check accepts, so it changes speed, not results.
    """
    get = record.get
    claim_id = get("claim_id")
    label = get("claim_class")
    key = get("claim_key")
    cited = get("evidence_ids")
    if not (
        (type(claim_id) is str and claim_id)
        and type(label) is str
        and type(key) is str
        and type(cited) is list
        and len(cited) <= MAX_CITATIONS
    ):
        return None
    for evidence_id in cited:
        if not (type(evidence_id) is str and evidence_id):
            return None
    return (claim_id, label, key, tuple(cited))


def _approved(value: object, alias: object) -> bool:
    if value is None:
        if alias is None:
            raise InputRefused(messages.APPROVED_MISSING)
        value, alias = alias, None
    if type(value) is not bool or (alias is not None and type(alias) is not bool):
        raise InvalidArgument(messages.APPROVED_TYPE)
    if alias is not None and alias is not value:
        raise InputRefused(messages.APPROVED_CONFLICT)
    return value


def _relation(label: object, flags: tuple[tuple[object, str], ...]) -> str:
    """The one relation that the label and the boolean flags agree on.

    ``supports: true`` means the relation is ``supports``; ``supports: false``
    that it is not.  Disagreement is rejected, and so is a set of flags that
    leaves more than one relation possible.
    """
    relation = None
    if label is not None:
        if type(label) is not str:
            raise InvalidArgument(messages.RELATION_TYPE)
        relation = _RELATION_LABELS.get(label)
        if relation is None:
            raise InputRefused(messages.RELATION_TYPE)
    if all(flag is None for flag, _ in flags):
        if relation is None:
            raise InputRefused(messages.RELATION_MISSING)
        return relation
    possible = set(RELATIONS) if relation is None else {relation}
    for flag, flagged in flags:
        if flag is None:
            continue
        if type(flag) is not bool:
            raise InvalidArgument(messages.RELATION_FLAG_TYPE)
        if flag:
            possible &= {flagged}
        else:
            possible.discard(flagged)
    if not possible:
        raise InputRefused(messages.RELATION_CONFLICT)
    if len(possible) > 1:
        raise InputRefused(messages.RELATION_AMBIGUOUS)
    return possible.pop()


def evidence_fields(record: object) -> tuple[RecordId, EvidenceRow]:
    """Read and check one evidence record."""
    if type(record) is dict and _ALIAS_FIELDS.isdisjoint(record):
        plain = _plain_evidence(record)
        if plain is not None:
            return plain
    get = _reader(record, messages.EVIDENCE_RECORD_TYPE)
    evidence_id = get("evidence_id")
    if evidence_id is None:
        raise InputRefused(messages.EVIDENCE_ID_MISSING)
    evidence_id = _check_id(evidence_id)
    approved = _approved(get("approved"), get("is_approved"))
    relation = _relation(
        get("relation"),
        (
            (get("supports"), SUPPORTS),
            (get("supported"), SUPPORTS),
            (get("contradicts"), CONTRADICTS),
            (get("contradicted"), CONTRADICTS),
        ),
    )
    link_key = get("claim_key")
    if link_key is not None:
        link_key = check_claim_key(link_key)
    link_id = get("claim_id")
    if link_id is not None:
        link_id = _check_id(link_id)
    return evidence_id, (approved, relation, link_key, link_id)


def _plain_evidence(record: dict[str, Any]) -> tuple[RecordId, EvidenceRow] | None:
    """Fast path for a well-formed dict row without alias fields; ``None`` means "check fully"."""
    get = record.get
    evidence_id = get("evidence_id")
    approved = get("approved")
    label = get("relation")
    link_key = get("claim_key")
    link_id = get("claim_id")
    relation = _RELATION_LABELS.get(label) if type(label) is str else None
    if (
        relation is not None
        and type(approved) is bool
        and (type(evidence_id) is str and evidence_id)
        and (link_key is None or type(link_key) is str)
        and (link_id is None or (type(link_id) is str and link_id))
    ):
        return evidence_id, (approved, relation, link_key, link_id)
    return None


#: Which collection a refused record belongs to, as :func:`located_record` names it.
CLAIMS_RECORDS, EVIDENCE_RECORDS = "claims", "evidence"


def located_record(error: OpenmedError, which: str, index: int) -> OpenmedError:
    """``error`` naming the record it refuses: ``claims record 3: …`` (0-based position).

    The fixed message already names the field; the position says which record.
    ``error.record`` keeps ``(which, index, message)`` so a caller that read the
    records from a file can name its JSON Lines line or JSON array index instead.
    """
    message = str(error.args[0]) if error.args else ""
    error.record = (which, index, message)  # type: ignore[attr-defined]
    located = locate_input_error(error, f"{which} record {index}")
    assert isinstance(located, OpenmedError)
    return located


def read_evidence(evidence: object) -> EvidenceIndex:
    """Check every evidence row, refuse duplicate ids, and digest the set."""
    records = collect(
        evidence, MAX_EVIDENCE, messages.EVIDENCE_NOT_ITERABLE, messages.TOO_MANY_EVIDENCE
    )
    rows: dict[RecordId, EvidenceRow] = {}
    for index, record in enumerate(records):
        try:
            evidence_id, row = evidence_fields(record)
            if evidence_id in rows:
                raise InputRefused(messages.DUPLICATE_EVIDENCE_ID)
        except OpenmedError as error:
            refusal = located_record(error, EVIDENCE_RECORDS, index)
        else:
            rows[evidence_id] = row
            continue
        raise refusal from None
    return EvidenceIndex(rows=MappingProxyType(rows), digest=_evidence_digest(rows))


def _evidence_digest(rows: Mapping[RecordId, EvidenceRow]) -> str:
    """Digest of the evidence set: order-free, over the normalised rows.

    One SHA-256 over the whole canonical document, so no single id or key can
    be checked against it row by row.
    """
    ids = list(rows)
    try:
        ids.sort()
    except TypeError:  # string and integer ids together: integers first
        ids.sort(key=lambda value: (type(value) is str, value))
    return digest_json(
        {
            "kind": "pytest-openmed/claims-evidence",
            "version": 1,
            "ids": ids,
            "rows": [rows[evidence_id] for evidence_id in ids],
        }
    )
