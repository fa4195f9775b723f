"""The size limits every carrier shares: bytes per asset and decoded pixels per run."""

from __future__ import annotations

from pytest_openmed.errors import DecodedSizeTooLarge

__all__ = ["MAX_ASSET_BYTES", "MAX_DECODED_PIXELS", "check_decoded_pixels"]

#: Largest asset a pack holds and a component reads (4 MiB).
MAX_ASSET_BYTES = 4 * 1024 * 1024

#: Most pixels one component run decodes (frames × rows × columns, summed over
#: everything it decodes; a pixel counts once whatever its samples).  Checked
#: against the header before any pixel is decoded: a small asset can declare a
#: huge image, and every component holds several float copies of what it
#: decodes.  6 Mi pixels keeps one run under 512 MiB peak
#: (``benchmarks/resource_bounds.py``) and covers a 2048² slide pyramid verified tile by tile.
MAX_DECODED_PIXELS = 6 * 1024 * 1024


def check_decoded_pixels(pixels: int) -> None:
    """Refuse a declared (or accumulated) decoded size past :data:`MAX_DECODED_PIXELS`."""
    if pixels > MAX_DECODED_PIXELS:
        raise DecodedSizeTooLarge("declared image size exceeds the decoded-pixel budget")
