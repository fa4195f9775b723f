"""Counting the resolved units of one candidate into per-slice and overall metrics.

Every published metric is a count of units whose resolved value is true, over
all units of the block: each source unit contributes exactly once whatever the
number of reviewers.  Utility uses the same denominator (all units); an
abstained unit counts as not useful, so abstention never credits utility.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .resolution import UnitResolution
from .vocabulary import METRICS, CaseSlice

__all__ = ["Tally", "tally"]


@dataclass(frozen=True, slots=True)
class Tally:
    """Units of one block and, per metric, the number of units where it is true."""

    units: int
    counts: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", MappingProxyType(dict(self.counts)))

    def __repr__(self) -> str:
        return "Tally(<protected counts>)"


def tally(units: Iterable[UnitResolution], case_slice: CaseSlice | None = None) -> Tally:
    """Count ``units`` (only those of ``case_slice`` when given)."""
    chosen = [u for u in units if case_slice is None or u.slice is case_slice]
    counts = {name: sum(1 for u in chosen if u.metric(name)) for name in METRICS}
    return Tally(units=len(chosen), counts=counts)
