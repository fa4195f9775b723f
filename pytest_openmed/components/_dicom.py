"""The native-DICOM parse boundary shared by the components that read DICOM.

PYTEST_DONT_REWRITE

Only native (uncompressed) transfer syntaxes are read.  The file meta group is
read and checked first, so a compressed or deflated data set is refused before
pydicom reads it: pydicom inflates a deflated data set whole, without any
bound, as soon as it starts.  Every failure is a component error with the
caller's fixed message.

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


def read_native_dicom(
    asset: bytes,
    *,
    unsupported: str,
    corrupt: str,
    accepted: frozenset[str] = NATIVE_TRANSFER_SYNTAXES,
) -> FileDataset:
    """The data set of a DICOM file whose transfer syntax is in ``accepted``.

    ``accepted`` is a subset of :data:`NATIVE_TRANSFER_SYNTAXES`.  Another
    transfer syntax raises ``UnsupportedAsset(unsupported)`` before the data set
    is read; unreadable bytes raise ``CorruptAsset(corrupt)``.  Both messages
    are the caller's fixed strings.
    """
    if not accepted <= NATIVE_TRANSFER_SYNTAXES:
        raise ValueError("accepted transfer syntaxes must be native ones")
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
        if syntax not in accepted:
            raise UnsupportedAsset(unsupported)
        with parse_boundary(corrupt):
            dataset = pydicom.dcmread(io.BytesIO(asset))
    return dataset
