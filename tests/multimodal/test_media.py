"""Content sniffing of the four carriers; names are never consulted."""

from __future__ import annotations

import io
import json
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydicom import dcmread
from pydicom.uid import UID

from pytest_openmed.multimodal.errors import MediaTypeRefused
from pytest_openmed.multimodal.media import MediaType, sniff_media_type

from ._helpers import dicom_bytes, png_bytes, tiff_bytes, waveform_bytes, waveform_document


def test_png_is_recognised_by_content() -> None:
    assert sniff_media_type(png_bytes(1)) is MediaType.PNG


@pytest.mark.parametrize("cut", [8, 20, 33, -1])
def test_truncated_png_is_refused(cut: int) -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(png_bytes(1)[:cut])


def test_png_with_corrupt_header_crc_is_refused() -> None:
    data = bytearray(png_bytes(1))
    data[20] ^= 0xFF  # inside IHDR: CRC no longer matches
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(bytes(data))


@pytest.mark.parametrize("byteorder", ["<", ">"])
@pytest.mark.parametrize("bigtiff", [False, True])
def test_tiff_and_bigtiff_in_both_byte_orders(bigtiff: bool, byteorder: Literal["<", ">"]) -> None:
    data = tiff_bytes(3, bigtiff=bigtiff, byteorder=byteorder)
    assert sniff_media_type(data) is MediaType.TIFF


def test_tiff_whose_first_ifd_lies_outside_the_file_is_refused() -> None:
    data = bytearray(tiff_bytes(3))
    data[4:8] = (len(data) + 100).to_bytes(4, "little")
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(bytes(data))


def test_bigtiff_with_wrong_offset_size_is_refused() -> None:
    data = bytearray(tiff_bytes(3, bigtiff=True))
    data[4:6] = (4).to_bytes(2, "little")
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(bytes(data))


@pytest.mark.parametrize(
    "syntax", ["1.2.840.10008.1.2", "1.2.840.10008.1.2.1", "1.2.840.10008.1.2.2"]
)
def test_native_uncompressed_dicom_is_accepted(syntax: str) -> None:
    assert sniff_media_type(dicom_bytes(1, transfer_syntax=syntax)) is MediaType.DICOM


@pytest.mark.parametrize(
    "syntax",
    [
        "1.2.840.10008.1.2.4.50",  # JPEG baseline
        "1.2.840.10008.1.2.4.90",  # JPEG 2000 lossless
        "1.2.840.10008.1.2.5",  # RLE
        "1.2.840.10008.1.2.1.99",  # deflated explicit VR little endian
    ],
)
def test_compressed_dicom_transfer_syntaxes_are_refused(syntax: str) -> None:
    # Rewrite the file meta's transfer syntax; pydicom still parses the result,
    # so the refusal is the transfer-syntax rule, not a parse failure.
    dataset = dcmread(io.BytesIO(dicom_bytes(1, pixels=False)))
    dataset.file_meta.TransferSyntaxUID = UID(syntax)
    buffer = io.BytesIO()
    dataset.save_as(buffer, enforce_file_format=False)
    data = buffer.getvalue()
    assert str(dcmread(io.BytesIO(data)).file_meta.TransferSyntaxUID) == syntax
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(data)


def test_dicm_prefix_without_file_meta_is_refused() -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(bytes(128) + b"DICM" + b"\x00garbage-not-a-meta-group")


def test_json_waveform_is_accepted() -> None:
    assert sniff_media_type(waveform_bytes(2)) is MediaType.WAVEFORM_JSON


def _mutated(change: dict[str, object]) -> bytes:
    document = waveform_document(1)
    document.update(change)
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    "change",
    [
        {"format": "openmed.waveform.v2"},
        {"sampling_rate_hz": 0},
        {"sampling_rate_hz": -500},
        {"sampling_rate_hz": True},
        {"sampling_rate_hz": "500"},
        {"units": ""},
        {"units": 3},
        {"leads": []},
        {"leads": [{"name": "I", "samples": []}]},
        {"leads": [{"name": "I", "samples": [1, "2"]}]},
        {"leads": [{"name": "I", "samples": [1, True]}]},
        {"leads": [{"name": "I", "samples": [1]}, {"name": "I", "samples": [2]}]},
        {"leads": [{"name": "I", "samples": [1]}, {"name": "II", "samples": [2, 3]}]},
        {"leads": [{"name": "", "samples": [1]}]},
        {"leads": [{"samples": [1]}]},
    ],
)
def test_malformed_waveforms_are_refused(change: dict[str, object]) -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_mutated(change))


def test_waveform_with_nan_is_refused() -> None:
    text = waveform_bytes(1).replace(b"0.1", b"NaN", 1)
    assert b"NaN" in text
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(text)


