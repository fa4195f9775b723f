"""Content sniffing of source assets: the four accepted carriers, never by name.

PYTEST_DONT_REWRITE

An asset is accepted only when its bytes are structurally one of:

* PNG — the 8-byte signature, a well-formed ``IHDR`` first chunk (length 13,
  CRC checked, size 1 to 2³¹ − 1, a bit depth allowed for its colour type,
  compression and filter method 0, interlace 0 or 1), then chunks whose
  lengths walk exactly to one final ``IEND``, with at least one ``IDAT``;
* TIFF or BigTIFF — a byte-order mark, the magic number (42, or 43 with an
  8-byte offset size) and a first IFD that lies inside the file with at least
  one entry;
* native DICOM — the ``DICM`` prefix after the 128-byte preamble, a file meta
  group (explicit VR little endian, walked element by element) that starts with
  its (0002,0000) group length, holds only group-2 elements, each once and
  in ascending order (PS3.5 7.1: a repeated transfer syntax is read
  differently by different readers), and names an
  uncompressed transfer syntax (implicit VR little endian, explicit VR
  little or big endian).  Only the file meta group is parsed: the data set is
  the components' business;
* JSON waveform — UTF-8 JSON object (no repeated names in any object, no
  NaN or Infinity) with ``format == "openmed.waveform.v1"``,
  a positive finite ``sampling_rate_hz``, a ``units`` string and 1–64 uniquely
  named leads of equal, non-zero length of finite numbers.

File names and extensions are never consulted; there are none to consult.
"""

from __future__ import annotations

import enum
import json
import math
import struct
import zlib
from typing import Any

from .errors import MediaTypeRefused
from .jsonvalue import unique_names

__all__ = [
    "WAVEFORM_FORMAT",
    "MediaType",
    "sniff_media_type",
]

#: The ``format`` value of the JSON waveform carrier.
WAVEFORM_FORMAT = "openmed.waveform.v1"

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"
_MAX_WAVEFORM_LEADS = 64
_MAX_LEAD_NAME = 32
_MAX_UNITS = 16


class MediaType(enum.StrEnum):
    """The accepted asset carriers, as media-type labels."""

    PNG = "image/png"
    TIFF = "image/tiff"
    DICOM = "application/dicom"
    WAVEFORM_JSON = "application/vnd.openmed.waveform+json"


