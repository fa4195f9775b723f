"""The burned-in identifier generator: carriers, determinism and the exact masks it promises."""

from __future__ import annotations

import io
import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from pytest_openmed._canonical import canonical_json
from pytest_openmed.development.sources import SLICES, GeneratedSource
from pytest_openmed.development.sources.burned_in import (
    CARRIERS,
    STACKED_FONT_PX,
    STACKED_LINES,
    STACKED_PITCH_EXTRA,
    _rle,
    generate_burned_in_identifier_coverage,
    identifier_coverage,
    identifier_masks,
    render_on_background,
)
from tests.components._dicom_files import clean_dataset


def _pixels(source: GeneratedSource) -> np.ndarray[Any, Any]:
    if source.media_type == "application/dicom":
        return np.array(clean_dataset(source.asset).pixel_array)
    with Image.open(io.BytesIO(source.asset)) as image:
        return np.array(image)


@pytest.fixture(scope="module")
def carriers() -> dict[str, GeneratedSource]:
    return {c: generate_burned_in_identifier_coverage(4, "nominal", carrier=c) for c in CARRIERS}


def test_dicom_carriers_are_native_synthetic_secondary_captures(
    carriers: dict[str, GeneratedSource],
) -> None:
    for carrier, bits in (("dicom16", 16), ("dicom8", 8)):
        source = carriers[carrier]
        dataset = clean_dataset(source.asset)
        assert source.media_type == "application/dicom" and source.asset[128:132] == b"DICM"
        assert dataset.file_meta.TransferSyntaxUID == "1.2.840.10008.1.2.1"
        assert dataset.PhotometricInterpretation == "MONOCHROME2"
        assert (dataset.SamplesPerPixel, dataset.BitsAllocated, dataset.PixelRepresentation) == (
            1,
            bits,
            0,
        )
        assert [dataset.Rows, dataset.Columns] == source.truth["shape"]
        assert dataset.BurnedInAnnotation == "YES" == source.truth["burned_in_annotation_attribute"]
        assert str(dataset.PatientName) == "SYNTHETIC^PHANTOM"
        for keyword in ("StudyDate", "StudyTime", "PatientBirthDate", "ContentDate"):
            assert dataset.get(keyword, "") == ""
        for keyword in ("SOPInstanceUID", "StudyInstanceUID", "SeriesInstanceUID"):
            assert str(dataset.get(keyword)).startswith("2.25.")


def test_png_carriers_are_grey(carriers: dict[str, GeneratedSource]) -> None:
    for carrier, mode in (("png8", "L"), ("png16", "I;16")):
        source = carriers[carrier]
        with Image.open(io.BytesIO(source.asset)) as image:
            assert image.format == "PNG" and image.mode == mode
        assert source.truth["burned_in_annotation_attribute"] is None
        assert source.truth["overlay_planes"] == 0


def test_same_arguments_give_identical_bytes_and_others_differ(
    carriers: dict[str, GeneratedSource],
) -> None:
    for carrier, source in carriers.items():
        again = generate_burned_in_identifier_coverage(4, "nominal", carrier=carrier)
        assert again.asset == source.asset and dict(again.truth) == dict(source.truth)
        assert (
            generate_burned_in_identifier_coverage(5, "nominal", carrier=carrier).asset
            != source.asset
        )
    assert generate_burned_in_identifier_coverage(4, "nominal").truth["carrier"] == CARRIERS[0]


def test_identifier_masks_match_the_rendered_pixels(carriers: dict[str, GeneratedSource]) -> None:
    for source in carriers.values():
        pixels = _pixels(source).astype(np.float64)
        masks = identifier_masks(source.truth)
        assert masks
        canonical_json(dict(source.truth))
        for identifier, mask in zip(source.truth["identifiers"], masks, strict=True):
            x0, y0, x1, y1 = identifier["box"]
            assert int(mask.sum()) == identifier["pixels"] > 0
            assert not mask[:y0].any() and not mask[y1:].any()
            assert not mask[:, :x0].any() and not mask[:, x1:].any()
            around = pixels[max(0, y0 - 4) : y1 + 4, max(0, x0 - 4) : x1 + 4]
            box_mask = mask[max(0, y0 - 4) : y1 + 4, max(0, x0 - 4) : x1 + 4]
            lift = around[box_mask].mean() - np.median(around[~box_mask])
            assert np.sign(lift) == np.sign(identifier["contrast"])  # the text is really there


def test_identifier_coverage_scores_boxes(carriers: dict[str, GeneratedSource]) -> None:
    truth = carriers["png8"].truth
    height, width = truth["shape"]
    assert identifier_coverage(truth, [[0, 0, width, height]]) == [1.0] * len(truth["identifiers"])
    assert identifier_coverage(truth, []) == [0.0] * len(truth["identifiers"])


