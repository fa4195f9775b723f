"""Value objects built from values that were checked when they entered.

The public constructors of packets, mappings and source references check
every field: callers and stored documents supply them.  ``prepare_review``
and ``ValidationCase`` build hundreds of them from a pack, a reviewer and
assets that were checked when they were built, so :func:`build_checked` sets
the fields without checking them again (validate at the trust boundary, not
inside every internal object).  Tests hold each value built this way equal to
the public constructor's.  A leaf: it imports nothing of the engine.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def build_checked(cls: type[T], /, **values: Any) -> T:
    """An instance of the frozen dataclass ``cls`` with exactly its ``init`` fields set."""
    if values.keys() != _init_fields(cls):
        raise RuntimeError("internal error: the fields do not match the value type")
    value = object.__new__(cls)
    for name, item in values.items():
        object.__setattr__(value, name, item)
    return value


_INIT_FIELDS: dict[type[Any], frozenset[str]] = {}


def _init_fields(cls: type[Any]) -> frozenset[str]:
    names = _INIT_FIELDS.get(cls)
    if names is None:
        names = _INIT_FIELDS[cls] = frozenset(f.name for f in dataclasses.fields(cls) if f.init)
    return names
