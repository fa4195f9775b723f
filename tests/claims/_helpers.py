"""Helpers shared by the claims tests: record builders, a counting iterator, strategies."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NoReturn

from hypothesis import strategies as st

from pytest_openmed.claims import (
    BootstrapInterval,
    ClaimClassMetrics,
    UnsupportedClaimsReport,
    score_summary_claims,
)
from pytest_openmed.claims.declaration import MARKER, GateDeclaration, declare
from pytest_openmed.claims.messages import MESSAGES
from pytest_openmed.contract import ArgumentSource

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


#: How a refusal of one record names it (its 0-based position) before the fixed message.
RECORD_PREFIX = re.compile(r"(?:claims|evidence) record [0-9]+: ")


def assert_fixed(error: BaseException) -> None:
    """The error is a ValueError/TypeError whose text is one of the engine's fixed messages,
    after the position of the record it refuses when it refuses one."""
    assert isinstance(error, ValueError | TypeError), type(error)
    assert len(error.args) == 1, error.args
    prefix = RECORD_PREFIX.match(error.args[0])
    text = error.args[0][prefix.end() :] if prefix else error.args[0]
    assert text in MESSAGES, error.args
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


# --- caller code that raises ------------------------------------------------------------------

#: Planted in every exception that caller code raises: it must never surface.
CALLER_CANARY = f"canarycaller{secrets.token_hex(6)}"


def _raise(kind: type[Exception]) -> NoReturn:
    raise kind(CALLER_CANARY)


class RaisingProperty:
    """A typed record one of whose fields raises when read."""

    def __init__(self, fields: dict[str, Any], raising: str, kind: type[Exception]) -> None:
        self._fields, self._raising, self._kind = fields, raising, kind

    def __getattr__(self, name: str) -> Any:
        if name == self._raising:
            _raise(self._kind)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None


class RaisingMapping(Mapping[str, Any]):
    def __init__(self, fields: dict[str, Any], kind: type[Exception]) -> None:
        self._fields, self._kind = fields, kind

    def __getitem__(self, name: str) -> Any:
        _raise(self._kind)

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)


class RaisingClass:
    """An object whose ``__class__`` raises, so even ``isinstance`` on it fails."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        _raise(RuntimeError)


def raising_iterator(items: list[Any], kind: type[Exception]) -> Iterator[Any]:
    yield from items
    _raise(kind)


class RaisingIterable:
    def __iter__(self) -> Iterator[Any]:
        _raise(RuntimeError)


class RaisingIndex:
    def __index__(self) -> int:
        _raise(ValueError)


class RaisingFloat(float):
    def __float__(self) -> float:
        _raise(RuntimeError)


class RaisingInt(int):
    def __float__(self) -> float:
        _raise(RuntimeError)


# --- report records that skip validation ------------------------------------------------------


class UncheckedInterval(BootstrapInterval):
    """A subclass that skips validation: typed input the report must not trust."""

    __slots__ = ()

    def __post_init__(self) -> None:
        pass


class UncheckedMetrics(ClaimClassMetrics):
    __slots__ = ()

    def __post_init__(self) -> None:
        pass


def unchecked_interval(**changes: Any) -> BootstrapInterval:
    fields: dict[str, Any] = {
        "lower": 0.0,
        "upper": 1.0,
        "point": 0.5,
        "n_resamples": 10,
        "alpha": 0.05,
        "degenerate": False,
    }
    return UncheckedInterval(**{**fields, **changes})


def unchecked_metrics(interval: BootstrapInterval, **changes: Any) -> ClaimClassMetrics:
    fields: dict[str, Any] = {
        "claim_count": 2,
        "counts": {"supported": 1, "contradicted": 0, "unresolved": 1, "uncited": 0},
        "unsupported_count": 1,
        "unsupported_rate": 0.5,
        "interval": interval,
    }
    return UncheckedMetrics(**{**fields, **changes})


def report_of(metrics: ClaimClassMetrics) -> UnsupportedClaimsReport:
    digest = score_summary_claims([], []).evidence_digest
    return UnsupportedClaimsReport(
        overall=metrics,
        by_claim_class={"lab": metrics},
        evidence_digest=digest,
        evidence_count=0,
        seed=0,
    )


def declared(**fields: object) -> GateDeclaration:
    """The claims declaration a marker with these arguments makes (thresholds only)."""
    return declare(fields, ArgumentSource(), MARKER)
