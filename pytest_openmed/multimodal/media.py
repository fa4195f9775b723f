"""Content sniffing of source assets: the four accepted carriers, never by name.

An asset is accepted only when its bytes are structurally one of the
carriers of :mod:`pytest_openmed.carriers`, each sniffed by its own module:

* PNG (:func:`~pytest_openmed.carriers.png.is_png`) — signature, ``IHDR``
  and a chunk walk that ends exactly at one ``IEND``;
* TIFF or BigTIFF (:func:`~pytest_openmed.carriers.tiff.is_tiff`) — byte
  order, magic number and a first IFD inside the file;
* native DICOM (:func:`~pytest_openmed.carriers.dicom.is_native_dicom`) —
  preamble, ``DICM`` and a file meta group naming an uncompressed transfer
  syntax;
* JSON waveform (:func:`~pytest_openmed.carriers.waveform.is_waveform_json`)
  — exactly what the shipped ``waveform.v1`` schema accepts, with the reader
  rules (each lead once, equal lengths, finite samples): the check the ECG
  components read with, so a pack admits only waveforms a component reads.

File names and extensions are never consulted; there are none to consult.
"""

from __future__ import annotations

import enum

from pytest_openmed.carriers.dicom import has_dicom_prefix, is_native_dicom
from pytest_openmed.carriers.png import PNG_SIGNATURE, is_png
from pytest_openmed.carriers.tiff import TIFF_HEADERS, is_tiff
from pytest_openmed.carriers.waveform import WAVEFORM_FORMAT, is_waveform_json
from pytest_openmed.errors import InvalidArgument

from .errors import MediaTypeRefused

__all__ = [
    "WAVEFORM_FORMAT",
    "MediaType",
    "sniff_media_type",
]


class MediaType(enum.StrEnum):
    """The accepted asset carriers, as media-type labels."""

    PNG = "image/png"
    TIFF = "image/tiff"
    DICOM = "application/dicom"
    WAVEFORM_JSON = "application/vnd.openmed.waveform+json"


def sniff_media_type(data: bytes) -> MediaType:
    """Return the carrier of ``data`` or raise :class:`MediaTypeRefused`."""
    if type(data) is not bytes:
        raise InvalidArgument("asset data must be bytes")
    if data.startswith(PNG_SIGNATURE):
        if is_png(data):
            return MediaType.PNG
        raise MediaTypeRefused()
    if has_dicom_prefix(data):
        # No waveform holds "DICM" (its schema admits no free text), so this is DICOM or nothing.
        if is_native_dicom(data):
            return MediaType.DICOM
        raise MediaTypeRefused()
    if data[:4] in TIFF_HEADERS:
        if is_tiff(data):
            return MediaType.TIFF
        raise MediaTypeRefused()
    if data.lstrip(b" \t\r\n")[:1] == b"{" and is_waveform_json(data):
        return MediaType.WAVEFORM_JSON
    raise MediaTypeRefused()
