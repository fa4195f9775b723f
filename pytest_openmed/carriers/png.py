"""The PNG carrier: the signature, one strict sniff over the chunk layout, one decode.

Sniff (:func:`is_png`, no library): the 8-byte signature, a well-formed
``IHDR`` first chunk (length 13, CRC checked, size 1 to 2³¹ − 1, a bit depth
allowed for its colour type, compression and filter method 0, interlace 0 or
1), then chunks whose lengths walk exactly to one final ``IEND``, with at
least one ``IDAT``.

Decode (:func:`read_png`): Pillow reads the declared size from the header without decoding; it is
checked against the caller's limits before any pixel is decoded, so a small
file that would inflate to a huge image (a decompression bomb) is refused
from its header.  Every failure is a component error with a fixed message.
"""

from __future__ import annotations

import io
import struct
import warnings
import zlib
from typing import TYPE_CHECKING, Any

from pytest_openmed.carriers.boundary import parse_boundary
from pytest_openmed.carriers.limits import check_decoded_pixels
from pytest_openmed.errors import AssetTooLarge, CorruptAsset, UnsupportedAsset

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["PNG_IEND", "PNG_SIGNATURE", "is_png", "read_png"]

#: The eight bytes every PNG file starts with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The final chunk of every PNG file (empty ``IEND`` and its CRC).
PNG_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"

#: Bit depths allowed for each PNG colour type (PNG spec, 11.2.2).
_BIT_DEPTHS = {0: {1, 2, 4, 8, 16}, 2: {8, 16}, 3: {1, 2, 4, 8}, 4: {8, 16}, 6: {8, 16}}
_MAX_SIDE = 2**31 - 1


def is_png(data: bytes) -> bool:
    """Whether ``data`` is structurally a PNG file (header and chunk walk; no pixel decoded)."""
    if not data.startswith(PNG_SIGNATURE):
        return False
    if len(data) < len(PNG_SIGNATURE) + 25 + len(PNG_IEND):
        return False
    length, chunk_type = struct.unpack(">I4s", data[8:16])
    if length != 13 or chunk_type != b"IHDR":
        return False
    body = data[16:29]
    (crc,) = struct.unpack(">I", data[29:33])
    if zlib.crc32(chunk_type + body) != crc:
        return False
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(
        ">IIBBBBB", body
    )
    if not (0 < width <= _MAX_SIDE and 0 < height <= _MAX_SIDE):
        return False
    if depth not in _BIT_DEPTHS.get(colour, ()) or compression or filtering:
        return False
    return interlace in (0, 1) and data.endswith(PNG_IEND) and _chunks_walk(data)


def _chunks_walk(data: bytes) -> bool:
    """The chunks after ``IHDR`` reach exactly the final ``IEND``, with an ``IDAT`` among them.

    Only lengths and types are read (the image data is the decoder's
    business), so foreign bytes between the header and ``IEND`` are refused.
    """
    end = len(data) - len(PNG_IEND)
    position = 33
    image_data = False
    while position < end:
        if position + 12 > end:
            return False
        length, chunk_type = struct.unpack_from(">I4s", data, position)
        if length > _MAX_SIDE or not (chunk_type.isalpha() and chunk_type.isascii()):
            return False
        if chunk_type in (b"IHDR", b"IEND"):
            return False
        image_data = image_data or chunk_type == b"IDAT"
        position += 12 + length
    return image_data and position == end


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
    import numpy as np
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
