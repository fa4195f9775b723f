"""Validation of dicom_frames on real DICOM: frame counts, transfer syntaxes, resource bounds.

Run ``python validation/dicom_frames.py`` (needs the ``dev`` extra for
``pydicom-data``).  It reads every DICOM file shipped in the installed pydicom
and pydicom-data wheels (nothing is downloaded) and prints, for each target,
its figure and whether it holds:

* every real native monochrome file the component reads gives pydicom's frame
  count under configurations A and B, A examines every frame;
* every native transfer syntax (implicit / explicit little endian, explicit big
  endian) is among them, and big-endian files give their little-endian twins'
  output;
* every compressed file is refused (``UnsupportedAsset``), and the documented
  decompress-with-pydicom recipe makes the RLE ones readable;
* small DICOM headers declaring huge images are refused with
  ``DecodedSizeTooLarge``, and the largest in-limit images run, each in a
  subprocess under 512 MiB peak.

The exit status is 1 when any target does not hold.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

from pytest_openmed.carriers.dicom import (
    EXPLICIT_VR_BIG_ENDIAN,
    EXPLICIT_VR_LITTLE_ENDIAN,
    IMPLICIT_VR_LITTLE_ENDIAN,
    NATIVE_TRANSFER_SYNTAXES,
)
from pytest_openmed.components import MAX_ASSET_BYTES, ComponentError
from pytest_openmed.components.dicom_frames import CONFIG_A, CONFIG_B, run
from pytest_openmed.development.sources.oversized import declared_dicom

if __package__:  # imported as ``validation.dicom_frames`` (the tests)
    from validation._report import Report, peak_target
else:  # run as ``python validation/dicom_frames.py``
    from _report import Report, peak_target

SYNTAX_NAMES = {
    IMPLICIT_VR_LITTLE_ENDIAN: "implicit VR little endian",
    EXPLICIT_VR_LITTLE_ENDIAN: "explicit VR little endian",
    EXPLICIT_VR_BIG_ENDIAN: "explicit VR big endian",
}


def _files() -> dict[str, Path]:
    import data_store  # the pydicom-data package
    import pydicom.data

    roots = {
        "pydicom": Path(pydicom.data.__file__).parent / "test_files",
        "pydicom-data": Path(data_store.__file__).parent / "data",
    }
    return {
        f"{label}/{path.name}": path
        for label, root in roots.items()
        for path in sorted(root.glob("*.dcm"))
    }


def _dataset(path: Path, *, pixels: bool) -> Any:
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            dataset = pydicom.dcmread(path, stop_before_pixels=not pixels)
            return dataset, (dataset.pixel_array if pixels else None)
        except Exception:
            return None, None


def _outcome(asset: bytes, config: Any = CONFIG_A) -> Any:
    try:
        return run(asset, config)
    except ComponentError as error:
        return type(error).__name__


def _real(report: Report) -> None:
    files = _files()
    print(f"== real files: {len(files)} shipped in pydicom and pydicom-data")
    counted: dict[str, list[int]] = {}
    mismatches, compressed, refused, damaged = [], 0, 0, 0
    for name, path in files.items():
        header, _ = _dataset(path, pixels=False)
        if header is None or "Rows" not in header or path.stat().st_size > MAX_ASSET_BYTES:
            continue
        syntax = str(header.file_meta.get("TransferSyntaxUID", ""))
        asset = path.read_bytes()
        if syntax not in NATIVE_TRANSFER_SYNTAXES:
            compressed += 1
            refused += _outcome(asset) == "UnsupportedAsset"
            continue
        monochrome = (
            int(header.get("SamplesPerPixel", 1)) == 1
            and str(header.get("PhotometricInterpretation", "")) in ("MONOCHROME1", "MONOCHROME2")
            and int(header.get("BitsAllocated", 0)) in (8, 16, 32)
        )
        if not monochrome:
            continue
        dataset, pixels = _dataset(path, pixels=True)
        if pixels is None:  # pydicom cannot decode it either (damaged on purpose)
            damaged += _outcome(asset) == "CorruptAsset"
            continue
        declared = int(dataset.get("NumberOfFrames") or 1)
        expected = pixels.shape[0] if declared > 1 else 1
        results = [_outcome(asset, config) for config in (CONFIG_A, CONFIG_B)]
        ok = all(not isinstance(r, str) and r.output["frame_count"] == expected for r in results)
        ok = ok and results[0].output["examined_frames"] == list(range(expected))
        counted.setdefault(SYNTAX_NAMES[syntax], []).append(expected)
        if not ok:
            mismatches.append(name)
    total = sum(len(v) for v in counted.values())
    multi = sum(1 for v in counted.values() for frames in v if frames > 1)
    report.line(
        "frame count = pydicom's on every real native monochrome file (A, B)",
        f"{total - len(mismatches)}/{total} files ({multi} multi-frame)",
        not mismatches and total > 0,
    )
    for syntax in SYNTAX_NAMES.values():
        frames = counted.get(syntax, [])
        report.line(
            f"  {syntax} read",
            f"{len(frames)} files, {sum(frames)} frames",
            bool(frames),
        )
    report.line(
        "every real compressed file refused (UnsupportedAsset)",
        f"{refused}/{compressed}",
        refused == compressed and compressed > 0,
    )
    report.line("real damaged files are CorruptAsset", f"{damaged} files", damaged > 0)
    twins = [
        ("pydicom-data/emri_small_big_endian.dcm", "pydicom-data/emri_small.dcm"),
        ("pydicom/rtdose_expb.dcm", "pydicom/rtdose.dcm"),
        ("pydicom/MR_small_expb.dcm", "pydicom/MR_small.dcm"),
        ("pydicom/MR_small_bigendian.dcm", "pydicom/MR_small.dcm"),
    ]
    same = sum(
        run(files[big].read_bytes(), config).to_json()
        == run(files[little].read_bytes(), config).to_json()
        for big, little in twins
        for config in (CONFIG_A, CONFIG_B)
    )
    report.line(
        "big-endian files give their little-endian twins' output",
        f"{same}/{2 * len(twins)}",
        same == 2 * len(twins),
    )
    recipe = [
        ("pydicom-data/emri_small_RLE.dcm", "pydicom-data/emri_small.dcm"),
        ("pydicom/rtdose_rle.dcm", "pydicom/rtdose.dcm"),
    ]
    readable = 0
    for packed, native in recipe:
        import pydicom

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dataset = pydicom.dcmread(files[packed])
            dataset.decompress()
            buffer = io.BytesIO()
            dataset.save_as(buffer, enforce_file_format=True)
        readable += run(buffer.getvalue()).to_json() == run(files[native].read_bytes()).to_json()
    report.line(
        "decompression recipe: RLE files read like their native twins",
        f"{readable}/{len(recipe)}",
        readable == len(recipe),
    )


def _bounds(report: Report) -> None:
    print("\n== resource bounds: DICOM headers declaring huge images, largest in-limit images")
    cases = {
        "4096 frames of 4096² declared (1 KiB of pixels)": (
            declared_dicom(4096, 4096, 4096, pixel_bytes=1024),
            "DecodedSizeTooLarge",
        ),
        "one 8192² frame declared (1 KiB of pixels)": (
            declared_dicom(1, 8192, 8192, pixel_bytes=1024),
            "DecodedSizeTooLarge",
        ),
        "one 2040 × 2048 8-bit frame (4 MiB)": (declared_dicom(1, 2040, 2048), "ran"),
        "1020 frames of 64² 8-bit (4 MiB)": (declared_dicom(1020, 64, 64), "ran"),
    }
    for label, (asset, expected) in cases.items():
        peak_target(report, label, "dicom_frames", asset, expected)


def main() -> int:
    report = Report()
    _real(report)
    _bounds(report)
    return report.summary()


if __name__ == "__main__":
    raise SystemExit(main())