def test_slices_shape_the_sources() -> None:
    adverse = [generate_burned_in_identifier_coverage(s, "adverse_acquisition") for s in range(4)]
    contrasts = [abs(i["contrast"]) for source in adverse for i in source.truth["identifiers"]]
    assert contrasts and all(0.12 <= c <= 0.3 for c in contrasts)
    ambiguous = [generate_burned_in_identifier_coverage(s, "ambiguity_conflict") for s in range(8)]
    dicom = [a for a in ambiguous if a.media_type == "application/dicom"]
    for source in dicom:
        dataset = clean_dataset(source.asset)
        assert dataset.get("BurnedInAnnotation") == source.truth["burned_in_annotation_attribute"]
        groups = {tag.group for tag in dataset.keys() if 0x6000 <= tag.group <= 0x601E}
        assert len(groups) == source.truth["overlay_planes"]
    assert any(s.truth["overlay_planes"] for s in dicom)
    for name in SLICES:
        assert generate_burned_in_identifier_coverage(1, name).slice == name


@settings(max_examples=100, deadline=None)
@given(
    mask=st.integers(1, 12).flatmap(
        lambda h: st.lists(st.lists(st.booleans(), min_size=7, max_size=7), min_size=h, max_size=h)
    )
)
def test_run_length_encoding_round_trips(mask: list[list[bool]]) -> None:
    array = np.array(mask, dtype=bool)
    height, width = array.shape
    truth = {
        "shape": [height, width],
        "identifiers": [{"box": [0, 0, width, height], "mask_rle": _rle(array)}],
    }
    assert np.array_equal(identifier_masks(truth)[0], array)


@pytest.mark.parametrize(
    ("seed", "slice_name", "carrier"),
    [(-1, "nominal", None), (0, "blurred", None), (0, "nominal", "jpeg"), (1.5, "nominal", None)],
)
def test_bad_arguments_are_refused(seed: Any, slice_name: str, carrier: Any) -> None:
    with pytest.raises(ValueError):
        generate_burned_in_identifier_coverage(seed, slice_name, carrier=carrier)


def test_the_adverse_slice_draws_stacked_blocks_at_ordinary_line_spacing() -> None:
    """Issue 11: identifier lines stacked at ordinary spacing (12 px text at 13-15 px pitch,
    16 px at 17-19 px) were never generated, so their silent miss went unseen."""
    blocks = 0
    for seed in range(12):
        source = generate_burned_in_identifier_coverage(seed, "adverse_acquisition")
        lines = [i for i in source.truth["identifiers"] if "block" in i]
        if not lines:
            continue
        blocks += 1
        assert STACKED_LINES[0] <= len(lines) <= STACKED_LINES[1]
        assert [i["line"] for i in lines] == list(range(len(lines)))
        font_px = lines[0]["font_px"]
        assert STACKED_FONT_PX[0] <= font_px <= STACKED_FONT_PX[1]
        for upper, lower in itertools.pairwise(lines):
            assert upper["box"][3] <= lower["box"][1]  # no shared row: exact per-line masks
            pitch = lower["box"][1] - upper["box"][1]
            assert font_px < pitch <= font_px + STACKED_PITCH_EXTRA[1] + 2  # glyph tops vary
    assert blocks >= 3
    for name in ("nominal", "ambiguity_conflict"):
        for seed in range(6):
            truth = generate_burned_in_identifier_coverage(seed, name).truth
            assert not any("block" in i for i in truth["identifiers"])


def test_text_is_rendered_onto_a_callers_background() -> None:
    background = np.full((160, 240), 0.2)
    background[:, 120:] = np.linspace(0.2, 0.9, 120)  # a ramp: no smooth patch there
    source = render_on_background(
        background, 3, carrier="dicom16", font_px=12, contrast=0.3, lines=3, pitch=15
    )
    assert source is not None and source.slice == "adverse_acquisition"
    again = render_on_background(
        background, 3, carrier="dicom16", font_px=12, contrast=0.3, lines=3, pitch=15
    )
    assert again is not None and again.asset == source.asset
    identifiers = source.truth["identifiers"]
    assert [i["line"] for i in identifiers] == [0, 1, 2]
    pixels = _pixels(source).astype(np.float64) / 4095
    for mask in identifier_masks(source.truth):
        assert pixels[mask].mean() > 0.2 + 0.15  # the text is really there, on the flat half
        assert not mask[:, 120:].any()
    noisy = np.random.default_rng(0).uniform(0.0, 1.0, (64, 64))
    assert render_on_background(noisy, 1, carrier="png8", font_px=12, contrast=0.3) is None


@pytest.mark.parametrize(
    "change",
    [
        {"carrier": "jpeg"},
        {"font_px": 60},
        {"lines": 3, "pitch": 12},
        {"contrast": 0.0},
        {"seed": -1},
    ],
)
def test_bad_rendering_arguments_are_refused(change: dict[str, Any]) -> None:
    arguments: dict[str, Any] = {
        "seed": 1,
        "carrier": "png8",
        "font_px": 12,
        "contrast": 0.3,
        "lines": 1,
        "pitch": None,
    }
    arguments.update(change)
    seed = arguments.pop("seed")
    with pytest.raises(ValueError):
        render_on_background(np.full((64, 64), 0.2), seed, **arguments)
    with pytest.raises(ValueError):
        render_on_background(np.full((64, 64), 2.0), 1, carrier="png8", font_px=12, contrast=0.3)