def sniff_media_type(data: bytes) -> MediaType:
    """Return the carrier of ``data`` or raise :class:`MediaTypeRefused`."""
    if type(data) is not bytes:
        raise TypeError("asset data must be bytes")
    if data.startswith(_PNG_SIGNATURE):
        if _is_png(data):
            return MediaType.PNG
        raise MediaTypeRefused()
    if data[128:132] == b"DICM":
        if _is_native_dicom(data):
            return MediaType.DICOM
        # JSON text cannot hold the control bytes of a file meta group, so a
        # waveform that happens to carry "DICM" at offset 128 is no DICOM.
        if data.lstrip(b" \t\r\n")[:1] == b"{" and _is_waveform(data):
            return MediaType.WAVEFORM_JSON
        raise MediaTypeRefused()
    if data[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        if _is_tiff(data):
            return MediaType.TIFF
        raise MediaTypeRefused()
    if data.lstrip(b" \t\r\n")[:1] == b"{" and _is_waveform(data):
        return MediaType.WAVEFORM_JSON
    raise MediaTypeRefused()


#: Bit depths allowed for each PNG colour type (PNG spec, 11.2.2).
_PNG_BIT_DEPTHS = {0: {1, 2, 4, 8, 16}, 2: {8, 16}, 3: {1, 2, 4, 8}, 4: {8, 16}, 6: {8, 16}}
_PNG_MAX_SIDE = 2**31 - 1


def _is_png(data: bytes) -> bool:
    if len(data) < len(_PNG_SIGNATURE) + 25 + len(_PNG_IEND):
        return False
    length, chunk_type = struct.unpack(">I4s", data[8:16])
    if length != 13 or chunk_type != b"IHDR":
        return False
    body = data[16:29]
    (crc,) = struct.unpack(">I", data[29:33])
    if zlib.crc32(chunk_type + body) != crc:
        return False
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(
        ">IIBBBBB", body
    )
    if not (0 < width <= _PNG_MAX_SIDE and 0 < height <= _PNG_MAX_SIDE):
        return False
    if depth not in _PNG_BIT_DEPTHS.get(colour, ()) or compression or filtering:
        return False
    return interlace in (0, 1) and data.endswith(_PNG_IEND) and _png_chunks_walk(data)


def _png_chunks_walk(data: bytes) -> bool:
    """The chunks after ``IHDR`` reach exactly the final ``IEND``, with an ``IDAT`` among them.

    Only lengths and types are read (the image data is the components'
    business), so foreign bytes between the header and ``IEND`` are refused.
    """
    end = len(data) - len(_PNG_IEND)
    position = 33
    image_data = False
    while position < end:
        if position + 12 > end:
            return False
        length, chunk_type = struct.unpack_from(">I4s", data, position)
        if length > _PNG_MAX_SIDE or not (chunk_type.isalpha() and chunk_type.isascii()):
            return False
        if chunk_type in (b"IHDR", b"IEND"):
            return False
        image_data = image_data or chunk_type == b"IDAT"
        position += 12 + length
    return image_data and position == end


def _is_tiff(data: bytes) -> bool:
    order = "<" if data[:2] == b"II" else ">"
    (magic,) = struct.unpack(order + "H", data[2:4])
    if magic == 42:
        if len(data) < 8:
            return False
        (offset,) = struct.unpack(order + "I", data[4:8])
        count_size, entry_size, next_size, header = 2, 12, 4, 8
    else:
        if len(data) < 16:
            return False
        offset_size, reserved, offset = struct.unpack(order + "HHQ", data[4:16])
        if offset_size != 8 or reserved != 0:
            return False
        count_size, entry_size, next_size, header = 8, 20, 8, 16
    if offset < header or offset + count_size > len(data):
        return False
    count_format = order + ("H" if count_size == 2 else "Q")
    (entries,) = struct.unpack(count_format, data[offset : offset + count_size])
    end = offset + count_size + entries * entry_size + next_size
    return bool(entries > 0 and end <= len(data))


#: Explicit-VR value representations whose length field is 4 bytes (after 2 reserved).
_LONG_LENGTH_VRS = frozenset(
    {b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"SQ", b"SV", b"UC", b"UN", b"UR", b"UT", b"UV"}
)
_UID = frozenset(b"0123456789.")


def _is_native_dicom(data: bytes) -> bool:
    """Walk the file meta group (always explicit VR little endian, PS3.10) by hand.

    The group must start with its (0002,0000) length, hold only group-2
    elements in strictly ascending order that fit inside it, and name an
    uncompressed transfer syntax in
    (0002,0010).  Walking the few bytes directly is exact, costs microseconds
    and gives a library nothing to log.
    """
    # Imported here: the components package is not loaded with multimodal.
    from pytest_openmed.components._dicom import NATIVE_TRANSFER_SYNTAXES

    if data[132:138] != b"\x02\x00\x00\x00UL" or data[138:140] != b"\x04\x00":
        return False
    (group_length,) = struct.unpack("<I", data[140:144])
    end = 144 + group_length
    if end > len(data):
        return False
    syntax: str | None = None
    position = 144
    previous = 0x0000  # (0002,0000) itself
    while position < end:
        if position + 8 > end:
            return False
        group, element = struct.unpack_from("<HH", data, position)
        vr = data[position + 4 : position + 6]
        if group != 0x0002 or element <= previous or not (vr.isalpha() and vr.isupper()):
            return False
        previous = element
        if vr in _LONG_LENGTH_VRS:
            if position + 12 > end or data[position + 6 : position + 8] != b"\x00\x00":
                return False
            (length,) = struct.unpack_from("<I", data, position + 8)
            start = position + 12
        else:
            (length,) = struct.unpack_from("<H", data, position + 6)
            start = position + 8
        if start + length > end:
            return False
        if element == 0x0010:
            value = data[start : start + length].rstrip(b"\x00 ")
            if vr != b"UI" or not value or not set(value) <= _UID:
                return False
            syntax = value.decode("ascii")
        position = start + length
    return syntax in NATIVE_TRANSFER_SYNTAXES


def _is_waveform(data: bytes) -> bool:
    try:
        document = json.loads(
            data.decode("utf-8"),
            parse_constant=_refuse_constant,
            object_pairs_hook=unique_names,
        )
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    if not isinstance(document, dict) or document.get("format") != WAVEFORM_FORMAT:
        return False
    rate = document.get("sampling_rate_hz")
    if not _finite_number(rate) or not (isinstance(rate, int | float) and rate > 0):
        return False
    units = document.get("units")
    if type(units) is not str or not 0 < len(units) <= _MAX_UNITS:
        return False
    leads = document.get("leads")
    if type(leads) is not list or not 0 < len(leads) <= _MAX_WAVEFORM_LEADS:
        return False
    names: set[str] = set()
    lengths: set[int] = set()
    for lead in leads:
        if type(lead) is not dict:
            return False
        name, samples = lead.get("name"), lead.get("samples")
        if type(name) is not str or not 0 < len(name) <= _MAX_LEAD_NAME or name in names:
            return False
        if type(samples) is not list or not samples or not _finite_numbers(samples):
            return False
        names.add(name)
        lengths.add(len(samples))
    return len(lengths) == 1


def _finite_numbers(values: list[Any]) -> bool:
    """All ``int``/``float`` (no bools, strings, nulls) and finite.

    Checked with C-level builtins: the types in one pass, finiteness from the
    extremes (JSON has no NaN literal here; an overflowing literal parses to ±inf).
    """
    if not set(map(type, values)) <= {int, float}:
        return False
    try:
        return math.isfinite(min(values)) and math.isfinite(max(values))
    except OverflowError:  # an integer too large for a float
        return False


def _finite_number(value: Any) -> bool:
    if type(value) is int:
        return True
    return type(value) is float and math.isfinite(value)


def _refuse_constant(_: str) -> Any:
    raise ValueError("NaN and Infinity are not JSON")
