"""The ECG carrier reader: openmed.waveform.v1 JSON and native DICOM ECG, both to one Waveform."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pytest_openmed.carriers.ecg import MAX_SAMPLES_PER_LEAD, STANDARD_LEADS, Waveform
from pytest_openmed.carriers.waveform import read_waveform
from pytest_openmed.components._base import ComponentError, CorruptAsset, UnsupportedAsset
from pytest_openmed.development.sources.ecg import synthesise_ecg, waveform_dicom, waveform_json
from pytest_openmed.schemas import load_schema
from tests.components._dicom_files import dataset_of, pydicom_sample, saved

SCHEMA = Draft202012Validator(load_schema("waveform.v1"))


def _document(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "format": "openmed.waveform.v1",
        "sampling_rate_hz": 500,
        "units": "mV",
        "leads": [
            {"name": "V1", "samples": [0.5, -0.25, 1]},
            {"name": "II", "samples": [1.0, 2.0, 3.0]},
        ],
    }
    document.update(changes)
    return document


def _encode(document: Any) -> bytes:
    return json.dumps(document).encode("utf-8")


@pytest.fixture(scope="module")
def recording() -> Any:
    return synthesise_ecg(11, "nominal", heart_rate_bpm=75.0, duration_s=6.0)


@pytest.fixture(scope="module")
def dicom_asset(recording: Any) -> bytes:
    return waveform_dicom(recording, seed=11)


# -- JSON carrier ---------------------------------------------------------------------


def test_json_is_read_in_standard_lead_order_and_millivolts() -> None:
    waveform = read_waveform(_encode(_document()))
    assert waveform.lead_names == ("II", "V1")
    assert waveform.sampling_rate_hz == 500.0
    np.testing.assert_array_equal(waveform.lead("V1"), [0.5, -0.25, 1.0])
    assert waveform.samples.dtype == np.float64


def test_microvolts_are_converted_to_millivolts() -> None:
    waveform = read_waveform(_encode(_document(units="uV")))
    np.testing.assert_allclose(waveform.lead("II"), [0.001, 0.002, 0.003])


def test_generated_json_is_schema_valid_and_read_exactly(recording: Any) -> None:
    asset = waveform_json(recording)
    SCHEMA.validate(json.loads(asset))
    waveform = read_waveform(asset)
    assert waveform.lead_names == STANDARD_LEADS
    np.testing.assert_array_equal(waveform.samples, recording.samples)


@pytest.mark.parametrize(
    "document",
    [
        _document(leads=[{"name": "II", "samples": [1, 2]}, {"name": "II", "samples": [1, 2]}]),
        _document(leads=[{"name": "II", "samples": [1, 2]}, {"name": "I", "samples": [1]}]),
        _document(leads=[{"name": "V7", "samples": [1]}]),
        _document(leads=[{"name": "II", "samples": [1, True]}]),
        _document(leads=[{"name": "II", "samples": [1, "2"]}]),
        _document(leads=[{"name": "II", "samples": [1, None]}]),
        _document(leads=[{"name": "II", "samples": []}]),
        _document(leads=[]),
        _document(units="V"),
        _document(sampling_rate_hz=50),
        _document(sampling_rate_hz=5000),
        _document(sampling_rate_hz="500"),
        _document(extra="field"),
        {"format": "openmed.waveform.v1"},
    ],
)
def test_schema_violations_are_corrupt(document: dict[str, Any]) -> None:
    with pytest.raises(CorruptAsset):
        read_waveform(_encode(document))


@pytest.mark.parametrize(
    "text",
    [
        b'{"format": "openmed.waveform.v1", "sampling_rate_hz": 500, "units": "mV",'
        b' "leads": [{"name": "II", "samples": [1, NaN]}]}',
        b'{"format": "openmed.waveform.v1", "sampling_rate_hz": 500, "units": "mV",'
        b' "leads": [{"name": "II", "samples": [1, Infinity]}]}',
        b'{"format": "openmed.waveform.v1", "sampling_rate_hz": 500, "units": "mV",'
        b' "leads": [{"name": "II", "samples": [1, 1e400]}]}',
        b'{"format": "openmed.waveform.v1", "sampling_rate_hz": 500, "units": "mV",'
        b' "leads": [{"name": "II", "samples": [1, ' + b"9" * 400 + b"]}]}",
        b'{"format": "openmed.waveform.v1", "leads": [',
        b"{" + b"[" * 100_000,
        b'{"format": "\xff\xfe"}',
    ],
)
def test_non_finite_and_malformed_json_is_corrupt(text: bytes) -> None:
    with pytest.raises(CorruptAsset):
        read_waveform(text)


def test_over_long_leads_are_refused() -> None:
    samples = "0," * MAX_SAMPLES_PER_LEAD + "0"
    text = (
        '{"format": "openmed.waveform.v1", "sampling_rate_hz": 2000, "units": "mV", '
        f'"leads": [{{"name": "II", "samples": [{samples}]}}]}}'
    )
    with pytest.raises(CorruptAsset):
        read_waveform(text.encode())


@pytest.mark.parametrize(
    "asset",
    [b"", b"hello", b"[1, 2, 3]", b"\x89PNG\r\n\x1a\n" + bytes(200), _encode({"format": "other"})],
)
def test_other_content_is_unsupported(asset: bytes) -> None:
    with pytest.raises(UnsupportedAsset):
        read_waveform(asset)


_names = st.sampled_from([*STANDARD_LEADS, "V7", "ii"])
_values = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
)


@st.composite
def _documents(draw: st.DrawFn) -> dict[str, Any]:
    length = draw(st.integers(1, 4))
    leads = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "name": _names,
                    "samples": st.lists(_values, min_size=length, max_size=length + 1),
                }
            ),
            min_size=1,
            max_size=3,
        )
    )
    document = _document(leads=leads)
    if draw(st.booleans()):
        document["units"] = draw(st.sampled_from(["mV", "uV", "V"]))
    if draw(st.booleans()):
        document["sampling_rate_hz"] = draw(st.sampled_from([99, 100, 250.5, 2000, 2001, True]))
    return document


@settings(max_examples=150, deadline=None)
@given(document=_documents())
def test_reader_accepts_exactly_the_schema_valid_documents(document: dict[str, Any]) -> None:
    """The reader's fast sample check means exactly what the schema's ``items`` rule says."""
    names = [lead["name"] for lead in document["leads"]]
    lengths = {len(lead["samples"]) for lead in document["leads"]}
    expected = SCHEMA.is_valid(document) and len(set(names)) == len(names) and len(lengths) == 1
    try:
        waveform = read_waveform(_encode(document))
    except CorruptAsset:
        assert not expected
    else:
        assert expected
        assert set(waveform.lead_names) == set(names)


# -- DICOM carrier --------------------------------------------------------------------


def test_real_pydicom_ecg_is_read_in_millivolts() -> None:
    asset = pydicom_sample("waveform_ecg.dcm")
    waveform = read_waveform(asset)
    assert waveform.lead_names == STANDARD_LEADS
    assert waveform.sampling_rate_hz == 1000.0
    assert waveform.n_samples == 10_000
    assert waveform.duration_s == 10.0
    dataset = dataset_of(asset)
    expected = dataset.waveform_array(0) / 1000.0  # channel sensitivity is in microvolts
    np.testing.assert_allclose(waveform.samples, expected.T)
    assert 0.5 < float(np.ptp(waveform.lead("II"))) < 3.0  # a QRS of about a millivolt


def test_generated_dicom_round_trips_to_the_json_values(recording: Any, dicom_asset: bytes) -> None:
    from_dicom = read_waveform(dicom_asset)
    from_json = read_waveform(waveform_json(recording))
    assert from_dicom.lead_names == from_json.lead_names
    assert from_dicom.sampling_rate_hz == from_json.sampling_rate_hz
    np.testing.assert_allclose(from_dicom.samples, from_json.samples, atol=0.0005 + 1e-12)


def test_millivolt_sensitivity_is_converted(recording: Any) -> None:
    asset = waveform_dicom(recording, seed=11, units="mV", sensitivity=0.005)
    np.testing.assert_allclose(read_waveform(asset).samples, recording.samples, atol=0.0025 + 1e-12)


def test_sensitivity_correction_and_baseline_are_applied(dicom_asset: bytes) -> None:
    dataset = dataset_of(dicom_asset)
    for channel in dataset.WaveformSequence[0].ChannelDefinitionSequence:
        channel.ChannelSensitivityCorrectionFactor = "2"
        channel.ChannelBaseline = "100"  # in the sensitivity unit (µV)
    changed = read_waveform(saved(dataset))
    original = read_waveform(dicom_asset)
    np.testing.assert_allclose(changed.samples, original.samples * 2 + 0.1)


def test_lead_names_fall_back_to_code_meanings(dicom_asset: bytes) -> None:
    dataset = dataset_of(dicom_asset)
    meanings = ["Lead I (Einthoven)", "lead ii", "III", "Lead aVR (Goldberger)", "AVL", "aVF"]
    channels = dataset.WaveformSequence[0].ChannelDefinitionSequence
    for index, meaning in enumerate(meanings):
        code = channels[index].ChannelSourceSequence[0]
        code.CodingSchemeDesignator = "99LOCAL"
        code.CodeValue = "X"
        code.CodeMeaning = meaning
    assert read_waveform(saved(dataset)).lead_names == STANDARD_LEADS


def test_non_standard_channels_are_skipped(dicom_asset: bytes) -> None:
    dataset = dataset_of(dicom_asset)
    code = dataset.WaveformSequence[0].ChannelDefinitionSequence[3].ChannelSourceSequence[0]
    code.CodingSchemeDesignator, code.CodeValue, code.CodeMeaning = "99LOCAL", "X", "Lead V4R"
    waveform = read_waveform(saved(dataset))
    assert "aVR" not in waveform.lead_names
    assert len(waveform.lead_names) == 11


def _mutated(asset: bytes, change: str) -> bytes:
    dataset = dataset_of(asset)
    group = dataset.WaveformSequence[0]
    channels = group.ChannelDefinitionSequence
    if change == "duplicate_lead":
        channels[1].ChannelSourceSequence[0].CodeValue = "2:1"
    elif change == "no_sensitivity":
        del channels[0].ChannelSensitivity
    elif change == "no_units":
        del channels[0].ChannelSensitivityUnitsSequence
    elif change == "temperature_units":
        channels[0].ChannelSensitivityUnitsSequence[0].CodeValue = "Cel"
    elif change == "zero_sensitivity":
        channels[0].ChannelSensitivity = "0"
    elif change == "too_many_samples":
        group.NumberOfWaveformSamples = MAX_SAMPLES_PER_LEAD + 1
    elif change == "short_data":
        group.NumberOfWaveformSamples = group.NumberOfWaveformSamples + 10
    elif change == "mu_law":
        group.WaveformBitsAllocated = 8
        group.WaveformSampleInterpretation = "MB"
    elif change == "rate":
        group.SamplingFrequency = "50"
    elif change == "channel_count":
        group.NumberOfWaveformChannels = 11
    elif change == "no_waveform":
        del dataset.WaveformSequence
    elif change == "sop_class":
        dataset.SOPClassUID = "1.2.840.10008.5.1.4.1.1.2"
        dataset.file_meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.2"
    elif change == "no_standard_leads":
        for channel in channels:
            code = channel.ChannelSourceSequence[0]
            code.CodingSchemeDesignator, code.CodeValue, code.CodeMeaning = "L", "X", "Frank X"
    return saved(dataset)


@pytest.mark.parametrize(
    "change",
    [
        "duplicate_lead",
        "zero_sensitivity",
        "too_many_samples",
        "short_data",
        "rate",
        "channel_count",
        "no_waveform",
    ],
)
def test_malformed_dicom_ecg_is_corrupt(dicom_asset: bytes, change: str) -> None:
    with pytest.raises(CorruptAsset):
        read_waveform(_mutated(dicom_asset, change))


@pytest.mark.parametrize(
    "change",
    ["no_sensitivity", "no_units", "temperature_units", "mu_law", "sop_class", "no_standard_leads"],
)
def test_unreadable_dicom_ecg_is_unsupported(dicom_asset: bytes, change: str) -> None:
    with pytest.raises(UnsupportedAsset):
        read_waveform(_mutated(dicom_asset, change))


def test_deflated_dicom_is_refused_before_inflating(dicom_asset: bytes) -> None:
    from pydicom.uid import DeflatedExplicitVRLittleEndian

    dataset = dataset_of(dicom_asset)
    dataset.file_meta.TransferSyntaxUID = DeflatedExplicitVRLittleEndian
    with pytest.raises(UnsupportedAsset):
        read_waveform(saved(dataset, enforce_file_format=True))


def test_dicom_without_preamble_is_unsupported(dicom_asset: bytes) -> None:
    with pytest.raises(UnsupportedAsset):
        read_waveform(dicom_asset[132:])


def test_truncated_dicom_is_corrupt(dicom_asset: bytes) -> None:
    for size in (140, len(dicom_asset) // 2, len(dicom_asset) - 3):
        with pytest.raises(ComponentError):
            read_waveform(dicom_asset[:size])


# -- the value ------------------------------------------------------------------------


def test_waveform_is_immutable_and_shows_no_values() -> None:
    samples = np.array([[0.123456, 0.5], [0.25, 0.75]])
    waveform = Waveform(500, ("I", "II"), samples)
    samples[0, 0] = 9.0
    assert waveform.lead("I")[0] == 0.123456
    with pytest.raises(ValueError):
        waveform.samples[0, 0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        waveform.sampling_rate_hz = 250.0  # type: ignore[misc]
    assert "0.123456" not in repr(waveform)
    with pytest.raises(KeyError):
        waveform.lead("V1")


@pytest.mark.parametrize(
    ("rate", "names", "samples"),
    [
        (50, ("I",), [[0.0]]),
        (True, ("I",), [[0.0]]),
        (500, ("II", "I"), [[0.0], [0.0]]),
        (500, ("I", "I"), [[0.0], [0.0]]),
        (500, ("V7",), [[0.0]]),
        (500, (), np.zeros((0, 1))),
        (500, ("I",), [[float("nan")]]),
        (500, ("I",), np.zeros((1, 0))),
        (500, ("I", "II"), [[0.0]]),
    ],
)
def test_invalid_waveforms_are_refused(rate: Any, names: Any, samples: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        Waveform(rate, names, np.asarray(samples, dtype=float))


def test_canaries_never_surface_in_errors_or_values(dicom_asset: bytes) -> None:
    canary = "CANARY-7f3a9c"
    document = copy.deepcopy(_document())
    document["leads"][0]["name"] = canary
    try:
        read_waveform(_encode(document))
    except ComponentError as error:
        assert canary not in str(error) and canary not in repr(error)
    else:  # pragma: no cover - the document is invalid
        raise AssertionError("invalid document accepted")
    dataset = dataset_of(dicom_asset)
    dataset.PatientName = canary
    channel = dataset.WaveformSequence[0].ChannelDefinitionSequence[0]
    channel.ChannelSensitivityUnitsSequence[0].CodeValue = canary
    try:
        read_waveform(saved(dataset))
    except ComponentError as error:
        assert canary not in str(error) and canary not in repr(error)
        assert error.__cause__ is None
        assert error.__context__ is None or error.__suppress_context__
    else:  # pragma: no cover - the units are not a voltage
        raise AssertionError("foreign units accepted")
