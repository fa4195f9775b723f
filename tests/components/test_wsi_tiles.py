"""wsi_tiles: tissue coverage, exact level-0 provenance and provenance failures, against truth.

Targets (issue 5): the tile plan covers ≥ 99 % of the generator's tissue area;
every provenance box maps back to level 0 exactly (checked here by re-reading
the pyramid with tifffile and comparing each tile with the block mean of its
level-0 box); a pyramid level inconsistent with level 0 is a ``provenance``
safety failure.
"""

from __future__ import annotations

import io
import traceback
import tracemalloc
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from numpy.typing import NDArray

from pytest_openmed._canonical import is_digest, sha256_digest
from pytest_openmed.components import wsi_tiles
from pytest_openmed.components._base import (
    MAX_ASSET_BYTES,
    AssetTooLarge,
    ComponentError,
    ComponentOutput,
    CorruptAsset,
    UnsupportedAsset,
    config_digest,
)
from pytest_openmed.components.wsi_tiles import CONFIG_A, CONFIG_B, TilePlanConfig, run
from pytest_openmed.development.sources import GeneratedSource
from pytest_openmed.development.sources.wsi import generate_wsi_tiles, render_tissue_mask
from pytest_openmed.schemas import load_schema

from ._cases import ComponentCase
from ._corruption import corrupted, outputs_or_refusals

VALIDATOR = Draft202012Validator(load_schema("component-wsi_tiles"))
#: Ambiguity seeds: B's every-4th-tile sample catches the displaced patch in 0, misses it in 3.
AMBIGUITY_SEEDS = (0, 3)


class Case(ComponentCase):
    """A generated slide, with its pyramid re-read by tifffile."""

    component = wsi_tiles

    def __init__(self, source: GeneratedSource) -> None:
        import tifffile

        super().__init__(source)
        with tifffile.TiffFile(io.BytesIO(source.asset)) as tif:
            self.levels = [level.asarray() for level in tif.series[0].levels]


@pytest.fixture(scope="module")
def nominal() -> list[Case]:
    return [Case(generate_wsi_tiles(seed, "nominal")) for seed in (0, 1)]


@pytest.fixture(scope="module")
def adverse() -> list[Case]:
    return [Case(generate_wsi_tiles(0, "adverse_acquisition"))]


@pytest.fixture(scope="module")
def ambiguous() -> list[Case]:
    return [Case(generate_wsi_tiles(seed, "ambiguity_conflict")) for seed in AMBIGUITY_SEEDS]


@pytest.fixture(scope="module")
def small() -> bytes:
    return generate_wsi_tiles(5, "nominal", size=512, levels=3).asset


def _valid(result: ComponentOutput) -> dict[str, Any]:
    document = result.to_dict()
    VALIDATOR.validate(document)
    return document["output"]  # type: ignore[no-any-return]


def _covered(case: Case, result: ComponentOutput) -> tuple[int, int]:
    """(tissue pixels inside the plan's level-0 boxes, all tissue pixels)."""
    mask = render_tissue_mask(case.truth)
    union = np.zeros_like(mask)
    for tile in result.output["tiles"]:
        x, y, w, h = tile["level0_box"]
        union[y : y + h, x : x + w] = True
    return int((mask & union).sum()), int(mask.sum())


