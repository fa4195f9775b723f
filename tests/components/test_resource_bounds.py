"""One decoded-pixel budget, checked from the header before any pixel is decoded, in every reader.

Issue 11: small in-limit assets amplified memory (a 64 KiB tiled TIFF peaked at
1.31 GiB in wsi_tiles, an 8 KiB PNG at 461 MiB in burned_in, a 4 MiB DICOM at
486 MiB in dicom_frames).  Each crafted asset below is small and declares more
pixels than the budget; every component reading it refuses it with the typed
``DecodedSizeTooLarge`` while holding a few MiB at most.  Peak RSS and time of
whole runs are measured by ``benchmarks/resource_bounds.py``.
"""

from __future__ import annotations

import traceback
import tracemalloc
from collections.abc import Callable

import pytest

from pytest_openmed.components import (
    MAX_DECODED_PIXELS,
    AssetTooLarge,
    DecodedSizeTooLarge,
    burned_in,
    dicom_frames,
    ecg_quality,
    forms,
    wsi_tiles,
)
from pytest_openmed.components._base import check_decoded_pixels
from pytest_openmed.development.sources.oversized import (
    declared_dicom,
    declared_png,
    declared_tiff,
)

Run = Callable[[bytes], object]

#: (asset builder, components that must refuse it)
CASES: dict[str, tuple[Callable[[], bytes], tuple[Run, ...]]] = {
    "png-2600-square": (lambda: declared_png(2600, 2600), (burned_in.run, forms.run)),
    "tiff-8192-square": (lambda: declared_tiff(8192, 8192), (wsi_tiles.run,)),
    "tiff-65536-wide": (lambda: declared_tiff(65536, 4096, tile=2048), (wsi_tiles.run,)),
    "dicom-4096-frames": (
        lambda: declared_dicom(4096, 4096, 4096, pixel_bytes=1024),
        (dicom_frames.run, burned_in.run, ecg_quality.run),
    ),
    "dicom-one-huge-frame": (
        lambda: declared_dicom(1, 8192, 8192, pixel_bytes=1024),
        (dicom_frames.run, burned_in.run),
    ),
}


def test_the_budget_is_defined_once() -> None:
    assert wsi_tiles.MAX_DECODED_PIXELS is MAX_DECODED_PIXELS
    assert dicom_frames.MAX_PIXELS is MAX_DECODED_PIXELS
    check_decoded_pixels(MAX_DECODED_PIXELS)
    with pytest.raises(DecodedSizeTooLarge):
        check_decoded_pixels(MAX_DECODED_PIXELS + 1)
    assert issubclass(DecodedSizeTooLarge, AssetTooLarge)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_small_asset_declaring_a_huge_image_is_refused_before_decoding(case: str) -> None:
    build, runs = CASES[case]
    asset = build()
    assert len(asset) <= 1024 * 1024  # far inside the 4 MiB pack limit
    for run in runs:
        tracemalloc.start()
        try:
            with pytest.raises(DecodedSizeTooLarge) as caught:
                run(asset)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 16 * 1024 * 1024, run  # nothing the size of the declared image
        assert str(caught.value) == "declared image size exceeds the decoded-pixel budget"
        assert caught.value.__cause__ is None and caught.value.__context__ is None
        assert "Traceback" not in "".join(traceback.format_exception_only(caught.value))


def test_an_asset_at_the_budget_is_read() -> None:
    # 2508² = 6,290,064 pixels ≤ 6 Mi: decoded and processed, not refused.
    assert 2508 * 2508 <= MAX_DECODED_PIXELS
    result = forms.run(declared_png(2508, 2508))
    assert result.abstained or result.output


def test_a_pyramid_whose_tiles_outrun_the_budget_stops_at_it() -> None:
    """The coarsest level fits, so the header passes; verifying tiles runs into the budget."""
    import io

    import numpy as np
    import tifffile

    level0 = np.empty((2048, 4096, 3), dtype=np.uint8)
    level0[:] = (200, 120, 170)
    levels = [level0, level0[::2, ::2], level0[::4, ::4]]
    buffer = io.BytesIO()
    options = {"tile": (256, 256), "photometric": "rgb", "compression": "zlib", "metadata": None}
    with tifffile.TiffWriter(buffer) as writer:
        writer.write(levels[0], subifds=2, **options)
        for level in levels[1:]:
            writer.write(level, subfiletype=1, **options)
    assert 4096 * 2048 > MAX_DECODED_PIXELS >= 1024 * 512
    tracemalloc.start()
    try:
        with pytest.raises(DecodedSizeTooLarge):
            wsi_tiles.run(buffer.getvalue())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * MAX_DECODED_PIXELS + 64 * 1024 * 1024  # held tiles stay within the budget
