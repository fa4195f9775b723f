"""dicom_frames: sampling manifest and content coverage, scored against generated truth.

Targets (issue 5): configuration A reports exactly the truth content frames on
nominal and adverse sources and abstains on near-threshold content;
configuration B is exact on nominal sources, and where it misses content
(frames that differ only subtly from the last examined frame) the miss is
measured by its coverage.  The real pydicom multi-frame file is covered.
"""

from __future__ import annotations

import traceback
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pytest_openmed._canonical import is_digest
from pytest_openmed.components import dicom_frames
from pytest_openmed.components._base import (
    MAX_ASSET_BYTES,
    AssetTooLarge,
    ComponentError,
    ComponentOutput,
    CorruptAsset,
    DecodedSizeTooLarge,
    UnsupportedAsset,
    config_digest,
)
from pytest_openmed.components.dicom_frames import CONFIG_A, CONFIG_B, FrameCoverageConfig, run
from pytest_openmed.development.sources.dicom import generate_dicom_frames
from pytest_openmed.schemas import load_schema

from ._cases import ComponentCase
from ._corruption import corrupted, outputs_or_refusals
from ._dicom_files import dataset_of, pydicom_sample, saved

SEEDS = (0, 1, 2, 3)
VALIDATOR = Draft202012Validator(load_schema("component-dicom_frames"))


class Case(ComponentCase):
    component = dicom_frames


def _cases(slice_name: str, **knobs: Any) -> list[Case]:
    return [Case(generate_dicom_frames(seed, slice_name, **knobs)) for seed in SEEDS]


@pytest.fixture(scope="module")
def nominal() -> list[Case]:
    return _cases("nominal")


@pytest.fixture(scope="module")
def adverse() -> list[Case]:
    return _cases("adverse_acquisition")


@pytest.fixture(scope="module")
def ambiguous() -> list[Case]:
    return _cases("ambiguity_conflict")


@pytest.fixture(scope="module")
def persistent() -> list[Case]:
    """Ambiguity slice without near-threshold frames: only subtle-change runs remain."""
    return _cases("ambiguity_conflict", near_threshold=False)


@pytest.fixture(scope="module")
def small() -> bytes:
    return generate_dicom_frames(7, "nominal", frames=16, rows=64, cols=64).asset


def _valid(result: ComponentOutput) -> dict[str, Any]:
    document = result.to_dict()
    VALIDATOR.validate(document)
    return document["output"]  # type: ignore[no-any-return]


def _truth_coverage(truth: set[int], examined: set[int]) -> float:
    return round(len(truth & examined) / len(truth), 6) if truth else 1.0


# -- accuracy --------------------------------------------------------------------------------


def test_config_a_is_exact_on_nominal_and_adverse(nominal: list[Case], adverse: list[Case]) -> None:
    for case in nominal + adverse:
        output = _valid(case.a)
        assert not case.a.abstained
        assert output["content_frames"] == case.truth["content_frames"]
        assert output["examined_frames"] == list(range(case.truth["frame_count"]))
        assert output["coverage"] == 1.0
        assert output["rule"] == "every_frame"
        assert output["frame_count"] == case.truth["frame_count"]


def test_config_b_is_exact_on_nominal_while_examining_fewer_frames(nominal: list[Case]) -> None:
    for case in nominal:
        output = _valid(case.b)
        examined = set(output["examined_frames"])
        truth = set(case.truth["content_frames"])
        assert not case.b.abstained
        assert output["rule"] == "stride_change_detection"
        assert output["content_frames"] == case.truth["content_frames"]
        assert truth <= examined
        assert output["coverage"] == _truth_coverage(truth, examined) == 1.0
        assert set(range(0, case.truth["frame_count"], CONFIG_B.stride)) <= examined
        assert len(examined) < case.truth["frame_count"]


def test_config_b_on_adverse_has_no_false_content_and_misses_no_strong_content(
    adverse: list[Case],
) -> None:
    """B's blind spot is low-contrast content whose change stays under its threshold."""
    for case in adverse:
        content = set(_valid(case.b)["content_frames"])
        truth = set(case.truth["content_frames"])
        assert content <= truth
        assert {i for i in truth if case.truth["frame_snr"][i] >= 40.0} <= content


def test_config_a_abstains_on_near_threshold_content(ambiguous: list[Case]) -> None:
    for case in ambiguous:
        content = set(_valid(case.a)["content_frames"])
        truth = set(case.truth["content_frames"])
        assert case.a.abstained and case.a.abstain_reason == "near_threshold_content"
        assert truth <= content
        assert content - truth <= set(case.truth["near_threshold_frames"])


