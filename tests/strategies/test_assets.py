"""The one tiny-asset builder writes real files: the reference readers decode them exactly."""

from __future__ import annotations

import io
import json
from typing import Literal

import numpy as np
import pytest
import tifffile
from PIL import Image
from pydicom import dcmread

from pytest_openmed.multimodal import MediaType, SourceAsset
from pytest_openmed.strategies import assets

WIDTH, HEIGHT = 37, 21  # odd sizes: row padding, tile padding and odd-length values all show
PIXELS = bytes((index * 7 + 3) % 256 for index in range(WIDTH * HEIGHT))


def test_png_decodes_to_its_pixels_with_pillow() -> None:
    data = assets.png(PIXELS, WIDTH, HEIGHT, extra_chunks=[(b"prVt", b"padding")])
    with Image.open(io.BytesIO(data)) as image:
        assert image.mode == "L" and image.size == (WIDTH, HEIGHT)
        assert image.tobytes() == PIXELS
    assert SourceAsset(data).media_type is MediaType.PNG


@pytest.mark.parametrize("tile", [None, 16])
@pytest.mark.parametrize("byteorder", ["<", ">"])
@pytest.mark.parametrize("bigtiff", [False, True])
def test_tiff_decodes_to_its_pixels_with_tifffile(
    bigtiff: bool, byteorder: Literal["<", ">"], tile: int | None
) -> None:
    data = assets.tiff(PIXELS, WIDTH, HEIGHT, bigtiff=bigtiff, byteorder=byteorder, tile=tile)
    with tifffile.TiffFile(io.BytesIO(data)) as tiff:
        assert tiff.is_bigtiff is bigtiff
        assert tiff.byteorder == byteorder
        page = tiff.pages.first
        assert page.is_tiled is (tile is not None)
        decoded = tiff.asarray()
    assert decoded.dtype == np.uint8 and decoded.tobytes() == PIXELS
    assert SourceAsset(data).media_type is MediaType.TIFF


def test_classic_tiff_also_decodes_with_pillow() -> None:
    with Image.open(io.BytesIO(assets.tiff(PIXELS, WIDTH, HEIGHT))) as image:
        assert image.tobytes() == PIXELS


@pytest.mark.parametrize(
    "syntax",
    [
        assets.IMPLICIT_VR_LITTLE_ENDIAN,
        assets.EXPLICIT_VR_LITTLE_ENDIAN,
        assets.EXPLICIT_VR_BIG_ENDIAN,
    ],
)
def test_dicom_decodes_to_its_pixels_with_pydicom(syntax: str) -> None:
    data = assets.dicom(PIXELS, 41, WIDTH, HEIGHT, transfer_syntax=syntax, patient_name="A^B")
    dataset = dcmread(io.BytesIO(data))
    assert str(dataset.file_meta.TransferSyntaxUID) == syntax
    assert dataset.SOPInstanceUID == dataset.file_meta.MediaStorageSOPInstanceUID
    assert str(dataset.SOPInstanceUID).endswith(".42")
    assert (dataset.Rows, dataset.Columns, dataset.Modality) == (HEIGHT, WIDTH, "OT")
    assert str(dataset.PatientName) == "A^B"
    assert dataset.pixel_array.tobytes() == PIXELS
    assert SourceAsset(data).media_type is MediaType.DICOM


def test_dicom_without_pixels_has_no_image_module() -> None:
    dataset = dcmread(io.BytesIO(assets.dicom(None, 0, modality=None)))
    assert "PixelData" not in dataset and "Rows" not in dataset and "Modality" not in dataset


def test_waveform_is_the_documented_json_document() -> None:
    data = assets.waveform([[1, 2, 3], [0.5, -0.5, 0]], ("I", "II"))
    assert json.loads(data) == {
        "format": "openmed.waveform.v1",
        "sampling_rate_hz": 500,
        "units": "mV",
        "leads": [{"name": "I", "samples": [1, 2, 3]}, {"name": "II", "samples": [0.5, -0.5, 0]}],
    }
    assert SourceAsset(data).media_type is MediaType.WAVEFORM_JSON


def test_wrongly_sized_pixels_and_foreign_transfer_syntaxes_are_refused() -> None:
    with pytest.raises(ValueError):
        assets.png(PIXELS, WIDTH)
    with pytest.raises(ValueError):
        assets.tiff(PIXELS, WIDTH, HEIGHT, tile=10)
    with pytest.raises(ValueError):
        assets.dicom(PIXELS, 0, WIDTH, HEIGHT, transfer_syntax="1.2.840.10008.1.2.5")
    with pytest.raises(ValueError):
        assets.waveform([[1.0]] * 4)