def test_waveform_must_be_utf8() -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(waveform_bytes(1).replace(b'"mV"', b'"\xff"'))


@pytest.mark.parametrize(
    "data", [b"", b"hello", b"GIF89a" + bytes(40), b"%PDF-1.7", b"[1, 2, 3]", b'{"a": 1}']
)
def test_other_content_is_refused(data: bytes) -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(data)


def test_only_bytes_are_sniffed() -> None:
    with pytest.raises(TypeError):
        sniff_media_type(bytearray(png_bytes(1)))  # type: ignore[arg-type]


_PREFIXES = [
    b"",
    b"\x89PNG\r\n\x1a\n",
    b"II*\x00",
    b"MM\x00*",
    b"II+\x00",
    bytes(128) + b"DICM",
    b"{",
]


@settings(max_examples=150, deadline=None)
@given(prefix=st.sampled_from(_PREFIXES), tail=st.binary(max_size=300))
def test_arbitrary_bytes_are_classified_or_refused_never_crash(prefix: bytes, tail: bytes) -> None:
    try:
        result = sniff_media_type(prefix + tail)
    except MediaTypeRefused as error:
        assert str(error) == MediaTypeRefused.message
    else:
        assert isinstance(result, MediaType)


@pytest.mark.parametrize("literal", [b"1e999", b"-1e999", b"1" * 400])
def test_waveform_samples_that_overflow_a_float_are_refused(literal: bytes) -> None:
    text = waveform_bytes(1)
    marker = b'"samples": ['
    index = text.index(marker) + len(marker)
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(text[:index] + literal + b", " + text[index:])


def _meta_group(elements: bytes) -> bytes:
    """A DICOM prefix with a file meta group made of ``elements`` (explicit VR LE)."""
    length = b"\x02\x00\x00\x00UL\x04\x00" + len(elements).to_bytes(4, "little")
    return bytes(128) + b"DICM" + length + elements


def _element(group: int, element: int, vr: bytes, value: bytes) -> bytes:
    if len(value) % 2:
        value += b"\x00"
    head = group.to_bytes(2, "little") + element.to_bytes(2, "little") + vr
    return head + len(value).to_bytes(2, "little") + value


def test_dicom_meta_group_is_parsed_by_pydicom_and_transfer_syntax_decides() -> None:
    syntax = _element(2, 0x10, b"UI", b"1.2.840.10008.1.2.1")
    assert sniff_media_type(_meta_group(syntax)) is MediaType.DICOM
    compressed = _element(2, 0x10, b"UI", b"1.2.840.10008.1.2.4.50")
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_meta_group(compressed))


def test_dicom_meta_without_transfer_syntax_is_refused() -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_meta_group(_element(2, 0x02, b"UI", b"1.2.840.10008.5.1.4.1.1.7")))


def test_dicom_meta_group_holding_another_group_is_refused() -> None:
    elements = _element(2, 0x10, b"UI", b"1.2.840.10008.1.2.1") + _element(8, 0x16, b"UI", b"1.2")
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_meta_group(elements))


def test_dicom_meta_group_length_beyond_the_file_is_refused() -> None:
    data = bytearray(dicom_bytes(1))
    data[140:144] = (len(data)).to_bytes(4, "little")
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(bytes(data))


@pytest.mark.parametrize("name", ["CT_small.dcm", "MR_small.dcm", "rtdose.dcm", "waveform_ecg.dcm"])
def test_real_native_dicom_files_are_recognised(name: str) -> None:
    from pydicom.data import get_testdata_file

    path = get_testdata_file(name)  # bundled with pydicom: no download
    assert path is not None
    with open(path, "rb") as handle:
        assert sniff_media_type(handle.read()) is MediaType.DICOM


@settings(max_examples=300, deadline=None)
@given(
    position=st.integers(min_value=128, max_value=260),
    value=st.integers(min_value=0, max_value=255),
)
def test_the_hand_walked_file_meta_never_accepts_what_pydicom_cannot_read(
    position: int, value: int
) -> None:
    """One changed byte in or around the file meta group: accepted only if pydicom agrees."""
    data = bytearray(dicom_bytes(1))
    data[position] = value
    try:
        accepted = sniff_media_type(bytes(data)) is MediaType.DICOM
    except MediaTypeRefused:
        accepted = False
    if accepted:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            meta = dcmread(io.BytesIO(bytes(data)), stop_before_pixels=True).file_meta
        assert str(meta.TransferSyntaxUID) in {
            "1.2.840.10008.1.2",
            "1.2.840.10008.1.2.1",
            "1.2.840.10008.1.2.2",
        }