def test_config_b_decides_ambiguity_and_misses_only_subtle_frames(ambiguous: list[Case]) -> None:
    for case in ambiguous:
        output = _valid(case.b)
        content = set(output["content_frames"])
        truth = set(case.truth["content_frames"])
        missed = truth - content
        assert not case.b.abstained
        assert content - truth <= set(case.truth["near_threshold_frames"])
        assert missed <= set(case.truth["subtle_change_frames"])
        assert not missed & set(output["examined_frames"])
        if missed:  # every miss lowers the reported coverage
            assert output["coverage"] <= len(content) / (len(content) + len(missed))


def test_config_b_coverage_equals_truth_coverage_on_persistent_content(
    persistent: list[Case],
) -> None:
    """Without ambiguous frames, B's run-time coverage is the truth coverage, exactly."""
    below_one = 0
    for case in persistent:
        output = _valid(case.b)
        examined = set(output["examined_frames"])
        truth = set(case.truth["content_frames"])
        assert case.truth["near_threshold_frames"] == []
        assert set(output["content_frames"]) == truth & examined
        assert output["coverage"] == _truth_coverage(truth, examined)
        below_one += output["coverage"] < 1.0
        assert not case.a.abstained
        assert _valid(case.a)["content_frames"] == case.truth["content_frames"]
    assert below_one >= 2  # the persistent runs really are skipped by B


def test_configurations_differ_on_adverse_and_ambiguous_slices(
    adverse: list[Case], ambiguous: list[Case]
) -> None:
    for case in adverse + ambiguous:
        assert len(case.b.output["examined_frames"]) < len(case.a.output["examined_frames"])
    for case in ambiguous:
        assert case.a.abstained and not case.b.abstained


# -- real data -------------------------------------------------------------------------------


def test_real_multiframe_rtdose_is_covered() -> None:
    asset = pydicom_sample("rtdose.dcm")
    output = _valid(result := run(asset, CONFIG_A))
    assert not result.abstained
    assert output["frame_count"] == 15
    assert output["examined_frames"] == list(range(15))
    # A smooth dose field: no localised structure beyond the quadratic background.
    assert output["content_frames"] == []
    assert output["coverage"] == 1.0
    b_output = _valid(run(asset, CONFIG_B))
    assert {0, 8} <= set(b_output["examined_frames"])
    assert b_output["content_frames"] == []


def test_localised_hotspot_in_real_rtdose_is_content() -> None:
    dataset = dataset_of(pydicom_sample("rtdose.dcm"))
    pixels = dataset.pixel_array.astype(np.uint32)
    pixels[5, 4:6, 4:6] += 60_000  # a local dose hotspot on the smooth field
    dataset.PixelData = pixels.astype("<u4").tobytes()
    output = _valid(run(saved(dataset), CONFIG_A))
    assert output["content_frames"] == [5]


# -- determinism and configuration -----------------------------------------------------------


def test_same_bytes_and_config_give_identical_json(ambiguous: list[Case]) -> None:
    case = ambiguous[0]
    assert run(case.source.asset, CONFIG_A).to_json() == case.a.to_json()
    assert run(case.source.asset, CONFIG_B).to_json() == case.b.to_json()


def test_config_digests_are_stable_and_distinct() -> None:
    copy = FrameCoverageConfig(
        stride=1,
        change_threshold=6.0,
        detection_snr=9.0,
        detection_scale_px=3.0,
        ambiguity_band=(0.75, 1.5),
    )
    assert config_digest(copy) == config_digest(CONFIG_A) != config_digest(CONFIG_B)
    assert is_digest(config_digest(CONFIG_B))
    assert CONFIG_A.rule == "every_frame" and CONFIG_B.rule == "stride_change_detection"


@pytest.mark.parametrize(
    "changes",
    [
        {"stride": 0},
        {"stride": True},
        {"change_threshold": 0.0},
        {"detection_snr": float("nan")},
        {"detection_scale_px": 40.0},
        {"ambiguity_band": (1.2, 1.5)},
        {"ambiguity_band": [0.5, 1.5]},
    ],
)
def test_invalid_configs_are_refused(changes: dict[str, Any]) -> None:
    fields = {
        "stride": 8,
        "change_threshold": 6.0,
        "detection_snr": 9.0,
        "detection_scale_px": 3.0,
        "ambiguity_band": None,
    }
    with pytest.raises((TypeError, ValueError)):
        FrameCoverageConfig(**{**fields, **changes})


_ANY_NUMBER = st.one_of(
    st.integers(-10, 5000), st.floats(allow_nan=True), st.booleans(), st.none(), st.text(max_size=3)
)


