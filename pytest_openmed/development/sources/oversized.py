"""Small assets whose headers declare large images: the resource-bound cases (synthetic).

Each builder returns bytes within the pack's 4 MiB asset limit whose header
declares as many pixels as asked, so a reader that trusted the header would
decode (and a component would then process) far more than the file holds.
They exercise the shared decoded-pixel budget
(:data:`pytest_openmed.components.MAX_DECODED_PIXELS`) in tests and in
``benchmarks/resource_bounds.py``.  Nothing here depicts anything; the bytes
depend only on the arguments.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from pytest_openmed.carriers.png import PNG_SIGNATURE

__all__ = ["declared_dicom", "declared_png", "declared_tiff"]

#: The pinkish stain colour the tiled slides are filled with (tissue to the mask).
_STAIN = (200, 120, 170)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def declared_png(width: int, height: int) -> bytes:
    """An 8-bit grey PNG declaring ``width`` × ``height`` over one compressed stream of zeros.

    The stream holds every row (a zero filter byte and zero pixels), so the file
    is valid and decodes to a black image; zlib shrinks it about a thousandfold.
    """
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    compressor = zlib.compressobj(9)
    row = bytes(width + 1)
    body = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")


def declared_dicom(frames: int, rows: int, cols: int, *, pixel_bytes: int | None = None) -> bytes:
    """A native 8-bit MONOCHROME2 multi-frame DICOM declaring ``frames`` × ``rows`` × ``cols``.

    Its pixel data holds ``pixel_bytes`` bytes of seeded noise (default: all
    the declared pixels), so a header can claim more than the file carries.
    """
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import (
        UID,
        ExplicitVRLittleEndian,
        MultiFrameGrayscaleByteSecondaryCaptureImageStorage,
    )

    length = frames * rows * cols if pixel_bytes is None else pixel_bytes
    length += length % 2
    noise = np.random.default_rng([frames, rows, cols]).integers(90, 110, length, dtype=np.uint8)
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = MultiFrameGrayscaleByteSecondaryCaptureImageStorage
    meta.MediaStorageSOPInstanceUID = UID("2.25.1")
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    dataset = Dataset()
    dataset.file_meta = meta
    dataset.SOPClassUID = MultiFrameGrayscaleByteSecondaryCaptureImageStorage
    dataset.SOPInstanceUID = "2.25.1"
    dataset.Modality = "OT"
    dataset.SamplesPerPixel = 1
    dataset.PhotometricInterpretation = "MONOCHROME2"
    dataset.NumberOfFrames = frames
    dataset.Rows = rows
    dataset.Columns = cols
    dataset.BitsAllocated = 8
    dataset.BitsStored = 8
    dataset.HighBit = 7
    dataset.PixelRepresentation = 0
    dataset.PixelData = noise.tobytes()
    buffer = io.BytesIO()
    dataset.save_as(buffer, implicit_vr=False, little_endian=True, enforce_file_format=True)
    return buffer.getvalue()


def declared_tiff(width: int, height: int, *, tile: int = 1024) -> bytes:
    """A single-level tiled RGB TIFF of one stain colour, ``width`` × ``height``, Deflate tiles.

    Every tile is the same highly compressible stream, so the file stays small
    while the declared level is large.
    """
    import tifffile

    block = np.empty((tile, tile, 3), dtype=np.uint8)
    block[:] = _STAIN
    stream = zlib.compress(block.tobytes(), 9)
    count = -(-width // tile) * -(-height // tile)

    def tiles() -> Iterator[bytes]:
        for _ in range(count):
            yield stream

    options: dict[str, Any] = {
        "dtype": "uint8",
        "shape": (height, width, 3),
        "tile": (tile, tile),
        "photometric": "rgb",
        "compression": "zlib",
        "metadata": None,
        "software": False,
    }
    buffer = io.BytesIO()
    with tifffile.TiffWriter(buffer) as writer:
        writer.write(tiles(), **options)
    return buffer.getvalue()
