"""dicom_frames on real DICOM files: pydicom's bundled test files and the ``pydicom-data`` package.

Issue 11: frame counts equal pydicom's on every real native file the component
reads, in every native transfer syntax (explicit big endian included);
compressed transfer syntaxes are refused, and the documented recipe
(decompress with pydicom, then pack) makes them readable.  Only files already
installed are read: nothing is downloaded.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_openmed.carriers.dicom import NATIVE_TRANSFER_SYNTAXES
from pytest_openmed.components._base import MAX_ASSET_BYTES, AssetTooLarge, UnsupportedAsset
from pytest_openmed.components.dicom_frames import CONFIG_A, CONFIG_B, run


def _real_files() -> dict[str, Path]:
    """Every DICOM file shipped with the installed pydicom and pydicom-data wheels."""
    import data_store  # the pydicom-data package
    import pydicom.data

    roots = {
        "pydicom": Path(pydicom.data.__file__).parent / "test_files",
        "pydicom-data": Path(data_store.__file__).parent / "data",
    }
    files = {
        f"{label}/{path.name}": path
        for label, root in roots.items()
        for path in sorted(root.glob("*.dcm"))
    }
    assert len(files) > 100
    return files


def _header(path: Path) -> Any:
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return pydicom.dcmread(path, stop_before_pixels=True)
        except Exception:
            return None


def _kind(path: Path) -> str:
    """``native`` (a monochrome image the component reads), ``compressed``, or ``other``."""
    header = _header(path)
    if header is None or "Rows" not in header or path.stat().st_size > MAX_ASSET_BYTES:
        return "other"
    syntax = str(header.file_meta.get("TransferSyntaxUID", ""))
    if syntax not in NATIVE_TRANSFER_SYNTAXES:
        return "compressed"
    readable = (
        int(header.get("SamplesPerPixel", 1)) == 1
        and str(header.get("PhotometricInterpretation", "")) in ("MONOCHROME1", "MONOCHROME2")
        and int(header.get("BitsAllocated", 0)) in (8, 16, 32)
    )
    return "native" if readable else "other"


FILES = _real_files()
NATIVE = sorted(name for name, path in FILES.items() if _kind(path) == "native")
COMPRESSED = sorted(name for name, path in FILES.items() if _kind(path) == "compressed")
#: Files whose pixel data is damaged on purpose (pydicom's own error cases).
DAMAGED = {"pydicom/MR_truncated.dcm", "pydicom/badVR.dcm"}


def _pydicom_frames(path: Path) -> int:
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dataset = pydicom.dcmread(path)
        pixels = dataset.pixel_array
    frames = int(dataset.get("NumberOfFrames") or 1)
    return pixels.shape[0] if frames > 1 else 1


def test_the_real_sets_cover_several_syntaxes_and_multi_frame_files() -> None:
    syntaxes = {str(_header(FILES[name]).file_meta.TransferSyntaxUID) for name in NATIVE}
    assert syntaxes == set(NATIVE_TRANSFER_SYNTAXES)
    multi = [
        name
        for name in NATIVE
        if name not in DAMAGED and int(_header(FILES[name]).get("NumberOfFrames") or 1) > 1
    ]
    assert {"pydicom-data/emri_small.dcm", "pydicom-data/eCT_Supplemental.dcm"} <= set(multi)
    assert len(COMPRESSED) >= 40


@pytest.mark.parametrize("name", [n for n in NATIVE if n not in DAMAGED])
def test_frame_count_equals_pydicoms_on_every_real_native_file(name: str) -> None:
    path = FILES[name]
    expected = _pydicom_frames(path)
    for config in (CONFIG_A, CONFIG_B):
        output = run(path.read_bytes(), config).output
        assert output["frame_count"] == expected
        assert output["examined_frames"][0] == 0
        assert set(output["content_frames"]) <= set(output["examined_frames"])
    assert run(path.read_bytes(), CONFIG_A).output["examined_frames"] == list(range(expected))


@pytest.mark.parametrize("name", COMPRESSED)
def test_every_real_compressed_file_is_refused(name: str) -> None:
    with pytest.raises(UnsupportedAsset) as caught:
        run(FILES[name].read_bytes())
    assert str(caught.value) == "only native (uncompressed) DICOM transfer syntaxes are read"


def test_a_file_past_the_asset_limit_is_refused_before_reading() -> None:
    with pytest.raises(AssetTooLarge):
        run(FILES["pydicom-data/RG1_UNCI.dcm"].read_bytes())


@pytest.mark.parametrize(
    ("big", "little"),
    [
        ("pydicom-data/emri_small_big_endian.dcm", "pydicom-data/emri_small.dcm"),
        ("pydicom/rtdose_expb.dcm", "pydicom/rtdose.dcm"),
        ("pydicom/MR_small_expb.dcm", "pydicom/MR_small.dcm"),
    ],
)
def test_real_big_endian_files_give_their_little_endian_twins_output(big: str, little: str) -> None:
    for config in (CONFIG_A, CONFIG_B):
        assert (
            run(FILES[big].read_bytes(), config).to_json()
            == run(FILES[little].read_bytes(), config).to_json()
        )


def _decompressed(path: Path) -> bytes:
    """The documented recipe (docs/components/dicom_frames.md): decompress, then save."""
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dataset = pydicom.dcmread(path)
        dataset.decompress()
        buffer = io.BytesIO()
        dataset.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("compressed", "native"),
    [
        ("pydicom-data/emri_small_RLE.dcm", "pydicom-data/emri_small.dcm"),
        ("pydicom/rtdose_rle.dcm", "pydicom/rtdose.dcm"),
    ],
)
def test_the_decompression_recipe_makes_a_compressed_file_readable(
    compressed: str, native: str
) -> None:
    with pytest.raises(UnsupportedAsset):
        run(FILES[compressed].read_bytes())
    asset = _decompressed(FILES[compressed])
    assert run(asset).to_json() == run(FILES[native].read_bytes()).to_json()
    np.testing.assert_equal(run(asset).output["frame_count"], _pydicom_frames(FILES[native]))


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_real_damaged_files_are_corrupt(name: str) -> None:
    from pytest_openmed.components._base import CorruptAsset

    with pytest.raises(CorruptAsset):
        run(FILES[name].read_bytes())
