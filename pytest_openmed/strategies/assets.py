"""The one builder of tiny real media assets: PNG, TIFF/BigTIFF, native DICOM, JSON waveform.

Used by :func:`pytest_openmed.strategies.small_packs`, the multimodal tests and
the benchmarks.  Each function writes the format's bytes directly (``struct``
and ``zlib``, no imaging library), so building an asset costs microseconds and
the bytes are exactly what the format specification says: 8-bit greyscale,
uncompressed or deflated, one frame.  The libraries that read them (Pillow,
tifffile, pydicom) are the check that they are real, in the tests.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Sequence
from typing import Literal

from pytest_openmed.carriers.waveform import WAVEFORM_FORMAT
from pytest_openmed.errors import InputRefused

#: Side of the default tiny image, in pixels (4 x 4 = 16 bytes of pixel data).
SIDE = 4
#: The transfer syntaxes :func:`dicom` writes (all native, uncompressed).
IMPLICIT_VR_LITTLE_ENDIAN = "1.2.840.10008.1.2"
EXPLICIT_VR_LITTLE_ENDIAN = "1.2.840.10008.1.2.1"
EXPLICIT_VR_BIG_ENDIAN = "1.2.840.10008.1.2.2"
_SECONDARY_CAPTURE = "1.2.840.10008.5.1.4.1.1.7"
_IMPLEMENTATION_UID = "1.2.826.0.1.3680043.10.0.1"


ByteOrder = Literal["<", ">"]


def _checked(pixels: bytes, width: int, height: int) -> None:
    if len(pixels) != width * height:
        raise InputRefused("pixels must hold width x height 8-bit samples")


# -- PNG -------------------------------------------------------------------------------------------


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    """One PNG chunk: length, type, payload, CRC-32 over type and payload."""
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload))
    )


def png(
    pixels: bytes,
    width: int = SIDE,
    height: int | None = None,
    *,
    level: int = 6,
    extra_chunks: Iterable[tuple[bytes, bytes]] = (),
) -> bytes:
    """An 8-bit greyscale PNG; ``extra_chunks`` (type, payload) go between IHDR and IDAT."""
    height = width if height is None else height
    _checked(pixels, width, height)
    rows = b"".join(b"\x00" + pixels[row * width : (row + 1) * width] for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            png_chunk(b"IHDR", header),
            *(png_chunk(kind, payload) for kind, payload in extra_chunks),
            png_chunk(b"IDAT", zlib.compress(rows, level)),
            png_chunk(b"IEND", b""),
        )
    )


# -- TIFF ------------------------------------------------------------------------------------------

_SHORT, _LONG, _LONG8 = 3, 4, 16
_TYPE_CODES = {_SHORT: "H", _LONG: "I", _LONG8: "Q"}


def tiff(
    pixels: bytes,
    width: int = SIDE,
    height: int | None = None,
    *,
    bigtiff: bool = False,
    byteorder: ByteOrder = "<",
    tile: int | None = None,
) -> bytes:
    """An uncompressed 8-bit greyscale TIFF (or BigTIFF): one strip, or ``tile``-square tiles."""
    height = width if height is None else height
    _checked(pixels, width, height)
    if tile is not None and (tile <= 0 or tile % 16):
        raise InputRefused("a TIFF tile side is a positive multiple of 16")
    header_size = 16 if bigtiff else 8
    offset_type = _LONG8 if bigtiff else _LONG
    blocks = _tiles(pixels, width, height, tile) if tile else [pixels]
    offsets, position = [], header_size
    for block in blocks:
        offsets.append(position)
        position += len(block)
    data = b"".join(blocks)
    if position % 2:
        data += b"\x00"
        position += 1
    layout: list[tuple[int, int, list[int]]] = [
        (256, _LONG, [width]),
        (257, _LONG, [height]),
        (258, _SHORT, [8]),
        (259, _SHORT, [1]),  # no compression
        (262, _SHORT, [1]),  # BlackIsZero
    ]
    if tile:
        layout += [(277, _SHORT, [1]), (322, _SHORT, [tile]), (323, _SHORT, [tile])]
        layout += [(324, offset_type, offsets), (325, _LONG, [len(b) for b in blocks])]
    else:
        layout += [(273, offset_type, offsets), (277, _SHORT, [1]), (278, _LONG, [height])]
        layout += [(279, _LONG, [len(pixels)])]
    return _tiff_file(byteorder, bigtiff, data, position, layout)


def _tiles(pixels: bytes, width: int, height: int, tile: int) -> list[bytes]:
    """Row-major tiles, padded with zeros at the right and bottom edges."""
    blocks = []
    for top in range(0, height, tile):
        for left in range(0, width, tile):
            rows = []
            for row in range(top, top + tile):
                line = pixels[row * width + left : row * width + min(left + tile, width)]
                rows.append(line.ljust(tile, b"\x00") if row < height else bytes(tile))
            blocks.append(b"".join(rows))
    return blocks


def _tiff_file(
    order: ByteOrder,
    bigtiff: bool,
    data: bytes,
    ifd_offset: int,
    layout: list[tuple[int, int, list[int]]],
) -> bytes:
    mark = b"II" if order == "<" else b"MM"
    if bigtiff:
        header = mark + struct.pack(f"{order}HHHQ", 43, 8, 0, ifd_offset)
        count_format, entry_format, field, next_format = "Q", "HHQ", 8, "Q"
    else:
        header = mark + struct.pack(f"{order}HI", 42, ifd_offset)
        count_format, entry_format, field, next_format = "H", "HHI", 4, "I"
    entry_size = struct.calcsize(f"{order}{entry_format}") + field
    ifd_size = struct.calcsize(f"{order}{count_format}") + len(layout) * entry_size
    ifd_size += struct.calcsize(f"{order}{next_format}")
    spill_at = ifd_offset + ifd_size
    entries, spilled = [], b""
    for tag, kind, values in layout:
        value = struct.pack(f"{order}{len(values)}{_TYPE_CODES[kind]}", *values)
        if len(value) > field:  # out of line, at an even offset after the IFD
            pointer = spill_at + len(spilled)
            spilled += value + b"\x00" * (len(value) % 2)
            value = struct.pack(f"{order}{'Q' if bigtiff else 'I'}", pointer)
        entries.append(struct.pack(f"{order}{entry_format}", tag, kind, len(values)))
        entries.append(value.ljust(field, b"\x00"))
    ifd = struct.pack(f"{order}{count_format}", len(layout)) + b"".join(entries)
    ifd += struct.pack(f"{order}{next_format}", 0)
    return header + data + ifd + spilled


# -- DICOM -----------------------------------------------------------------------------------------

_LONG_FORM_VRS = frozenset(
    {b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"SQ", b"UC", b"UN", b"UR", b"UT"}
)


def _element(
    group: int, element: int, vr: bytes, value: bytes, *, little: bool, explicit: bool
) -> bytes:
    if len(value) % 2:
        value += b"\x00" if vr in (b"UI", b"OB") else b" "
    order = "<" if little else ">"
    tag = struct.pack(f"{order}HH", group, element)
    if not explicit:
        return tag + struct.pack(f"{order}I", len(value)) + value
    if vr in _LONG_FORM_VRS:
        return tag + vr + b"\x00\x00" + struct.pack(f"{order}I", len(value)) + value
    return tag + vr + struct.pack(f"{order}H", len(value)) + value


def dicom(
    pixels: bytes | None,
    serial: int,
    width: int = SIDE,
    height: int | None = None,
    *,
    transfer_syntax: str = EXPLICIT_VR_LITTLE_ENDIAN,
    modality: str | None = "OT",
    patient_name: str | None = None,
) -> bytes:
    """A single-frame native DICOM Part 10 file (secondary capture, 8-bit MONOCHROME2).

    ``serial`` makes the SOP instance UID unique; ``pixels=None`` writes no image
    module at all.  The file meta is explicit VR little endian, as Part 10 requires.
    """
    height = width if height is None else height
    if transfer_syntax not in (
        IMPLICIT_VR_LITTLE_ENDIAN,
        EXPLICIT_VR_LITTLE_ENDIAN,
        EXPLICIT_VR_BIG_ENDIAN,
    ):
        raise InputRefused("dicom() writes the three native transfer syntaxes only")
    instance = f"1.2.826.0.1.3680043.10.2.{serial + 1}".encode("ascii")
    meta_body = b"".join(
        _element(0x0002, element, vr, value, little=True, explicit=True)
        for element, vr, value in (
            (0x0001, b"OB", b"\x00\x01"),
            (0x0002, b"UI", _SECONDARY_CAPTURE.encode("ascii")),
            (0x0003, b"UI", instance),
            (0x0010, b"UI", transfer_syntax.encode("ascii")),
            (0x0012, b"UI", _IMPLEMENTATION_UID.encode("ascii")),
        )
    )
    meta = _element(
        0x0002, 0x0000, b"UL", struct.pack("<I", len(meta_body)), little=True, explicit=True
    )
    little = transfer_syntax != EXPLICIT_VR_BIG_ENDIAN
    explicit = transfer_syntax != IMPLICIT_VR_LITTLE_ENDIAN
    us = "<H" if little else ">H"
    fields: list[tuple[int, int, bytes, bytes]] = [
        (0x0008, 0x0016, b"UI", _SECONDARY_CAPTURE.encode("ascii")),
        (0x0008, 0x0018, b"UI", instance),
    ]
    if modality is not None:
        fields.append((0x0008, 0x0060, b"CS", modality.encode("ascii")))
    if patient_name is not None:
        fields.append((0x0010, 0x0010, b"PN", patient_name.encode("ascii")))
    if pixels is not None:
        _checked(pixels, width, height)
        fields += [
            (0x0028, 0x0002, b"US", struct.pack(us, 1)),
            (0x0028, 0x0004, b"CS", b"MONOCHROME2"),
            (0x0028, 0x0010, b"US", struct.pack(us, height)),
            (0x0028, 0x0011, b"US", struct.pack(us, width)),
            (0x0028, 0x0100, b"US", struct.pack(us, 8)),
            (0x0028, 0x0101, b"US", struct.pack(us, 8)),
            (0x0028, 0x0102, b"US", struct.pack(us, 7)),
            (0x0028, 0x0103, b"US", struct.pack(us, 0)),
            (0x7FE0, 0x0010, b"OB", pixels),
        ]
    body = b"".join(
        _element(group, element, vr, value, little=little, explicit=explicit)
        for group, element, vr, value in fields
    )
    return bytes(128) + b"DICM" + meta + meta_body + body


# -- waveform --------------------------------------------------------------------------------------


def waveform_document(
    leads: Sequence[Sequence[float]],
    names: Sequence[str] = ("I", "II", "V1"),
    *,
    sampling_rate_hz: int = 500,
    units: str = "mV",
) -> dict[str, object]:
    """An ``openmed.waveform.v1`` document: one named lead per sample sequence."""
    if len(leads) > len(names):
        raise InputRefused("name every lead")
    return {
        "format": WAVEFORM_FORMAT,
        "sampling_rate_hz": sampling_rate_hz,
        "units": units,
        "leads": [
            {"name": name, "samples": list(lead)} for name, lead in zip(names, leads, strict=False)
        ],
    }


def waveform(
    leads: Sequence[Sequence[float]],
    names: Sequence[str] = ("I", "II", "V1"),
    *,
    sampling_rate_hz: int = 500,
    units: str = "mV",
) -> bytes:
    """:func:`waveform_document` as UTF-8 JSON bytes."""
    document = waveform_document(leads, names, sampling_rate_hz=sampling_rate_hz, units=units)
    return json.dumps(document).encode("utf-8")
