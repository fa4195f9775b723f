"""Structural readers shared by the stored forms of packs, packets, mappings, reviews.

Each codec lives with its type (``ValidationPack.to_dict()/from_dict()`` in
:mod:`.pack`, and so on); what they share is here: the document envelope
(``schema`` and ``schema_version``), exact key sets, bounded arrays (and the
bounded sequences value objects are given), JSON objects, and turning a type
error raised while rebuilding a value object into
:class:`~.errors.DocumentInvalid`.  A leaf: it imports no other engine module
but the errors, so no codec import points back at a type.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from pytest_openmed._validate import bounded

from .errors import DocumentInvalid, InvalidInput, LimitExceeded

#: The version every stored multimodal document carries and every reader accepts.
SCHEMA_VERSION = "1.0"


def envelope(schema: str) -> dict[str, Any]:
    """The first two keys of a stored document of type ``schema``."""
    return {"schema": schema, "schema_version": SCHEMA_VERSION}


def document(data: object, schema: str, keys: set[str]) -> dict[str, Any]:
    """The fields of a stored ``schema`` document: its envelope and exactly ``keys``."""
    if not isinstance(data, Mapping):
        raise DocumentInvalid("a stored document must be a JSON object")
    if data.get("schema") != schema:
        raise DocumentInvalid("the stored document is not of the expected type")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise DocumentInvalid("the stored document has an unsupported schema_version")
    return fields(data, keys | {"schema", "schema_version"})


def fields(data: object, keys: set[str]) -> dict[str, Any]:
    """The fields of a stored object that has exactly ``keys``."""
    if not isinstance(data, Mapping) or set(data) != keys:
        raise DocumentInvalid("a stored object does not have exactly its documented keys")
    return {key: data[key] for key in keys}


def array(data: object, limit: int) -> tuple[Any, ...]:
    """A stored JSON array of at most ``limit`` items."""
    if type(data) is not list and type(data) is not tuple:
        raise DocumentInvalid("a stored field must be a JSON array")
    if len(data) > limit:
        raise DocumentInvalid("a stored array exceeds its limit")
    return tuple(data)


def json_object(data: object) -> Mapping[str, Any]:
    """A stored JSON object (its values are checked by the value object built from it)."""
    if not isinstance(data, Mapping):
        raise DocumentInvalid("a stored field must be a JSON object")
    return data


@contextlib.contextmanager
def malformed() -> Iterator[None]:
    """Turn type errors raised while rebuilding value objects into :class:`DocumentInvalid`."""
    try:
        yield
    except TypeError:
        raise DocumentInvalid("a stored field has the wrong type") from None


def materialise(items: object, limit: int, message: str) -> tuple[Any, ...]:
    """:func:`~pytest_openmed._validate.bounded` with this engine's errors, as a tuple.

    Raises :class:`~.errors.LimitExceeded` with the caller's fixed ``message``
    when there are more than ``limit``; strings, bytes and mappings are not sequences.
    """
    return tuple(bounded(items, limit, lambda: LimitExceeded(message), wrong_type=_not_a_sequence))


def _not_a_sequence() -> InvalidInput:
    return InvalidInput("a sequence was expected")
