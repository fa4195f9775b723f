"""The synthetic multi-frame DICOM generator: format, determinism and truth it promises."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.development.sources import SLICES, GeneratedSource
from pytest_openmed.development.sources.dicom import (
    CONTENT_SNR,
    MEDIA_TYPE,
    generate_dicom_frames,
)
from tests.components._dicom_files import clean_dataset


@pytest.fixture(scope="module")
def sources() -> dict[str, GeneratedSource]:
    return {name: generate_dicom_frames(11, name) for name in SLICES}


def test_asset_is_native_multiframe_secondary_capture(sources: dict[str, GeneratedSource]) -> None:
    for name, source in sources.items():
        dataset = clean_dataset(source.asset)
        assert source.media_type == MEDIA_TYPE and source.slice == name
        assert source.asset[128:132] == b"DICM"
        assert dataset.file_meta.TransferSyntaxUID == "1.2.840.10008.1.2.1"
        assert dataset.SOPClassUID == "1.2.840.10008.5.1.4.1.1.7.3"
        assert (int(dataset.NumberOfFrames), dataset.Rows, dataset.Columns) == (48, 128, 128)
        assert (dataset.BitsAllocated, dataset.PixelRepresentation) == (16, 0)
        assert dataset.PhotometricInterpretation == "MONOCHROME2"
        assert dataset.pixel_array.shape == (48, 128, 128)
        for keyword in ("StudyDate", "StudyTime", "PatientBirthDate"):
            assert dataset.get(keyword, "") == ""
        for keyword in ("SOPInstanceUID", "StudyInstanceUID", "SeriesInstanceUID"):
            assert str(dataset.get(keyword)).startswith("2.25.")


def test_same_arguments_give_identical_bytes_and_others_differ(
    sources: dict[str, GeneratedSource],
) -> None:
    again = generate_dicom_frames(11, "nominal")
    assert again.asset == sources["nominal"].asset
    assert dict(again.truth) == dict(sources["nominal"].truth)
    other = generate_dicom_frames(12, "nominal")
    assert other.asset != again.asset
    assert clean_dataset(other.asset).SOPInstanceUID != clean_dataset(again.asset).SOPInstanceUID
    assert len({source.asset for source in sources.values()}) == 3


def test_truth_is_consistent(sources: dict[str, GeneratedSource]) -> None:
    for source in sources.values():
        truth = source.truth
        content = set(truth["content_frames"])
        near = set(truth["near_threshold_frames"])
        subtle = set(truth["subtle_change_frames"])
        snr = truth["frame_snr"]
        assert truth["frame_count"] == len(snr) == 48
        assert not content & near and subtle <= content
        assert all(snr[i] >= 2 * CONTENT_SNR * 0.98 for i in content)
        assert all(0.95 * CONTENT_SNR <= snr[i] <= 1.15 * CONTENT_SNR for i in near)
        assert all(snr[i] == 0.0 for i in set(range(48)) - content - near)
        assert content
    assert not sources["nominal"].truth["near_threshold_frames"]
    assert sources["ambiguity_conflict"].truth["near_threshold_frames"]
    assert sources["ambiguity_conflict"].truth["subtle_change_frames"]


def test_slices_differ_in_noise_floor(sources: dict[str, GeneratedSource]) -> None:
    for source in sources.values():
        pixels = clean_dataset(source.asset).pixel_array.astype(np.float64)
        diffs = np.diff(pixels, axis=2)
        sigma = 1.4826 * float(np.median(np.abs(diffs - np.median(diffs)))) / math.sqrt(2)
        assert sigma == pytest.approx(source.truth["noise_sigma"], rel=0.05)
    assert (
        sources["adverse_acquisition"].truth["noise_sigma"]
        > sources["nominal"].truth["noise_sigma"]
    )


def test_subtle_frames_repeat_the_previous_frame(sources: dict[str, GeneratedSource]) -> None:
    source = sources["ambiguity_conflict"]
    pixels = clean_dataset(source.asset).pixel_array.astype(np.float64)
    sigma = source.truth["noise_sigma"]
    for index in source.truth["subtle_change_frames"]:
        change = pixels[index] - pixels[index - 1]
        # Only noise (and a ±2 % amplitude change) separates the two frames.
        assert float(np.std(change)) < 1.6 * sigma


def test_content_frames_are_brighter_where_the_truth_says(
    sources: dict[str, GeneratedSource],
) -> None:
    from scipy.ndimage import gaussian_filter

    source = sources["nominal"]
    pixels = clean_dataset(source.asset).pixel_array.astype(np.float64)
    peaks = [float(gaussian_filter(frame - np.median(frame), 3.0).max()) for frame in pixels]
    content = set(source.truth["content_frames"])
    assert min(peaks[i] for i in content) > 3 * max(peaks[i] for i in range(48) if i not in content)


def test_near_threshold_knob_only_removes_near_frames() -> None:
    without = generate_dicom_frames(3, "ambiguity_conflict", near_threshold=False)
    assert without.truth["near_threshold_frames"] == []
    assert without.truth["subtle_change_frames"]


@pytest.mark.parametrize(
    ("args", "knobs"),
    [
        ((-1, "nominal"), {}),
        ((True, "nominal"), {}),
        ((0, "sunny"), {}),
        ((0, "nominal"), {"frames": 8}),
        ((0, "nominal"), {"rows": 4096}),
        ((0, "nominal"), {"cols": 64.0}),
        ((0, "nominal"), {"near_threshold": 1}),
    ],
)
def test_bad_arguments_are_refused(args: tuple[Any, ...], knobs: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)):
        generate_dicom_frames(*args, **knobs)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    slice_name=st.sampled_from(SLICES),
    frames=st.integers(16, 40),
)
def test_truth_invariants_hold_for_any_seed(seed: int, slice_name: str, frames: int) -> None:
    source = generate_dicom_frames(seed, slice_name, frames=frames, rows=64, cols=64)
    truth = source.truth
    indices = truth["content_frames"] + truth["near_threshold_frames"]
    assert len(set(indices)) == len(indices)
    assert all(0 <= i < frames for i in indices)
    assert set(truth["subtle_change_frames"]) <= set(truth["content_frames"])
    assert truth["content_frames"] == sorted(truth["content_frames"])
    assert int(clean_dataset(source.asset).NumberOfFrames) == frames
