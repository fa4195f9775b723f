"""The native-DICOM parse boundary shared by the components that read DICOM.

PYTEST_DONT_REWRITE

Only native (uncompressed) transfer syntaxes are read, the same closed set for
every component: implicit and explicit VR little endian, and explicit VR big
endian (retired, but uncompressed).  The file meta group is read and checked
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

Importing this module loads neither numpy nor pydicom;
:mod:`pytest_openmed.multimodal.media` sniffs against the same
:data:`NATIVE_TRANSFER_SYNTAXES`.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_openmed.components._base import (
    CorruptAsset,
    LibraryLogSilencer,
    UnsupportedAsset,
    check_decoded_pixels,
    parse_boundary,
)

if TYPE_CHECKING:
    from pydicom.dataset import FileDataset

__all__ = [
    "EXPLICIT_VR_BIG_ENDIAN",
    "EXPLICIT_VR_LITTLE_ENDIAN",
    "IMPLICIT_VR_LITTLE_ENDIAN",
    "NATIVE_TRANSFER_SYNTAXES",
    "has_dicom_prefix",
    "quiet_pydicom",
    "read_native_dicom",
]

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
    return asset[128:132] == b"DICM"


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
