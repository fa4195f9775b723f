"""Benchmark of the ecg_quality and ecg_intervals components against plain decoding.

Run ``python benchmarks/components_ecg.py``.  For every generated source (three
slices, JSON and DICOM carriers, 12 leads × 10 s at 500 Hz) and for pydicom's
real ``waveform_ecg.dcm`` (12 leads × 10 s at 1000 Hz) it times, in the same run:

* ``ecg_quality.run`` and ``ecg_intervals.run`` under configurations A and B;
* a baseline that only decodes the asset with the carrier's library:
  ``json.loads`` + ``numpy.asarray`` of the samples, or pydicom's
  ``dcmread`` + ``waveform_array(0)``.

Each figure is the median of ``--repeat`` runs after one warm-up.  The ratio is
component / baseline.  Target (issue 5): under 200 ms per source.
"""

from __future__ import annotations

import functools
import io
import json

import numpy as np
from _timing import Row, arguments, median_ms, report, time_configs

from pytest_openmed.components import ecg_intervals, ecg_quality
from pytest_openmed.development.sources import SLICES
from pytest_openmed.development.sources.ecg import generate_ecg_intervals


def _decode_json(asset: bytes) -> object:
    document = json.loads(asset)
    return np.asarray([lead["samples"] for lead in document["leads"]], dtype=np.float64)


def _decode_dicom(asset: bytes) -> object:
    import pydicom

    return pydicom.dcmread(io.BytesIO(asset)).waveform_array(0)


def _real_ecg() -> bytes:
    from pydicom.data import get_testdata_file

    path = get_testdata_file("waveform_ecg.dcm")  # bundled with pydicom: no download
    assert path is not None
    with open(path, "rb") as handle:
        return handle.read()


def main() -> int:
    args = arguments(__doc__)
    sources = []
    for slice_name in SLICES:
        for carrier in ("json", "dicom"):
            asset = generate_ecg_intervals(args.seed, slice_name, carrier=carrier).asset
            sources.append((f"{slice_name}/{carrier}", asset, carrier))
    sources.append(("pydicom waveform_ecg.dcm", _real_ecg(), "dicom"))

    rows: list[Row] = []
    for label, asset, carrier in sources:
        decode = _decode_json if carrier == "json" else _decode_dicom
        base = median_ms(functools.partial(decode, asset), args.repeat)
        for module in (ecg_quality, ecg_intervals):
            rows += time_configs(
                module,
                label,
                asset,
                baseline=f"{carrier} decode",
                baseline_ms=base,
                repeat=args.repeat,
            )
    return report(rows)


if __name__ == "__main__":
    raise SystemExit(main())
