"""The PNG parse boundary shared by the components that read PNG images.

PYTEST_DONT_REWRITE

Pillow reads the declared size from the header without decoding; it is
checked against the caller's limits before any pixel is decoded, so a small
file that would inflate to a huge image (a decompression bomb) is refused
from its header.  Every failure is a component error with a fixed message.
"""

from __future__ import annotations

import io
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_openmed.components._base import (
    AssetTooLarge,
    CorruptAsset,
    UnsupportedAsset,
    check_decoded_pixels,
    parse_boundary,
)

__all__ = ["PNG_SIGNATURE", "read_png"]

#: The eight bytes every PNG file starts with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

_TOO_LARGE = "image dimensions exceed the component limit"


def read_png(
    asset: bytes,
    *,
    modes: frozenset[str],
    max_side: int,
    max_pixels: int,
    unsupported: str,
    corrupt: str,
    convert: str | None = None,
) -> NDArray[Any]:
    """The pixels of a single-frame PNG whose Pillow mode is in ``modes``.

    With ``convert`` the image is converted to that mode first.  A side above
    ``max_side`` or more than ``max_pixels`` pixels raise :class:`AssetTooLarge`,
    more than the shared decoded-pixel budget :class:`DecodedSizeTooLarge`;
    another mode or an animation raise ``UnsupportedAsset(unsupported)``;
    unreadable bytes raise ``CorruptAsset(corrupt)``.  Both messages are the
    caller's fixed strings.
    """
    from PIL import Image

    with parse_boundary(corrupt), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            image = Image.open(io.BytesIO(asset), formats=["PNG"])
        except Image.DecompressionBombError:  # Pillow's own, far higher, limit
            raise AssetTooLarge(_TOO_LARGE) from None
        with image:
            width, height = image.size
            if not (
                1 <= width <= max_side and 1 <= height <= max_side and width * height <= max_pixels
            ):
                raise AssetTooLarge(_TOO_LARGE)
            check_decoded_pixels(width * height)
            if image.mode not in modes or getattr(image, "n_frames", 1) != 1:
                raise UnsupportedAsset(unsupported)
            image.load()
            pixels = np.array(image if convert is None else image.convert(convert))
    if pixels.shape[:2] != (height, width):  # a converted colour image adds a channel axis
        raise CorruptAsset(corrupt)
    return pixels
