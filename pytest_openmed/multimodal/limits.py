"""The documented limits of multimodal validation.

Oversized input fails explicitly: nothing is truncated or sampled.  The
messages that quote a limit are formatted from these constants.  A leaf: it
imports no engine module, so the errors may quote it.
"""

from __future__ import annotations

from pytest_openmed._validate import MAX_MIN_CELL, MIN_CELL
from pytest_openmed.carriers.limits import MAX_ASSET_BYTES

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
    "spelled",
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


#: Counts a message spells out (``two candidates``), indexed by the count.
_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def spelled(count: int) -> str:
    """``count`` as a message words it (``2`` is ``two``), so the message follows its constant."""
    return _WORDS[count]
