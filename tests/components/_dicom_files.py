"""DICOM files for the component tests: pydicom's bundled samples, and edited copies of assets."""

from __future__ import annotations

import io
import warnings
from typing import Any

__all__ = ["as_big_endian", "clean_dataset", "dataset_of", "edited", "pydicom_sample", "saved"]


def pydicom_sample(name: str) -> bytes:
    """The bytes of a test file bundled with pydicom (no download)."""
    from pydicom.data import get_testdata_file

    path = get_testdata_file(name)
    assert path is not None
    with open(path, "rb") as handle:
        return handle.read()


def dataset_of(asset: bytes) -> Any:
    """The pydicom data set of ``asset``, for a test to edit; pydicom's warnings are ignored."""
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pydicom.dcmread(io.BytesIO(asset))


def clean_dataset(asset: bytes) -> Any:
    """The pydicom data set of a file the package wrote: any pydicom warning fails the test."""
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # our own files must read without a warning
        return pydicom.dcmread(io.BytesIO(asset))


def saved(dataset: Any, **options: Any) -> bytes:
    """``dataset`` written back to bytes (``options`` go to ``save_as``); warnings are ignored."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dataset.save_as(buffer, **options)
    return buffer.getvalue()


def edited(asset: bytes, **changes: Any) -> bytes:
    """``asset`` with data-set attributes set by keyword, as a conformant DICOM file.

    pydicom's warnings about the new values are ignored: tests plant invalid ones.
    """
    dataset = dataset_of(asset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for keyword, value in changes.items():
            setattr(dataset, keyword, value)
    return saved(dataset, enforce_file_format=True)


def _swapped(data: bytes, bits: int) -> bytes:
    import numpy as np

    if bits <= 8:
        return data
    return np.frombuffer(data, dtype=f"<u{bits // 8}").astype(f">u{bits // 8}").tobytes()


def as_big_endian(asset: bytes) -> bytes:
    """``asset`` re-encoded as Explicit VR Big Endian, the way a big-endian writer stores it.

    pydicom re-encodes the elements but leaves OW pixel and waveform bytes as
    they are, so those are swapped here to the big-endian words a real file holds.
    """
    from pydicom.filewriter import dcmwrite
    from pydicom.uid import ExplicitVRBigEndian

    dataset = dataset_of(asset)
    if "PixelData" in dataset:
        dataset.PixelData = _swapped(dataset.PixelData, int(dataset.BitsAllocated))
    for group in dataset.get("WaveformSequence") or ():
        group.WaveformData = _swapped(group.WaveformData, int(group.WaveformBitsAllocated))
    dataset.file_meta.TransferSyntaxUID = ExplicitVRBigEndian
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcmwrite(buffer, dataset, implicit_vr=False, little_endian=False, force_encoding=True)
    return buffer.getvalue()
