"""The native-DICOM carrier: preamble and prefix, transfer syntaxes, one strict sniff, one read.

Sniff (:func:`is_native_dicom`, no library): the ``DICM`` prefix after the
128-byte preamble, a file meta group (explicit VR little endian, walked
element by element) that starts with its (0002,0000) group length, holds only
group-2 elements, each once and in ascending order (PS3.5 7.1: a repeated
transfer syntax is read differently by different readers), and names one of
the native transfer syntaxes below.  Only the file meta group is parsed.

Read (:func:`read_native_dicom`): only native (uncompressed) transfer
syntaxes are read, the same closed set for every component: implicit and
explicit VR little endian, and explicit VR big endian (retired, but
uncompressed).  The file meta group is read and checked
first, so a compressed or deflated data set is refused before pydicom reads it:
pydicom inflates a deflated data set whole, without any bound, as soon as it
starts.  An image's declared size (frames × rows × columns) is checked against
the shared decoded-pixel budget before any caller decodes a pixel.  Every
failure is a component error with the caller's fixed message.

To read a compressed object, decompress it with pydicom before packing it
(``docs/components/dicom_frames.md`` gives the recipe).

pydicom reports odd values through warnings and through its ``pydicom``
logger, and both can quote element values (names, identifiers).
:func:`quiet_pydicom` silences the two while a component reads, and restores
them afterwards.

Importing this module loads neither numpy nor pydicom.
"""

from __future__ import annotations

import contextlib
import io
import struct
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_openmed.carriers.boundary import LibraryLogSilencer, parse_boundary
from pytest_openmed.carriers.limits import check_decoded_pixels
from pytest_openmed.errors import CorruptAsset, UnsupportedAsset

if TYPE_CHECKING:
    from pydicom.dataset import FileDataset

__all__ = [
    "DICOM_PREAMBLE_BYTES",
    "DICOM_PREFIX",
    "EXPLICIT_VR_BIG_ENDIAN",
    "EXPLICIT_VR_LITTLE_ENDIAN",
    "IMPLICIT_VR_LITTLE_ENDIAN",
    "NATIVE_TRANSFER_SYNTAXES",
    "has_dicom_prefix",
    "is_native_dicom",
    "quiet_pydicom",
    "read_native_dicom",
]

#: Bytes of the preamble before the prefix (PS3.10 7.1).
DICOM_PREAMBLE_BYTES = 128
#: The four bytes after the preamble.
DICOM_PREFIX = b"DICM"

IMPLICIT_VR_LITTLE_ENDIAN = "1.2.840.10008.1.2"
EXPLICIT_VR_LITTLE_ENDIAN = "1.2.840.10008.1.2.1"
#: Retired, but still uncompressed.
EXPLICIT_VR_BIG_ENDIAN = "1.2.840.10008.1.2.2"

#: The closed set of native (uncompressed) transfer syntaxes; every other one is refused.
NATIVE_TRANSFER_SYNTAXES = frozenset(
    {IMPLICIT_VR_LITTLE_ENDIAN, EXPLICIT_VR_LITTLE_ENDIAN, EXPLICIT_VR_BIG_ENDIAN}
)


def has_dicom_prefix(asset: bytes) -> bool:
    """Whether ``asset`` carries the ``DICM`` prefix after the 128-byte preamble."""
    return asset[DICOM_PREAMBLE_BYTES : DICOM_PREAMBLE_BYTES + 4] == DICOM_PREFIX


#: Explicit-VR value representations whose length field is 4 bytes (after 2 reserved).
_LONG_LENGTH_VRS = frozenset(
    {b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"SQ", b"SV", b"UC", b"UN", b"UR", b"UT", b"UV"}
)
_UID = frozenset(b"0123456789.")
_META = DICOM_PREAMBLE_BYTES + 4  # where the file meta group starts


