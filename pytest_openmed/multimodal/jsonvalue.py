"""Immutable JSON objects with their canonical text and digest computed once.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

Observation outputs and protected review contexts are JSON objects supplied by
the caller.  They are copied, checked (string keys, finite numbers, bounded
depth, node count and size), frozen, and fingerprinted exactly once, so a pack,
every packet built from it and every verification reuse the same digest.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import canonical_json, sha256_digest
from pytest_openmed._validate import unique_names

from .errors import InvalidInput, LimitExceeded

__all__ = ["MAX_JSON_DEPTH", "MAX_JSON_NODES", "FrozenJson", "freeze_object", "unique_names"]

#: Deepest nesting of containers accepted inside one JSON object.
MAX_JSON_DEPTH = 32
#: Most nodes (containers and leaves) accepted inside one JSON object.
MAX_JSON_NODES = 200_000


class FrozenJson(Mapping[str, Any]):
    """A read-only JSON object: nested objects are mapping proxies, arrays are tuples.

    Its attributes cannot be assigned or deleted after construction: the digest
    is bound into packs and packets, so the text behind it must never change.
    """

    __slots__ = ("_canonical", "_digest", "_frozen")

    _canonical: str
    _digest: str
    _frozen: Mapping[str, Any] | None

    def __init__(self, value: object, *, max_bytes: int) -> None:
        if type(value) is not dict and not isinstance(value, Mapping):
            raise InvalidInput("a JSON object (mapping with string keys) is required")
        counter = [0]
        plain = _plain(value, 0, counter)
        try:
            text = canonical_json(plain)
        except (TypeError, ValueError):
            raise InvalidInput("the JSON object holds a value that is not JSON") from None
        if len(text) > max_bytes:
            raise LimitExceeded("a JSON object exceeds its size limit")
        # The read-only view is built on first access: most values are only
        # ever fingerprinted and serialised, never read item by item.
        object.__setattr__(self, "_frozen", None)
        object.__setattr__(self, "_canonical", text)
        object.__setattr__(self, "_digest", sha256_digest(text.encode("ascii")))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("FrozenJson is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("FrozenJson is immutable")

    @property
    def canonical(self) -> str:
        """Canonical JSON text (sorted keys, no whitespace, ASCII)."""
        return self._canonical

    @property
    def digest(self) -> str:
        """``sha256:`` of the canonical text, computed once."""
        return self._digest

    @property
    def size(self) -> int:
        return len(self._canonical)

    def thaw(self) -> dict[str, Any]:
        """A fresh, mutable copy (for serialisation)."""
        result: dict[str, Any] = json.loads(self._canonical)
        return result

    def _view(self) -> Mapping[str, Any]:
        if self._frozen is not None:
            return self._frozen
        frozen = _freeze(self.thaw())
        assert isinstance(frozen, Mapping)
        object.__setattr__(self, "_frozen", frozen)
        return frozen

    def __getitem__(self, key: str) -> Any:
        return self._view()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._view())

    def __len__(self) -> int:
        return len(self._view())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenJson):
            return self._canonical == other._canonical
        if isinstance(other, Mapping):
            return self.thaw() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._canonical)

    def __repr__(self) -> str:
        return f"FrozenJson(<{len(self._canonical)} bytes>)"


def freeze_object(value: object, *, max_bytes: int) -> FrozenJson:
    """Return ``value`` as a :class:`FrozenJson`, reusing it when it already is exactly one.

    A subclass is copied and fingerprinted again: its digest is not trusted.
    """
    if type(value) is FrozenJson:
        if value.size > max_bytes:
            raise LimitExceeded("a JSON object exceeds its size limit")
        return value
    return FrozenJson(value, max_bytes=max_bytes)


#: Leaf types copied as they are (a float is checked for finiteness first).
_LEAVES = frozenset({type(None), bool, str, int})


def _plain(value: object, depth: int, counter: list[int]) -> Any:
    """A plain copy of one node, counting every node in document order as it is copied."""
    counter[0] += 1
    if counter[0] > MAX_JSON_NODES:
        raise LimitExceeded("a JSON object holds too many nodes")
    if type(value) in _LEAVES:
        return value
    if type(value) is float:
        if not math.isfinite(value):
            raise InvalidInput("JSON numbers must be finite")
        return value
    if depth >= MAX_JSON_DEPTH:
        raise LimitExceeded("a JSON object is nested too deeply")
    # A leaf item is copied and counted here, without a call per leaf.
    if type(value) is dict or isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise InvalidInput("JSON object keys must be strings")
            if type(item) in _LEAVES and counter[0] < MAX_JSON_NODES:
                counter[0] += 1
                result[key] = item
            else:
                result[key] = _plain(item, depth + 1, counter)
        return result
    if type(value) is list or type(value) is tuple:
        items: list[Any] = []
        for item in value:
            if type(item) in _LEAVES and counter[0] < MAX_JSON_NODES:
                counter[0] += 1
                items.append(item)
            else:
                items.append(_plain(item, depth + 1, counter))
        return items
    raise InvalidInput("the JSON object holds a value that is not JSON")


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value