@settings(max_examples=100, deadline=None)
@given(
    stride=_ANY_NUMBER,
    change=_ANY_NUMBER,
    snr=_ANY_NUMBER,
    scale=_ANY_NUMBER,
    band=st.one_of(st.none(), st.tuples(_ANY_NUMBER, _ANY_NUMBER), st.lists(_ANY_NUMBER)),
)
def test_config_validation_accepts_or_refuses_with_typed_errors(
    stride: Any, change: Any, snr: Any, scale: Any, band: Any
) -> None:
    try:
        config = FrameCoverageConfig(
            stride=stride,
            change_threshold=change,
            detection_snr=snr,
            detection_scale_px=scale,
            ambiguity_band=band,
        )
    except (TypeError, ValueError):
        return
    assert type(config.stride) is int and config.stride >= 1
    assert is_digest(config_digest(config))


def test_run_refuses_a_foreign_config(small: bytes) -> None:
    with pytest.raises(TypeError):
        run(small, object())  # type: ignore[arg-type]


# -- typed errors ----------------------------------------------------------------------------


def test_non_bytes_and_oversized_assets_are_refused(small: bytes) -> None:
    with pytest.raises(TypeError):
        run(bytearray(small))  # type: ignore[arg-type]
    with pytest.raises(AssetTooLarge):
        run(small + bytes(MAX_ASSET_BYTES))


@pytest.mark.parametrize("asset", [b"", b"DICM", b"\x89PNG\r\n\x1a\n" + bytes(64), bytes(200)])
def test_garbage_is_corrupt(asset: bytes) -> None:
    with pytest.raises(CorruptAsset):
        run(asset)


@pytest.mark.parametrize("name", ["MR_small_RLE.dcm", "JPEG2000.dcm"])
def test_compressed_transfer_syntaxes_are_unsupported(name: str) -> None:
    with pytest.raises(UnsupportedAsset):
        run(pydicom_sample(name))


def test_declared_size_is_bounded_before_decoding(small: bytes) -> None:
    dataset = dataset_of(small)
    dataset.NumberOfFrames = 4096
    dataset.Rows = dataset.Columns = 4096
    with pytest.raises(DecodedSizeTooLarge):
        run(saved(dataset))
    dataset.NumberOfFrames = 4097
    dataset.Rows = dataset.Columns = 8
    with pytest.raises(UnsupportedAsset):  # within the pixel budget, past the frame limit
        run(saved(dataset))


def test_short_pixel_data_is_corrupt(small: bytes) -> None:
    dataset = dataset_of(small)
    dataset.PixelData = dataset.PixelData[:-2048]
    with pytest.raises(CorruptAsset):
        run(saved(dataset))


@pytest.mark.parametrize(
    "changes",
    [
        {"SamplesPerPixel": 3, "PhotometricInterpretation": "RGB", "PlanarConfiguration": 0},
        {"PhotometricInterpretation": "PALETTE COLOR"},
        {"BitsAllocated": 12},
        {"Rows": 4},
    ],
)
def test_unsupported_pixel_layouts(small: bytes, changes: dict[str, Any]) -> None:
    dataset = dataset_of(small)
    for keyword, value in changes.items():
        setattr(dataset, keyword, value)
    with pytest.raises(UnsupportedAsset):
        run(saved(dataset))


def test_missing_pixel_data_is_unsupported(small: bytes) -> None:
    dataset = dataset_of(small)
    del dataset.PixelData
    with pytest.raises(UnsupportedAsset):
        run(saved(dataset))


def test_monochrome1_is_read_inverted(nominal: list[Case]) -> None:
    dataset = dataset_of(nominal[0].source.asset)
    pixels = dataset.pixel_array
    dataset.PixelData = (65535 - pixels).astype("<u2").tobytes()
    dataset.PhotometricInterpretation = "MONOCHROME1"
    output = _valid(run(saved(dataset), CONFIG_A))
    assert output["content_frames"] == nominal[0].truth["content_frames"]


def test_canaries_never_surface(small: bytes) -> None:
    canary = "canarydicomframes9f3a"
    dataset = dataset_of(small)
    dataset.PatientName = canary
    dataset.PatientID = canary
    dataset.SeriesDescription = canary
    planted = saved(dataset)
    result = run(planted)
    assert canary not in result.to_json() and canary not in repr(result)
    broken = dataset_of(planted)
    broken.PixelData = broken.PixelData[:100]
    with pytest.raises(ComponentError) as caught:
        run(saved(broken))
    assert canary not in "".join(traceback.format_exception(caught.value))
    with pytest.raises(ComponentError) as caught:
        run(planted[: planted.index(canary.encode()) + 4])  # cut inside the planted name
    assert canary not in "".join(traceback.format_exception(caught.value))
    assert caught.value.__context__ is None or caught.value.__suppress_context__


# -- corrupted bytes -------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_truncations_and_bit_flips_give_typed_errors_or_valid_output(
    small: bytes, data: st.DataObject
) -> None:
    mutated = data.draw(corrupted(small))
    for result in outputs_or_refusals(run, mutated, (CONFIG_A, CONFIG_B)):
        _valid(result)