def is_native_dicom(data: bytes) -> bool:
    """Whether ``data`` is a DICOM file whose file meta group names a native transfer syntax.

    The group (always explicit VR little endian, PS3.10) is walked by hand: it
    must start with its (0002,0000) length, hold only group-2 elements in
    strictly ascending order that fit inside it, and name a syntax of
    :data:`NATIVE_TRANSFER_SYNTAXES` in (0002,0010).  Walking the few bytes
    directly is exact, costs microseconds and gives a library nothing to log.
    """
    if not has_dicom_prefix(data):
        return False
    if data[_META : _META + 8] != b"\x02\x00\x00\x00UL\x04\x00":  # (0002,0000) UL, length 4
        return False
    if len(data) < _META + 12:  # the length itself is cut off
        return False
    (group_length,) = struct.unpack("<I", data[_META + 8 : _META + 12])
    end = _META + 12 + group_length
    if end > len(data):
        return False
    syntax: str | None = None
    position = _META + 12
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


_SILENCER = LibraryLogSilencer("pydicom")


@contextlib.contextmanager
def quiet_pydicom() -> Iterator[None]:
    """Silence pydicom's warnings and log records; both are restored on leaving.

    Values convert lazily, when an element is first used, so a component keeps
    every use of a data set inside this block, not only the read.  Like any
    ``warnings.catch_warnings``, the warning part is process-wide and not
    thread-safe; the logger part is counted, so overlapping reads restore it once.
    """
    with _SILENCER, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _past_file_meta(tag: int, _vr: str | None, _length: int) -> bool:
    return tag >> 16 != 0x0002


def read_native_dicom(asset: bytes, *, unsupported: str, corrupt: str) -> FileDataset:
    """The data set of a DICOM file whose transfer syntax is native.

    Another transfer syntax raises ``UnsupportedAsset(unsupported)`` before the
    data set is read; an image declaring more pixels than the decoded-pixel
    budget raises :class:`DecodedSizeTooLarge` before any is decoded;
    unreadable bytes raise ``CorruptAsset(corrupt)``.  Both messages are the
    caller's fixed strings.
    """
    import pydicom
    from pydicom.filereader import read_dataset, read_preamble

    with quiet_pydicom():
        with parse_boundary(corrupt):
            handle = io.BytesIO(asset)
            read_preamble(handle, False)
            # The group as dcmread reads it, so the syntax checked is the one it then uses.
            meta = read_dataset(
                handle, is_implicit_VR=False, is_little_endian=True, stop_when=_past_file_meta
            )
            syntax = str(meta.get("TransferSyntaxUID", "")).strip()
        if not syntax:
            raise CorruptAsset(corrupt)
        if syntax not in NATIVE_TRANSFER_SYNTAXES:
            raise UnsupportedAsset(unsupported)
        with parse_boundary(corrupt):
            dataset = pydicom.dcmread(io.BytesIO(asset))
            if "PixelData" in dataset:
                check_decoded_pixels(_declared_pixels(dataset))
            if syntax == EXPLICIT_VR_BIG_ENDIAN:
                _waveforms_to_little_endian(dataset)
    return dataset


def _waveforms_to_little_endian(dataset: FileDataset) -> None:
    """Byte-swap big-endian waveform samples in place.

    pydicom's pixel decoding honours a big-endian encoding, but its
    ``waveform_array`` reads the samples as little endian whatever the
    encoding, so a big-endian ECG would be read byte-swapped.  After this the
    data set's waveforms read right through pydicom.
    """
    for group in dataset.get("WaveformSequence") or ():
        width = int(group.WaveformBitsAllocated) // 8
        if width > 1 and "WaveformData" in group:
            data = bytes(group.WaveformData)
            usable = len(data) - len(data) % width
            words = bytearray(data)
            for offset in range(width):
                words[offset:usable:width] = data[width - 1 - offset : usable : width]
            group.WaveformData = bytes(words)


def _declared_pixels(dataset: FileDataset) -> int:
    """Frames × rows × columns as declared (absent or empty attributes count as 1)."""
    pixels = 1
    for keyword in ("NumberOfFrames", "Rows", "Columns"):
        value = dataset.get(keyword)
        pixels *= max(int(value), 1) if value not in (None, "") else 1
    return pixels
