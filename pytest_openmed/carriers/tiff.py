"""The TIFF carrier: byte orders and magic numbers, one strict sniff, one open.

Sniff (:func:`is_tiff`, no library): a byte-order mark, the magic number (42
for TIFF, or 43 with an 8-byte offset size for BigTIFF) and a first IFD that
lies inside the file with at least one entry.

Decode (:func:`open_tiff`): tifffile parses the IFDs with its logging held
silent (it logs about malformed files, and a record can quote a tag value);
any library failure becomes ``CorruptAsset`` with the caller's fixed message.
What is read from the pages (tiles, pyramid) is the caller's business.
"""

from __future__ import annotations

import contextlib
import io
import struct
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_openmed.carriers.boundary import LibraryLogSilencer, parse_boundary

if TYPE_CHECKING:
    import tifffile

__all__ = ["BIGTIFF_MAGIC", "TIFF_HEADERS", "TIFF_MAGIC", "is_tiff", "open_tiff"]

#: Classic TIFF and BigTIFF magic numbers.
TIFF_MAGIC = 42
BIGTIFF_MAGIC = 43
#: The first four bytes of a TIFF or BigTIFF file, in either byte order.
TIFF_HEADERS = frozenset(
    {
        b"II" + struct.pack("<H", TIFF_MAGIC),
        b"MM" + struct.pack(">H", TIFF_MAGIC),
        b"II" + struct.pack("<H", BIGTIFF_MAGIC),
        b"MM" + struct.pack(">H", BIGTIFF_MAGIC),
    }
)

_LOGS = LibraryLogSilencer("tifffile")


def is_tiff(data: bytes) -> bool:
    """Whether ``data`` is structurally a TIFF or BigTIFF file (header and first IFD)."""
    if data[:4] not in TIFF_HEADERS:
        return False
    order = "<" if data[:2] == b"II" else ">"
    (magic,) = struct.unpack(order + "H", data[2:4])
    if magic == TIFF_MAGIC:
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


@contextlib.contextmanager
def open_tiff(asset: bytes, *, corrupt: str) -> Iterator[tifffile.TiffFile]:
    """The parsed file, inside tifffile's silenced logging and the parse boundary.

    Every use of the pages belongs inside the block: tifffile reads lazily.
    """
    import tifffile

    with (
        _LOGS,
        parse_boundary(corrupt),
        tifffile.TiffFile(io.BytesIO(asset)) as tif,
    ):
        yield tif
