"""wsi_tiles provenance: any standard downsampling of the same slide holds; foreign pixels do not.

Issue 11: correct pyramids whose reduced levels were made with common filters
(PIL Lanczos / bilinear / nearest, scikit-image's Gaussian pyramid, OpenCV
linear / area) must not be a ``provenance`` failure, and provenance must still
catch a tile from another slide, a level built from another image and a level
with the wrong geometry.  Every pyramid here is built from a generated level 0
with the named library, written with tifffile, and run under both configurations.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
from numpy.typing import NDArray

from pytest_openmed.components.wsi_tiles import CONFIG_A, CONFIG_B, run
from pytest_openmed.development.sources.wsi import encode_pyramid, generate_wsi_tiles

Image = NDArray[np.uint8]
SIZE = 1024
LEVELS = 3  # downsamples 1, 2, 4: A verifies level 1, B level 2
#: B's level and geometry with every tile verified: what its every-4th-tile sample
#: reaches is pinned in test_wsi_tiles; here the check itself is under test.
CONFIG_B_ALL = replace(CONFIG_B, verify_every=1)


def _level0(seed: int, slice_name: str = "nominal") -> Image:
    import tifffile

    asset = generate_wsi_tiles(seed, slice_name, size=SIZE, levels=LEVELS).asset
    with tifffile.TiffFile(io.BytesIO(asset)) as tif:
        return np.asarray(tif.series[0].levels[0].asarray())


def _pil(method: str) -> Callable[[Image, int], Image]:
    def reduce(image: Image, d: int) -> Image:
        from PIL import Image as PILImage

        h, w = image.shape[0] // d, image.shape[1] // d
        filt = getattr(PILImage.Resampling, method)
        return np.asarray(PILImage.fromarray(image).resize((w, h), filt))

    return reduce


def _skimage_gaussian_pyramid(image: Image, d: int) -> Image:
    from skimage.transform import pyramid_gaussian

    layers = list(pyramid_gaussian(image, max_layer=int(np.log2(d)), channel_axis=-1))
    return np.clip(np.rint(layers[-1] * 255.0), 0, 255).astype(np.uint8)


def _opencv(interpolation: str) -> Callable[[Image, int], Image]:
    def reduce(image: Image, d: int) -> Image:
        import cv2

        h, w = image.shape[0] // d, image.shape[1] // d
        return np.asarray(cv2.resize(image, (w, h), interpolation=getattr(cv2, interpolation)))

    return reduce


FILTERS: dict[str, Callable[[Image, int], Image]] = {
    "pil-lanczos": _pil("LANCZOS"),
    "pil-bilinear": _pil("BILINEAR"),
    "pil-nearest": _pil("NEAREST"),
    "skimage-gaussian-pyramid": _skimage_gaussian_pyramid,
    "opencv-linear": _opencv("INTER_LINEAR"),
    "opencv-area": _opencv("INTER_AREA"),
}


def _pyramid(level0: Image, reduce: Callable[[Image, int], Image]) -> list[Image]:
    return [level0, *(reduce(level0, 2**n) for n in range(1, LEVELS))]


@pytest.fixture(scope="module")
def slides() -> dict[str, Image]:
    return {
        "nominal": _level0(0),
        "adverse": _level0(0, "adverse_acquisition"),
        "other": _level0(4),
    }


@pytest.mark.parametrize("slide", ["nominal", "adverse"])
@pytest.mark.parametrize("name", sorted(FILTERS))
def test_a_pyramid_made_with_a_common_filter_holds_provenance(
    slides: dict[str, Image], name: str, slide: str
) -> None:
    asset = encode_pyramid(_pyramid(slides[slide], FILTERS[name]))
    for config in (CONFIG_A, CONFIG_B):
        result = run(asset, config)
        assert result.output["tiles"] and result.output["level"] > 0
        assert result.safety_failures == ()


@pytest.mark.parametrize("name", ["pil-lanczos", "pil-nearest", "opencv-area"])
def test_a_tile_taken_from_another_slide_is_caught(slides: dict[str, Image], name: str) -> None:
    levels = _pyramid(slides["nominal"], FILTERS[name])
    other = FILTERS[name](slides["other"], 2)
    levels[1] = levels[1].copy()
    levels[1][128:256, 256:384] = other[128:256, 256:384]  # one plan tile of A
    assert run(encode_pyramid(levels), CONFIG_A).safety_failures == ("provenance",)


@pytest.mark.parametrize("name", ["pil-lanczos", "pil-bilinear", "skimage-gaussian-pyramid"])
def test_a_level_built_from_another_image_is_caught(slides: dict[str, Image], name: str) -> None:
    reduce = FILTERS[name]
    foreign = _pyramid(slides["other"], reduce)
    own = _pyramid(slides["nominal"], reduce)
    assert run(encode_pyramid([own[0], foreign[1], own[2]]), CONFIG_A).safety_failures == (
        "provenance",
    )
    assert run(encode_pyramid([own[0], own[1], foreign[2]]), CONFIG_B_ALL).safety_failures == (
        "provenance",
    )


def _rescaled(level0: Image, d: int, scale: float) -> Image:
    """Level ``d`` of ``level0`` magnified by ``scale`` first: the right size, the wrong geometry."""
    from PIL import Image as PILImage

    h, w = level0.shape[0] // d, level0.shape[1] // d
    wider = PILImage.fromarray(level0).resize(
        (round(w * scale), round(h * scale)), PILImage.Resampling.LANCZOS
    )
    return np.asarray(wider)[:h, :w]


@pytest.mark.parametrize(
    "geometry",
    ["rescaled-3pct", "shifted-1px", "shifted-2px", "mirrored"],
)
def test_a_level_with_the_wrong_geometry_is_caught(slides: dict[str, Image], geometry: str) -> None:
    level0 = slides["nominal"]
    levels = _pyramid(level0, FILTERS["pil-lanczos"])
    if geometry == "rescaled-3pct":
        wrong = [_rescaled(level0, 2, 1.03), _rescaled(level0, 4, 1.03)]
    elif geometry.startswith("shifted"):  # level pixels, at each level
        step = int(geometry[-3])
        wrong = [np.roll(level, (step, -step), axis=(0, 1)) for level in levels[1:]]
    else:
        wrong = [level[:, ::-1] for level in levels[1:]]
    asset = encode_pyramid([level0, *wrong])
    for config in (CONFIG_A, CONFIG_B_ALL):
        assert run(asset, config).safety_failures == ("provenance",)
