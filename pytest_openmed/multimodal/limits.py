"""The documented limits of multimodal validation, and bounded materialisation.

Oversized input fails explicitly: nothing is truncated or sampled, and
iterables are consumed at most ``limit + 1`` items (the rule is
:func:`pytest_openmed._validate.bounded`'s).
"""

from __future__ import annotations

from typing import Any

from pytest_openmed._validate import bounded
from pytest_openmed.carriers.limits import MAX_ASSET_BYTES

from .errors import InvalidInput, LimitExceeded

__all__ = [
    "MAX_ADJUDICATIONS",
    "MAX_ASSETS_PER_CASE",
    "MAX_ASSET_BYTES",
    "MAX_CANDIDATES",
    "MAX_JSON_BYTES",
    "MAX_MIN_CELL",
    "MAX_PACK_BYTES",
    "MAX_PACK_JSON_BYTES",
    "MAX_REVIEWS",
    "MAX_UNITS",
    "MIN_CELL",
    "MIN_REVIEWS",
    "materialise",
]

#: Distinct source units (cases) per pack: one to this many.
MAX_UNITS = 256
#: Assets per case: one to this many.
MAX_ASSETS_PER_CASE = 8
#: Bytes of all assets of one pack.
MAX_PACK_BYTES = 64 * 1024 * 1024
#: Canonical JSON bytes of one observation output or one review context.
MAX_JSON_BYTES = 1024 * 1024
#: Canonical JSON bytes of all outputs and contexts of one pack.
MAX_PACK_JSON_BYTES = 16 * 1024 * 1024
#: Complete original reviews an assessment accepts.
MIN_REVIEWS = 2
MAX_REVIEWS = 8
#: Adjudications one assessment accepts (one per unit and candidate at most).
MAX_ADJUDICATIONS = 2 * MAX_UNITS
#: Candidate configurations of one pack: exactly this many.
MAX_CANDIDATES = 2
#: Smallest publication cell size; callers may raise it, never lower it.
MIN_CELL = 5
#: Largest publication cell size a gate or a run may ask for.
MAX_MIN_CELL = 1_000_000


def materialise(items: object, limit: int, message: str) -> tuple[Any, ...]:
    """:func:`~pytest_openmed._validate.bounded` with this engine's errors, as a tuple.

    Raises :class:`LimitExceeded` with the caller's fixed ``message`` when there
    are more than ``limit``; strings, bytes and mappings are not sequences.
    """
    return tuple(bounded(items, limit, lambda: LimitExceeded(message), wrong_type=_not_a_sequence))


def _not_a_sequence() -> InvalidInput:
    return InvalidInput("a sequence was expected")
