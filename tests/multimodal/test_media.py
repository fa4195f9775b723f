"""Content sniffing of the four carriers; names are never consulted."""

from __future__ import annotations

import io
import json
import struct
import zlib
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydicom import dcmread
from pydicom.uid import UID

from pytest_openmed.multimodal.errors import MediaTypeRefused
from pytest_openmed.multimodal.media import MediaType, sniff_media_type
from pytest_openmed.strategies import assets

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


# --- PNG: a well-formed IHDR and a chunk sequence that walks to IEND --------------------------

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_chunk = assets.png_chunk


def _ihdr(width: int = 4, height: int = 4, depth: int = 8, colour: int = 0, *rest: int) -> bytes:
    compression, filtering, interlace = rest or (0, 0, 0)
    body = struct.pack(">IIBBBBB", width, height, depth, colour, compression, filtering, interlace)
    return _chunk(b"IHDR", body)


_IDAT = _chunk(b"IDAT", zlib.compress(bytes(4 * 5)))
_IEND = _chunk(b"IEND", b"")


def test_handmade_minimal_png_is_accepted() -> None:
    assert sniff_media_type(_SIGNATURE + _ihdr() + _IDAT + _IEND) is MediaType.PNG


@pytest.mark.parametrize(
    "header",
    [
        _ihdr(depth=3),  # no such bit depth
        _ihdr(depth=16, colour=3),  # palette images are at most 8 bits
        _ihdr(colour=5),  # no such colour type
        _ihdr(4, 4, 8, 0, 1, 0, 0),  # compression method other than 0
        _ihdr(4, 4, 8, 0, 0, 1, 0),  # filter method other than 0
        _ihdr(4, 4, 8, 0, 0, 0, 2),  # interlace method other than 0/1
        _ihdr(width=2**31),  # dimensions are at most 2^31 - 1
    ],
    ids=["depth", "palette-depth", "colour", "compression", "filter", "interlace", "width"],
)
def test_png_header_with_invalid_fields_is_refused(header: bytes) -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + header + _IDAT + _IEND)


def test_png_without_image_data_is_refused() -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + _ihdr() + _IEND)


def test_png_signature_and_header_around_foreign_bytes_are_refused() -> None:
    foreign = b"PK\x03\x04" + bytes(range(256)) * 4  # e.g. an archive between IHDR and IEND
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + _ihdr() + foreign + _IDAT + _IEND)


def test_png_with_iend_before_the_end_of_its_chunks_is_refused() -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + _ihdr() + _IEND + _IDAT + _IEND)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    size=st.integers(min_value=1, max_value=40),
    mode=st.sampled_from(["1", "L", "LA", "P", "RGB", "RGBA", "I;16"]),
)
def test_pillow_pngs_of_every_mode_are_accepted(seed: int, size: int, mode: str) -> None:
    import io

    from PIL import Image

    image = Image.new(mode, (size, size + seed % 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    assert sniff_media_type(buffer.getvalue()) is MediaType.PNG
    assert sniff_media_type(png_bytes(seed)) is MediaType.PNG


# --- JSON waveform: unambiguous content -------------------------------------------------------


def test_waveform_with_a_duplicate_top_level_key_is_refused() -> None:
    text = json.dumps(waveform_document(1)).encode()
    # Python keeps the last "format", other readers the first: the content is ambiguous.
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(b'{"format": "something-else", ' + text[1:])


def test_waveform_with_a_duplicate_key_inside_a_lead_is_refused() -> None:
    text = json.dumps(waveform_document(1)).encode()
    ambiguous = text.replace(b'"samples": [', b'"samples": [9, 9], "samples": [', 1)
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(ambiguous)


def test_json_holding_dicm_at_offset_128_is_no_waveform() -> None:
    """``waveform.v1`` admits no free text (no extra member, closed names), so no waveform
    can carry "DICM": JSON that does is refused, not read as a waveform or as DICOM."""
    prefix = '{"note": "'
    document = {"note": "x" * (128 - len(prefix)) + "DICM", **waveform_document(1)}
    data = json.dumps(document).encode()
    assert data[128:132] == b"DICM"
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(data)
    assert sniff_media_type(json.dumps(waveform_document(1)).encode()) is MediaType.WAVEFORM_JSON


# --- DICOM: the file meta group holds each element once, in ascending order --------------------


def _meta_elements(data: bytes) -> tuple[bytes, list[tuple[int, bytes]], bytes]:
    (length,) = struct.unpack("<I", data[140:144])
    meta, rest = data[144 : 144 + length], data[144 + length :]
    elements: list[tuple[int, bytes]] = []
    position = 0
    while position < len(meta):
        (element,) = struct.unpack_from("<H", meta, position + 2)
        if meta[position + 4 : position + 6] in (b"OB", b"UN", b"SQ", b"UT"):
            (size,) = struct.unpack_from("<I", meta, position + 8)
            end = position + 12 + size
        else:
            (size,) = struct.unpack_from("<H", meta, position + 6)
            end = position + 8 + size
        elements.append((element, meta[position:end]))
        position = end
    return data[:140], elements, rest


def _reassemble(head: bytes, raws: list[bytes], rest: bytes) -> bytes:
    meta = b"".join(raws)
    return head + struct.pack("<I", len(meta)) + meta + rest


_DEFLATED = b"1.2.840.10008.1.2.1.99"
_DEFLATED_ELEMENT = struct.pack("<HH2sH", 2, 0x10, b"UI", len(_DEFLATED)) + _DEFLATED


def test_dicom_meta_naming_two_transfer_syntaxes_is_refused() -> None:
    head, elements, rest = _meta_elements(dicom_bytes(1))
    # Deflated first, native second: pydicom keeps the last, other readers the first.
    raws = [(_DEFLATED_ELEMENT + raw if tag == 0x10 else raw) for tag, raw in elements]
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_reassemble(head, raws, rest))


def test_dicom_meta_elements_out_of_order_are_refused() -> None:
    head, elements, rest = _meta_elements(dicom_bytes(1))
    syntax = [raw for tag, raw in elements if tag == 0x10]
    raws = [raw for tag, raw in elements if tag != 0x10] + syntax
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_reassemble(head, raws, rest))
