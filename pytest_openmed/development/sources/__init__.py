"""Generators of synthetic clinical-format sources with known ground truth.

Each generator takes a seed and a slice (``nominal``, ``adverse_acquisition``,
``ambiguity_conflict``) and returns a :class:`GeneratedSource`: the asset bytes
exactly as a component would receive them, plus the ground truth used to score
it.  Nothing here depicts a real person; every identifier is synthetic.
Generator modules live beside this one (``ecg``, ``forms``, ``dicom``,
``burned_in``, ``wsi``) and are imported on demand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pytest_openmed.errors import InputRefused
from pytest_openmed.multimodal.vocabulary import SLICE_REFUSED, CaseSlice

__all__ = ["SLICES", "GeneratedSource", "check_slice"]

#: The three closed case slices, as their string values (``multimodal.vocabulary.CaseSlice``).
SLICES = tuple(member.value for member in CaseSlice)


def check_slice(slice_name: str) -> str:
    if slice_name not in SLICES:
        raise InputRefused(SLICE_REFUSED)
    return slice_name


@dataclass(frozen=True, slots=True)
class GeneratedSource:
    """One generated asset and the truth it was generated from."""

    asset: bytes
    media_type: str
    slice: str
    truth: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_slice(self.slice)
        object.__setattr__(self, "truth", MappingProxyType(dict(self.truth)))

    def __repr__(self) -> str:
        return (
            f"GeneratedSource(media_type={self.media_type!r}, slice={self.slice!r}, "
            f"bytes={len(self.asset)})"
        )
