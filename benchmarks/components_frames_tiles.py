"""Benchmark of the dicom_frames and wsi_tiles components against plain decoding.

Run ``python benchmarks/components_frames_tiles.py``.  For every generated
source (three slices each) it times, in the same run:

* ``dicom_frames.run`` under configurations A and B, against a baseline that
  only decodes the asset with pydicom (``dcmread`` + ``pixel_array``);
* ``wsi_tiles.run`` under A and B, against a baseline that only decodes level 0
  of the pyramid with tifffile (``series[0].levels[0].asarray()``).

Each figure is the median of ``--repeat`` runs after one warm-up.  The ratio is
component / baseline.  Target (issue 5): under 200 ms per source.
"""

from __future__ import annotations

import functools
import io
import warnings

from _timing import Row, arguments, median_ms, report, time_configs

from pytest_openmed.components import dicom_frames, wsi_tiles
from pytest_openmed.development.sources import SLICES
from pytest_openmed.development.sources.dicom import generate_dicom_frames
from pytest_openmed.development.sources.wsi import generate_wsi_tiles


def _decode_dicom(asset: bytes) -> object:
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pydicom.dcmread(io.BytesIO(asset)).pixel_array


def _decode_level0(asset: bytes) -> object:
    import tifffile

    with tifffile.TiffFile(io.BytesIO(asset)) as tif:
        return tif.series[0].levels[0].asarray()


def main() -> int:
    args = arguments(__doc__)
    rows: list[Row] = []
    for slice_name in SLICES:
        dicom = generate_dicom_frames(args.seed, slice_name).asset
        base = median_ms(functools.partial(_decode_dicom, dicom), args.repeat)
        rows += time_configs(
            dicom_frames,
            slice_name,
            dicom,
            baseline="pydicom decode",
            baseline_ms=base,
            repeat=args.repeat,
        )
    for slice_name in SLICES:
        slide = generate_wsi_tiles(args.seed, slice_name).asset
        base = median_ms(functools.partial(_decode_level0, slide), args.repeat)
        rows += time_configs(
            wsi_tiles,
            slice_name,
            slide,
            baseline="tifffile level-0 decode",
            baseline_ms=base,
            repeat=args.repeat,
        )
    return report(rows)


if __name__ == "__main__":
    raise SystemExit(main())
