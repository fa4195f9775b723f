"""The shared PNG parse boundary: size from the header first, typed errors with fixed messages."""

from __future__ import annotations

import io
import struct
import traceback
import zlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from PIL import Image

from pytest_openmed.carriers.png import PNG_SIGNATURE, read_png
from pytest_openmed.components._base import (
    MAX_DECODED_PIXELS,
    AssetTooLarge,
    ComponentError,
    CorruptAsset,
    DecodedSizeTooLarge,
    UnsupportedAsset,
)
from tests.components._corruption import corrupted

GREY = frozenset({"L", "I;16"})
UNSUPPORTED = "fixed: PNG mode refused"
CORRUPT = "fixed: unreadable PNG"
CANARY = "CANARY-61f0-png"


def _read(
    asset: bytes, *, convert: str | None = None, modes: frozenset[str] = GREY
) -> NDArray[Any]:
    return read_png(
        asset,
        modes=modes,
        max_side=4096,
        max_pixels=8 * 1024 * 1024,
        unsupported=UNSUPPORTED,
        corrupt=CORRUPT,
        convert=convert,
    )


def _png(image: Image.Image, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", **options)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _declared(width: int, height: int) -> bytes:
    """A grey PNG whose header declares ``width`` × ``height`` over a tiny data stream."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(width + 1)))
        + _chunk(b"IEND", b"")
    )


def _text(value: str) -> object:
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", value)
    return info


@pytest.fixture(scope="module")
def grey() -> NDArray[np.uint8]:
    return np.random.default_rng(3).integers(0, 256, (24, 40)).astype(np.uint8)


def test_grey_pixels_are_read_exactly(grey: NDArray[np.uint8]) -> None:
    pixels = _read(_png(Image.fromarray(grey)))
    assert isinstance(pixels, np.ndarray)
    np.testing.assert_array_equal(pixels, grey)


def test_sixteen_bit_grey_is_read_exactly() -> None:
    values = np.arange(24 * 40, dtype=np.uint16).reshape(24, 40) * 60
    pixels = _read(_png(Image.fromarray(values)))
    np.testing.assert_array_equal(pixels, values)


def test_convert_reads_other_modes_as_the_converted_image(grey: NDArray[np.uint8]) -> None:
    colour = Image.fromarray(np.stack([grey] * 3, axis=2))
    pixels = _read(_png(colour), convert="L", modes=frozenset({"RGB"}))
    np.testing.assert_array_equal(pixels, np.asarray(colour.convert("L")))


@pytest.mark.parametrize(
    ("width", "height"),
    [(4097, 16), (16, 4097), (4096, 2049), (60_000, 60_000)],
    ids=["wide", "tall", "too_many_pixels", "pillow_bomb"],
)
def test_declared_sizes_over_the_limits_are_refused_from_the_header(
    width: int, height: int
) -> None:
    with pytest.raises(AssetTooLarge):
        _read(_declared(width, height))


def test_the_largest_allowed_size_is_read() -> None:
    # The caller allows 4096 × 2048; the shared budget (6 Mi pixels) allows 4096 × 1536.
    pixels = _read(_declared(4096, 1536))
    assert isinstance(pixels, np.ndarray) and pixels.shape == (1536, 4096)


@pytest.mark.parametrize(("width", "height"), [(4096, 1537), (2600, 2600), (3000, 2500)])
def test_the_decoded_pixel_budget_is_checked_from_the_header(width: int, height: int) -> None:
    asset = _declared(width, height)
    assert len(asset) < 16 * 1024  # a small file, a large declared image
    with pytest.raises(DecodedSizeTooLarge) as caught:
        _read(asset)
    assert isinstance(caught.value, AssetTooLarge)
    assert width * height > MAX_DECODED_PIXELS


def test_other_modes_and_animations_are_unsupported_with_the_callers_message(
    grey: NDArray[np.uint8],
) -> None:
    frames = [Image.fromarray(grey), Image.fromarray(255 - grey)]
    for asset in (
        _png(Image.fromarray(np.stack([grey] * 3, axis=2))),
        _png(frames[0], save_all=True, append_images=frames[1:]),
    ):
        with pytest.raises(UnsupportedAsset) as caught:
            _read(asset)
        assert str(caught.value) == UNSUPPORTED


def test_unreadable_bytes_are_corrupt_without_library_text(grey: NDArray[np.uint8]) -> None:
    asset = _png(Image.fromarray(grey), pnginfo=_text(CANARY))
    for broken in (b"", PNG_SIGNATURE, asset[: len(asset) // 2], asset.replace(b"IDAT", b"IDAU")):
        with pytest.raises(CorruptAsset) as caught:
            _read(broken)
        assert str(caught.value) == CORRUPT
        assert CANARY not in "".join(traceback.format_exception(caught.value))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_corrupted_files_give_pixels_or_a_typed_error(
    grey: NDArray[np.uint8],
    data: st.DataObject,
) -> None:
    try:
        pixels = _read(data.draw(corrupted(_png(Image.fromarray(grey)), header=64)))
    except ComponentError:
        return
    assert isinstance(pixels, np.ndarray) and pixels.shape == grey.shape
