"""The synthetic pyramidal TIFF generator: format, determinism and the truth it promises."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.development.sources import SLICES, GeneratedSource
from pytest_openmed.development.sources.wsi import (
    MEDIA_TYPE,
    TILE,
    generate_wsi_tiles,
    render_tissue_mask,
)


def _levels(asset: bytes) -> tuple[list[Any], list[np.ndarray[Any, Any]]]:
    import tifffile

    with tifffile.TiffFile(io.BytesIO(asset)) as tif:
        series = tif.series[0]
        pages = [level.keyframe for level in series.levels]
        tags = [{tag.name: tag.value for tag in page.tags} for page in pages]
        return tags, [level.asarray() for level in series.levels]


def _block_mean(image: np.ndarray[Any, Any], d: int) -> np.ndarray[Any, Any]:
    h, w = image.shape[0] // d, image.shape[1] // d
    sums = image.reshape(h, d, w, d, 3).sum(axis=(1, 3), dtype=np.uint32)
    return np.asarray((sums + d * d // 2) // (d * d), dtype=np.uint8)


@pytest.fixture(scope="module")
def sources() -> dict[str, GeneratedSource]:
    return {name: generate_wsi_tiles(4, name, size=1024) for name in SLICES}


def test_asset_is_a_tiled_rgb_pyramid_without_volatile_tags(
    sources: dict[str, GeneratedSource],
) -> None:
    for name, source in sources.items():
        assert source.media_type == MEDIA_TYPE and source.slice == name
        tags, levels = _levels(source.asset)
        assert [level.shape for level in levels] == [(1024 >> n, 1024 >> n, 3) for n in range(4)]
        for n, page in enumerate(tags):
            assert (page["TileWidth"], page["TileLength"]) == (TILE, TILE)
            assert page.get("NewSubfileType", 0) == (1 if n else 0)
            for volatile in ("DateTime", "Software", "ImageDescription"):
                assert volatile not in page
        assert len(source.asset) < 4 * 1024 * 1024


def test_same_arguments_give_identical_bytes_and_others_differ(
    sources: dict[str, GeneratedSource],
) -> None:
    again = generate_wsi_tiles(4, "nominal", size=1024)
    assert again.asset == sources["nominal"].asset
    assert dict(again.truth) == dict(sources["nominal"].truth)
    assert generate_wsi_tiles(5, "nominal", size=1024).asset != again.asset
    assert len({source.asset for source in sources.values()}) == 3


def test_consistent_levels_are_exact_block_means(sources: dict[str, GeneratedSource]) -> None:
    for name in ("nominal", "adverse_acquisition"):
        _, levels = _levels(sources[name].asset)
        for n in range(1, 4):
            assert np.array_equal(_block_mean(levels[0], 2**n), levels[n])


def test_patch_inconsistency_is_where_the_truth_says(sources: dict[str, GeneratedSource]) -> None:
    source = sources["ambiguity_conflict"]
    x, y, w, h = source.truth["inconsistent_region"]
    _, levels = _levels(source.asset)
    for n in range(1, 4):
        d = 2**n
        differs = np.any(_block_mean(levels[0], d) != levels[n], axis=2)
        rows, cols = np.nonzero(differs)
        assert rows.size
        # Every disagreement lies in blocks touching the displaced patch.
        assert rows.min() >= y // d and rows.max() <= (y + h - 1) // d
        assert cols.min() >= x // d and cols.max() <= (x + w - 1) // d
    mask = render_tissue_mask(source.truth)
    assert mask[y : y + h, x : x + w].mean() > 0.9  # the patch lies in tissue


def test_shift_inconsistency_displaces_every_reduced_level() -> None:
    source = generate_wsi_tiles(1, "nominal", size=512, levels=3, inconsistency="shift")
    dy, dx = source.truth["displacement"]
    _, levels = _levels(source.asset)
    rolled = np.roll(levels[0], (dy, dx), axis=(0, 1))
    for n in (1, 2):
        assert np.array_equal(_block_mean(rolled, 2**n), levels[n])
        assert not np.array_equal(_block_mean(levels[0], 2**n), levels[n])


def test_tissue_mask_matches_the_painted_tissue(sources: dict[str, GeneratedSource]) -> None:
    for source in sources.values():
        _, levels = _levels(source.asset)
        mask = render_tissue_mask(source.truth)
        rgb = levels[0].astype(np.int16)
        saturation_proxy = rgb.max(axis=2) - rgb.min(axis=2)
        assert mask.mean() == pytest.approx(source.truth["tissue_fraction"], abs=1e-6)
        assert 0.1 < mask.mean() < 0.6
        # Tissue is coloured, background (and grey debris) is not.
        assert np.median(saturation_proxy[mask]) > 1.5 * np.percentile(saturation_proxy[~mask], 99)


def test_adverse_slice_is_pale_on_a_tinted_background(sources: dict[str, GeneratedSource]) -> None:
    def medians(source: GeneratedSource) -> tuple[float, float]:
        _, levels = _levels(source.asset)
        rgb = levels[0].astype(np.int16)
        spread = rgb.max(axis=2) - rgb.min(axis=2)
        mask = render_tissue_mask(source.truth)
        return float(np.median(spread[mask])), float(np.median(spread[~mask]))

    nominal_tissue, nominal_background = medians(sources["nominal"])
    adverse_tissue, adverse_background = medians(sources["adverse_acquisition"])
    assert adverse_tissue < nominal_tissue / 2
    assert adverse_background > nominal_background


@pytest.mark.parametrize(
    ("args", "knobs"),
    [
        ((-1, "nominal"), {}),
        ((0.5, "nominal"), {}),
        ((0, "cloudy"), {}),
        ((0, "nominal"), {"size": 500}),
        ((0, "nominal"), {"size": 8192}),
        ((0, "nominal"), {"levels": 2}),
        ((0, "nominal"), {"size": 1000}),
        ((0, "nominal"), {"levels": 7}),
        ((0, "nominal"), {"inconsistency": "sideways"}),
    ],
)
def test_bad_arguments_are_refused(args: tuple[Any, ...], knobs: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)):
        generate_wsi_tiles(*args, **knobs)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), slice_name=st.sampled_from(SLICES))
def test_truth_invariants_hold_for_any_seed(seed: int, slice_name: str) -> None:
    source = generate_wsi_tiles(seed, slice_name, size=512, levels=3)
    truth = source.truth
    assert truth["downsamples"] == [1, 2, 4] and truth["size"] == [512, 512]
    assert 0.0 < truth["tissue_fraction"] < 1.0
    region = truth["inconsistent_region"]
    assert (region is not None) == (slice_name == "ambiguity_conflict")
    if region is not None:
        x, y, w, h = region
        assert 0 <= x and 0 <= y and x + w <= 512 and y + h <= 512
