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

import argparse
import functools
import io
import statistics
import time
import warnings
from collections.abc import Callable

from pytest_openmed.components import dicom_frames, wsi_tiles
from pytest_openmed.development.sources import SLICES
from pytest_openmed.development.sources.dicom import generate_dicom_frames
from pytest_openmed.development.sources.wsi import generate_wsi_tiles

TARGET_MS = 200.0


def _median_ms(action: Callable[[], object], repeat: int) -> float:
    action()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000.0 * statistics.median(times)


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rows = []
    for slice_name in SLICES:
        dicom = generate_dicom_frames(args.seed, slice_name).asset
        base = _median_ms(functools.partial(_decode_dicom, dicom), args.repeat)
        for label, frames_config in (("A", dicom_frames.CONFIG_A), ("B", dicom_frames.CONFIG_B)):
            ms = _median_ms(functools.partial(dicom_frames.run, dicom, frames_config), args.repeat)
            rows.append(("dicom_frames", slice_name, label, ms, "pydicom decode", base))
    for slice_name in SLICES:
        slide = generate_wsi_tiles(args.seed, slice_name).asset
        base = _median_ms(functools.partial(_decode_level0, slide), args.repeat)
        for label, tiles_config in (("A", wsi_tiles.CONFIG_A), ("B", wsi_tiles.CONFIG_B)):
            ms = _median_ms(functools.partial(wsi_tiles.run, slide, tiles_config), args.repeat)
            rows.append(("wsi_tiles", slice_name, label, ms, "tifffile level-0 decode", base))

    print(f"{'component':<13} {'slice':<20} cfg {'ms':>8}  {'baseline':<24} {'ms':>8}  ratio")
    worst = 0.0
    for component, slice_name, label, ms, baseline, base in rows:
        worst = max(worst, ms)
        print(
            f"{component:<13} {slice_name:<20} {label:>3} {ms:8.1f}  {baseline:<24} "
            f"{base:8.1f}  {ms / base:5.1f}x"
        )
    verdict = "met" if worst < TARGET_MS else "MISSED"
    print(f"slowest component run: {worst:.1f} ms (target < {TARGET_MS:.0f} ms: {verdict})")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
