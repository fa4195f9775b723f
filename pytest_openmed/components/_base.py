"""The contract every component shares: its output value and its errors.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Iterator, Mapping
from types import MappingProxyType, TracebackType
from typing import Any

from pytest_openmed._canonical import canonical_json, digest_json
from pytest_openmed.errors import (
    AssetTooLarge,
    ComponentError,
    CorruptAsset,
    DecodedSizeTooLarge,
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
    "check_decoded_pixels",
    "config_digest",
    "parse_boundary",
]

#: Largest asset any component reads (the pack limit per asset).
MAX_ASSET_BYTES = 4 * 1024 * 1024

#: Most pixels one component run decodes (frames × rows × columns, summed over
#: everything it decodes; a pixel counts once whatever its samples).  Checked
#: against the header before any pixel is decoded: a small asset can declare a
#: huge image, and every component holds several float copies of what it
#: decodes.  6 Mi pixels keeps one run under 512 MiB peak
#: (``benchmarks/resource_bounds.py``) and covers a 2048² slide pyramid verified tile by tile.
MAX_DECODED_PIXELS = 6 * 1024 * 1024

#: The closed vocabulary of safety failures an observation can carry.
SAFETY_FAILURES = ("privacy", "provenance")


def check_asset(asset: object) -> bytes:
    """Refuse non-bytes and oversized input before any parser sees it."""
    if type(asset) is not bytes:
        raise TypeError("asset must be bytes")
    if len(asset) > MAX_ASSET_BYTES:
        raise AssetTooLarge("asset exceeds the 4 MiB component limit")
    return asset


def check_decoded_pixels(pixels: int) -> None:
    """Refuse a declared (or accumulated) decoded size past :data:`MAX_DECODED_PIXELS`."""
    if pixels > MAX_DECODED_PIXELS:
        raise DecodedSizeTooLarge("declared image size exceeds the decoded-pixel budget")


@contextlib.contextmanager
def parse_boundary(corrupt: str) -> Iterator[None]:
    """Where a library parses asset bytes: the one rule that turns its failures into typed errors.

    A :class:`ComponentError` raised inside (a fixed refusal) leaves unchanged;
    any other exception, whose text may quote the asset, becomes
    ``CorruptAsset(corrupt)``.  Either leaves without its context, so no
    library text is chained to what the caller sees.  ``corrupt`` must be a
    fixed message.
    """
    try:
        yield
    except ComponentError as error:
        raise error from None
    except Exception:
        raise CorruptAsset(corrupt) from None


def config_digest(config: object) -> str:
    """Stable ``sha256:`` digest of a frozen configuration dataclass."""
    if not dataclasses.is_dataclass(config) or isinstance(config, type):
        raise TypeError("config must be a dataclass instance")
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
            raise TypeError("abstained must be a bool")
        if self.abstained != (self.abstain_reason is not None):
            raise ValueError("abstain_reason must be set exactly when the component abstained")
        if self.abstain_reason is not None and type(self.abstain_reason) is not str:
            raise TypeError("abstain_reason must be a string")
        failures = tuple(sorted(set(self.safety_failures)))
        if any(failure not in SAFETY_FAILURES for failure in failures):
            raise ValueError("safety_failures must be drawn from: privacy, provenance")
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


class LibraryLogSilencer:
    """Holds a library's logger above CRITICAL while at least one read is in progress.

    Libraries (pydicom, tifffile) log about odd input, and a record can quote
    a value from the file (a name, an identifier).

    The level, not the logger's ``disabled`` flag, is what silences it: the
    child loggers (``pydicom.pixels.*``, say) inherit the level but not the flag.
    The count keeps overlapping reads (nested, or in threads) from restoring
    the level while another one still runs; the last one out restores it.
    """

    def __init__(self, logger_name: str) -> None:
        self._name = logger_name
        self._lock = threading.Lock()
        self._depth = 0
        self._saved = logging.NOTSET

    def __enter__(self) -> None:
        logger = logging.getLogger(self._name)
        with self._lock:
            if self._depth == 0:
                self._saved = logger.level
                logger.setLevel(logging.CRITICAL + 1)
            self._depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        logger = logging.getLogger(self._name)
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                logger.setLevel(self._saved)
