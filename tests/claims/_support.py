"""Helpers shared by the claims tests: record builders, a counting iterator, strategies."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from hypothesis import strategies as st

from pytest_openmed.claims.messages import MESSAGES

#: Pass as a field value to leave the field out of a built record.
_OMIT = object()
OMIT: Any = _OMIT


def claim(
    claim_id: Any = "claim-1",
    evidence_ids: Any = ("ev-1",),
    *,
    claim_class: Any = "diagnosis",
    claim_key: Any = "key-1",
    **extra: Any,
) -> dict[str, Any]:
    record = {
        "claim_id": claim_id,
        "claim_class": claim_class,
        "claim_key": claim_key,
        "evidence_ids": list(evidence_ids) if isinstance(evidence_ids, tuple) else evidence_ids,
        **extra,
    }
    return {name: value for name, value in record.items() if value is not _OMIT}


def evidence(
    evidence_id: Any = "ev-1",
    relation: Any = "supports",
    *,
    approved: Any = True,
    **extra: Any,
) -> dict[str, Any]:
    row = {"evidence_id": evidence_id, "approved": approved, "relation": relation, **extra}
    return {name: value for name, value in row.items() if value is not _OMIT}


def without(record: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: value for name, value in record.items() if name not in names}


class Counting(Iterator[Any]):
    """An iterator that counts how many items were taken from it."""

    def __init__(self, items: Iterable[Any]) -> None:
        self._items = iter(items)
        self.consumed = 0

    def __iter__(self) -> Counting:
        return self

    def __next__(self) -> Any:
        item = next(self._items)
        self.consumed += 1
        return item


def assert_fixed(error: BaseException) -> None:
    """The error is a ValueError/TypeError whose text is one of the engine's fixed messages."""
    assert isinstance(error, ValueError | TypeError), type(error)
    assert len(error.args) == 1 and error.args[0] in MESSAGES, error.args
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__


# Arbitrary JSON-like values, and records that are sometimes well formed.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.integers()
    | st.floats()
    | st.text(max_size=6)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.sampled_from(["a", "b", "c", 1, 2, "1", "", 2**63, -(2**64)]) | json_scalars
field_names_claim = st.sampled_from(["claim_id", "claim_class", "claim_key", "evidence_ids", "x"])
field_names_evidence = st.sampled_from(
    [
        "evidence_id",
        "approved",
        "is_approved",
        "relation",
        "supports",
        "supported",
        "contradicts",
        "contradicted",
        "claim_key",
        "claim_id",
    ]
)
field_values = (
    ids
    | json_values
    | st.lists(ids, max_size=4)
    | st.sampled_from(["supports", "supported", "contradicts", "contradicted", "unresolved"])
    | st.sampled_from(["Diagnosis", "lab", "ward round", "___", "class_0123456789abcdef"])
)
loose_claims = st.lists(
    st.dictionaries(field_names_claim, field_values, max_size=5) | json_values, max_size=5
)
loose_evidence = st.lists(
    st.dictionaries(field_names_evidence, field_values, max_size=8) | json_values, max_size=5
)