def _block_mean(region: NDArray[np.uint8], d: int) -> NDArray[np.uint8]:
    """The generator's rule: exact d × d block mean, rounded half up."""
    h, w = region.shape[0] // d, region.shape[1] // d
    sums = region.reshape(h, d, w, d, 3).sum(axis=(1, 3), dtype=np.uint32)
    return np.asarray((sums + d * d // 2) // (d * d), dtype=np.uint8)


def _write(levels: list[NDArray[np.uint8]], **options: Any) -> bytes:
    import tifffile

    settings_: dict[str, Any] = {"photometric": "rgb", "metadata": None, "software": False}
    settings_.update(options)
    buffer = io.BytesIO()
    with tifffile.TiffWriter(buffer) as writer:
        writer.write(levels[0], subifds=len(levels) - 1, **settings_)
        for level in levels[1:]:
            writer.write(level, subfiletype=1, **settings_)
    return buffer.getvalue()


# -- accuracy --------------------------------------------------------------------------------


def test_plan_covers_tissue_on_every_slice_with_a_and_on_nominal_with_b(
    nominal: list[Case], adverse: list[Case], ambiguous: list[Case]
) -> None:
    for case in nominal + adverse + ambiguous:
        inside, total = _covered(case, case.a)
        assert inside / total >= 0.99
    for case in nominal:
        inside, total = _covered(case, case.b)
        assert inside / total >= 0.99


def test_plan_is_not_the_whole_slide(nominal: list[Case]) -> None:
    for case in nominal:
        for result, level in ((case.a, 1), (case.b, 2)):
            height, width = case.levels[level].shape[:2]
            size = CONFIG_A.tile_size if level == 1 else CONFIG_B.tile_size
            assert 0 < len(result.output["tiles"]) < (height // size) * (width // size)


def test_every_provenance_box_maps_back_to_level_zero_exactly(
    nominal: list[Case], adverse: list[Case]
) -> None:
    for case in nominal + adverse:
        for result in (case.a, case.b):
            output = _valid(result)
            d, level = output["downsample"], case.levels[output["level"]]
            assert d == case.truth["downsamples"][output["level"]]
            for tile in output["tiles"]:
                x, y, w, h = tile["level_box"]
                assert tile["level0_box"] == [x * d, y * d, w * d, h * d]
                x0, y0, w0, h0 = tile["level0_box"]
                region = case.levels[0][y0 : y0 + h0, x0 : x0 + w0]
                assert np.array_equal(_block_mean(region, d), level[y : y + h, x : x + w])
            assert result.safety_failures == ()
            assert output["source_digest"] == sha256_digest(case.source.asset)


def test_inconsistent_patch_is_a_provenance_failure(ambiguous: list[Case]) -> None:
    """A verifies every tile; B verifies tiles 0, 4, 8, … of its plan, as documented."""
    b_outcomes = []
    for case in ambiguous:
        assert _valid(case.a) and case.a.safety_failures == ("provenance",)
        x, y, w, h = case.truth["inconsistent_region"]
        d = case.b.output["downsample"]
        sampled = [t["level0_box"] for t in case.b.output["tiles"][:: CONFIG_B.verify_every]]
        touches = any(
            bx < x + w and x < bx + bw and by < y + h and y < by + bh for bx, by, bw, bh in sampled
        )
        cell = 32 * d  # a verification cell, in level-0 pixels
        holds_cell = any(
            x <= cx and cx + cell <= x + w and y <= cy and cy + cell <= y + h
            for bx, by, bw, bh in sampled
            for cx in range(bx, bx + bw, cell)
            for cy in range(by, by + bh, cell)
        )
        flagged = case.b.safety_failures == ("provenance",)
        if holds_cell:
            assert flagged
        if not touches:
            assert not flagged
        b_outcomes.append(flagged)
    assert b_outcomes == [True, False]  # B's sample really can miss what A catches


def test_shifted_pyramid_fails_provenance_under_both_configs() -> None:
    source = generate_wsi_tiles(2, "nominal", size=1024, inconsistency="shift")
    assert source.truth["displacement"] is not None
    for config in (CONFIG_A, CONFIG_B):
        result = run(source.asset, config)
        assert result.safety_failures == ("provenance",) and not result.abstained
        assert _valid(result)["tiles"]


def test_b_misses_pale_tissue_that_a_finds(adverse: list[Case]) -> None:
    pooled_a, pooled_b, total = 0, 0, 0
    for case in adverse:
        inside_a, tissue = _covered(case, case.a)
        inside_b, _ = _covered(case, case.b)
        assert inside_b < inside_a
        assert case.b.output["tissue_threshold"] > case.a.output["tissue_threshold"]
        pooled_a, pooled_b, total = pooled_a + inside_a, pooled_b + inside_b, total + tissue
    assert pooled_a / total >= 0.99 > pooled_b / total


def test_configurations_choose_different_levels_and_methods(nominal: list[Case]) -> None:
    for case in nominal:
        a, b = _valid(case.a), _valid(case.b)
        assert (a["level"], a["downsample"], a["tissue_method"]) == (1, 2, "otsu_saturation")
        assert (b["level"], b["downsample"], b["tissue_method"]) == (2, 4, "fixed_saturation")
        assert b["tissue_threshold"] == CONFIG_B.threshold
        assert a["tissue_threshold"] >= CONFIG_A.threshold


def test_overlapping_tiles_keep_exact_provenance(nominal: list[Case]) -> None:
    case = nominal[0]
    config = TilePlanConfig(
        target_downsample=2,
        tile_size=256,
        overlap=64,
        tissue_method="otsu_saturation",
        threshold=0.04,
        mask_dilation=1,
        verify_every=1,
        provenance_tolerance=0.5,
    )
    output = _valid(result := run(case.source.asset, config))
    boxes = [tile["level_box"] for tile in output["tiles"]]
    assert {x % 192 for x, _, _, _ in boxes} == {0} and len(boxes) > len(case.a.output["tiles"])
    assert result.safety_failures == ()
    inside, total = _covered(case, result)
    assert inside / total >= 0.99


def test_blank_slide_abstains_without_tiles() -> None:
    blank = np.full((512, 512, 3), 244, dtype=np.uint8)
    asset = _write([blank, blank[::2, ::2], blank[::4, ::4]], tile=(256, 256), compression="zlib")
    for config in (CONFIG_A, CONFIG_B):
        output = _valid(result := run(asset, config))
        assert result.abstained and result.abstain_reason == "no_tissue"
        assert output["tiles"] == []


def test_uncompressed_single_level_slide_is_read(nominal: list[Case]) -> None:
    level = np.ascontiguousarray(nominal[0].levels[2])  # 512 × 512, as a one-level slide
    output = _valid(result := run(_write([level], tile=(128, 128)), CONFIG_A))
    assert output["level"] == 0 and output["downsample"] == 1
    assert output["tiles"] and result.safety_failures == ()


# -- determinism and configuration -----------------------------------------------------------


def test_same_bytes_and_config_give_identical_json(ambiguous: list[Case]) -> None:
    case = ambiguous[0]
    assert run(case.source.asset, CONFIG_A).to_json() == case.a.to_json()
    assert run(case.source.asset, CONFIG_B).to_json() == case.b.to_json()


def test_config_digests_are_stable_and_distinct() -> None:
    copy = TilePlanConfig(**{f: getattr(CONFIG_A, f) for f in TilePlanConfig.__slots__})
    assert config_digest(copy) == config_digest(CONFIG_A) != config_digest(CONFIG_B)
    assert is_digest(config_digest(CONFIG_B))


@pytest.mark.parametrize(
    "changes",
    [
        {"target_downsample": 0},
        {"tile_size": 8},
        {"overlap": 256},
        {"tissue_method": "magic"},
        {"threshold": 1.5},
        {"threshold": float("inf")},
        {"verify_every": 0},
        {"mask_dilation": True},
        {"provenance_tolerance": -1.0},
    ],
)
def test_invalid_configs_are_refused(changes: dict[str, Any]) -> None:
    fields = {f: getattr(CONFIG_B, f) for f in TilePlanConfig.__slots__}
    with pytest.raises((TypeError, ValueError)):
        TilePlanConfig(**{**fields, **changes})


_ANY = st.one_of(
    st.integers(-10, 5000), st.floats(allow_nan=True), st.booleans(), st.none(), st.text(max_size=3)
)


@settings(max_examples=100, deadline=None)
@given(values=st.fixed_dictionaries({f: _ANY for f in TilePlanConfig.__slots__}))
def test_config_validation_accepts_or_refuses_with_typed_errors(values: dict[str, Any]) -> None:
    fields = {f: getattr(CONFIG_A, f) for f in TilePlanConfig.__slots__}
    for name, value in values.items():
        try:
            config = TilePlanConfig(**{**fields, name: value})
        except (TypeError, ValueError):
            continue
        assert is_digest(config_digest(config))
        assert 0 <= config.overlap < config.tile_size


def test_run_refuses_a_foreign_config(small: bytes) -> None:
    with pytest.raises(TypeError):
        run(small, CONFIG_A.__class__.__name__)  # type: ignore[arg-type]


# -- typed errors ----------------------------------------------------------------------------


def test_non_bytes_and_oversized_assets_are_refused(small: bytes) -> None:
    with pytest.raises(TypeError):
        run(memoryview(small))  # type: ignore[arg-type]
    with pytest.raises(AssetTooLarge):
        run(small + bytes(MAX_ASSET_BYTES))


@pytest.mark.parametrize(
    "asset", [b"", b"II*\x00", b"MM\x00*" + bytes(32), b"\x89PNG\r\n" + bytes(9)]
)
def test_garbage_is_corrupt(asset: bytes) -> None:
    with pytest.raises(CorruptAsset):
        run(asset)


def test_tiff_without_tiles_is_unsupported() -> None:
    image = np.full((256, 256, 3), 200, dtype=np.uint8)
    with pytest.raises(UnsupportedAsset):
        run(_write([image, image[::2, ::2]], rowsperstrip=16))


@pytest.mark.parametrize(
    ("shape", "options"),
    [
        ((256, 256), {"photometric": "minisblack"}),
        ((256, 256, 3), {"photometric": "rgb", "dtype": np.uint16}),
        ((3, 256, 256), {"planarconfig": "separate"}),
    ],
)
def test_unsupported_layouts(shape: tuple[int, ...], options: dict[str, Any]) -> None:
    image = np.full(shape, 200, dtype=options.pop("dtype", np.uint8))
    with pytest.raises(UnsupportedAsset):
        run(_write([image], tile=(64, 64), **options))


def _patch_tag(asset: bytes, name: str, value: int) -> bytes:
    """Overwrite the inline value of a SHORT or LONG tag of the first page."""
    import tifffile

    with tifffile.TiffFile(io.BytesIO(asset)) as tif:
        page = tif.pages.first
        tag = page.tags[name]
        offset, width = tag.valueoffset, {3: 2, 4: 4}[int(tag.dtype)]
    data = bytearray(asset)
    data[offset : offset + width] = value.to_bytes(width, "little")
    return bytes(data)


@pytest.mark.parametrize("compression", [5, 7, 34712])  # LZW, JPEG, JPEG 2000
def test_other_compressions_are_unsupported(small: bytes, compression: int) -> None:
    with pytest.raises(UnsupportedAsset):
        run(_patch_tag(small, "Compression", compression))


def test_non_integer_pyramid_is_unsupported() -> None:
    """tifffile leaves such a SubIFD out of the pyramid; the component says so."""
    level0 = np.full((512, 512, 3), 200, dtype=np.uint8)
    level1 = np.full((384, 384, 3), 200, dtype=np.uint8)
    with pytest.raises(UnsupportedAsset):
        run(_write([level0, level1], tile=(128, 128)))


def test_declared_size_is_bounded_before_decoding(small: bytes) -> None:
    wide = _patch_tag(_patch_tag(small, "ImageWidth", 60000), "ImageLength", 60000)
    with pytest.raises(UnsupportedAsset):
        run(wide)


def test_deflate_bomb_tile_is_refused_without_inflating_it() -> None:
    def tiles(count: int, bomb: bool) -> Iterator[bytes]:
        for index in range(count):
            size = 64 * 1024 * 1024 if bomb and index == 0 else 64 * 64 * 3
            yield zlib.compress(bytes(size), 9)

    import tifffile

    buffer = io.BytesIO()
    common: dict[str, Any] = {
        "dtype": "uint8",
        "tile": (64, 64),
        "photometric": "rgb",
        "compression": "zlib",
        "metadata": None,
        "software": False,
    }
    with tifffile.TiffWriter(buffer) as writer:
        writer.write(tiles(4, False), shape=(128, 128, 3), subifds=1, **common)
        writer.write(tiles(1, True), shape=(64, 64, 3), subfiletype=1, **common)
    tracemalloc.start()
    try:
        with pytest.raises(CorruptAsset):
            run(buffer.getvalue())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024  # the 64 MiB tile was never inflated


def test_canaries_never_surface(nominal: list[Case]) -> None:
    canary = "canarywsitiles5d1e"
    level = np.ascontiguousarray(nominal[0].levels[2])
    planted = _write(
        [level, np.ascontiguousarray(nominal[0].levels[3])],
        tile=(128, 128),
        compression="zlib",
        description=canary,
        software=canary,
    )
    assert canary.encode() in planted
    result = run(planted)
    assert canary not in result.to_json() and canary not in repr(result)
    cut = planted[: planted.index(canary.encode()) + 3]
    with pytest.raises(ComponentError) as caught:
        run(cut)
    assert canary not in "".join(traceback.format_exception(caught.value))


# -- corrupted bytes -------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_truncations_and_bit_flips_give_typed_errors_or_valid_output(
    small: bytes, data: st.DataObject
) -> None:
    mutated = data.draw(corrupted(small))
    for result in outputs_or_refusals(run, mutated, (CONFIG_A, CONFIG_B)):
        _valid(result)
