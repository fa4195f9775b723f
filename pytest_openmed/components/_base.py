"""The contract every component shares: its output value and its errors.

The size limits and the parse boundary are the carriers' (:mod:`pytest_openmed.carriers`),
imported here so that components keep one import for them.

"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import canonical_json, digest_json
from pytest_openmed.carriers.boundary import LibraryLogSilencer, parse_boundary
from pytest_openmed.carriers.limits import (
    MAX_ASSET_BYTES,
    MAX_DECODED_PIXELS,
    check_decoded_pixels,
)
from pytest_openmed.errors import (
    AssetTooLarge,
    ComponentError,
    CorruptAsset,
    DecodedSizeTooLarge,
    InputRefused,
    InvalidArgument,
    UnsupportedAsset,
)

__all__ = [
    "MAX_ASSET_BYTES",
    "MAX_DECODED_PIXELS",
    "SAFETY_FAILURES",
    "AssetTooLarge",
    "ComponentError",
    "ComponentOutput",
    "CorruptAsset",
    "DecodedSizeTooLarge",
    "LibraryLogSilencer",
    "UnsupportedAsset",
    "check_asset",
    "check_bounds",
    "check_decoded_pixels",
    "config_digest",
    "parse_boundary",
]

#: The closed vocabulary of safety failures an observation can carry.
SAFETY_FAILURES = ("privacy", "provenance")


def check_asset(asset: object) -> bytes:
    """Refuse non-bytes and oversized input before any parser sees it."""
    if type(asset) is not bytes:
        raise InvalidArgument("asset must be bytes")
    if len(asset) > MAX_ASSET_BYTES:
        raise AssetTooLarge(f"asset exceeds the {MAX_ASSET_BYTES // 2**20} MiB component limit")
    return asset


def check_bounds(
    config: object,
    names: Iterable[str],
    kind: type[int] | type[float],
    low: float,
    high: float,
    message: str,
    *,
    above_low: bool = False,
) -> None:
    """Refuse each named field of ``config`` that is not exactly ``kind`` from ``low`` to ``high``.

    The components' configurations check their thresholds with this one rule.
    Exactly: a bool is not an int and an int is not a float, so a configuration
    digests the value it checked; NaN is outside every range.  ``above_low``
    leaves ``low`` itself out.  The error is ``InputRefused(message)``.
    """
    for name in names:
        value = getattr(config, name)
        if type(value) is not kind or not (
            low < value <= high if above_low else low <= value <= high
        ):
            raise InputRefused(message)


def config_digest(config: object) -> str:
    """Stable ``sha256:`` digest of a frozen configuration dataclass."""
    if not dataclasses.is_dataclass(config) or isinstance(config, type):
        raise InvalidArgument("config must be a dataclass instance")
    return digest_json({"type": type(config).__qualname__, "fields": dataclasses.asdict(config)})


@dataclasses.dataclass(frozen=True, slots=True)
class ComponentOutput:
    """What a component produced for one asset.

    ``output`` is a JSON-able mapping documented per component; ``abstained``
    and ``abstain_reason`` (closed vocabulary, or ``None``) say whether the
    component declined; ``safety_failures`` is a sorted tuple drawn from
    ``privacy`` / ``provenance``.
    """

    output: Mapping[str, Any]
    abstained: bool = False
    abstain_reason: str | None = None
    safety_failures: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if type(self.abstained) is not bool:
            raise InvalidArgument("abstained must be a bool")
        if self.abstained != (self.abstain_reason is not None):
            raise InputRefused("abstain_reason must be set exactly when the component abstained")
        if self.abstain_reason is not None and type(self.abstain_reason) is not str:
            raise InvalidArgument("abstain_reason must be a string")
        failures = tuple(sorted(set(self.safety_failures)))
        if any(failure not in SAFETY_FAILURES for failure in failures):
            raise InputRefused("safety_failures must be drawn from: privacy, provenance")
        # Round-trip through canonical JSON: proves the output is JSON-able and
        # detaches it from any mutable object the component still holds.
        import json

        frozen = json.loads(canonical_json(dict(self.output)))
        object.__setattr__(self, "output", MappingProxyType(frozen))
        object.__setattr__(self, "safety_failures", failures)

    def to_dict(self) -> dict[str, Any]:
        return {
            "output": dict(self.output),
            "abstained": self.abstained,
            "abstain_reason": self.abstain_reason,
            "safety_failures": list(self.safety_failures),
        }

    def to_json(self) -> str:
        """Canonical JSON: same bytes and config give byte-identical text."""
        return canonical_json(self.to_dict())

    def __repr__(self) -> str:
        return (
            f"ComponentOutput(abstained={self.abstained}, abstain_reason={self.abstain_reason!r}, "
            f"safety_failures={self.safety_failures!r})"
        )
