"""Small-cell suppression of the public report.

With cell size ``c`` (default 5, never below 5):

* a slice is suppressed entirely — no counts, rates or intervals — when any
  published metric's numerator or complement is between 1 and ``c − 1``;
  an empty slice is reported in the same suppressed shape;
* the overall block is suppressed whenever any slice is, so no subtraction of
  published slices from the overall recovers a suppressed one.

This protects one report; it is not differential privacy and does not prevent
differencing across repeated or overlapping releases.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .errors import MinCellRefused
from .limits import MIN_CELL

__all__ = ["block_suppressed", "check_min_cell", "is_small_cell", "overall_suppressed"]


def check_min_cell(value: object) -> int:
    """Return ``value`` if it is an integer of at least :data:`MIN_CELL`."""
    if type(value) is not int or value < MIN_CELL:
        raise MinCellRefused()
    return value


def is_small_cell(count: int, denominator: int, min_cell: int) -> bool:
    """True when the numerator or its complement is nonzero and below ``min_cell``."""
    return 0 < count < min_cell or 0 < denominator - count < min_cell


def block_suppressed(units: int, counts: Mapping[str, int], min_cell: int) -> bool:
    """True when a block (a slice, or the overall) must not be published."""
    if units == 0:
        return True
    return any(is_small_cell(count, units, min_cell) for count in counts.values())


def overall_suppressed(
    slice_flags: Iterable[bool], units: int, counts: Mapping[str, int], min_cell: int
) -> bool:
    """The overall block is suppressed when any slice is, or when it is small itself."""
    return any(slice_flags) or block_suppressed(units, counts, min_cell)
