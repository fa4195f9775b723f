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

import argparse
import functools
import io
import json
import statistics
import time
from collections.abc import Callable

import numpy as np

from pytest_openmed.components import ecg_intervals, ecg_quality
from pytest_openmed.development.sources import SLICES
from pytest_openmed.development.sources.ecg import generate_ecg_intervals

TARGET_MS = 200.0


def _median_ms(action: Callable[[], object], repeat: int) -> float:
    action()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000.0 * statistics.median(times)


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    sources = []
    for slice_name in SLICES:
        for carrier in ("json", "dicom"):
            asset = generate_ecg_intervals(args.seed, slice_name, carrier=carrier).asset
            sources.append((f"{slice_name}/{carrier}", asset, carrier))
    sources.append(("pydicom waveform_ecg.dcm", _real_ecg(), "dicom"))

    rows = []
    for label, asset, carrier in sources:
        decode = _decode_json if carrier == "json" else _decode_dicom
        base = _median_ms(functools.partial(decode, asset), args.repeat)
        for name, module in (("ecg_quality", ecg_quality), ("ecg_intervals", ecg_intervals)):
            for config_label in ("A", "B"):
                config = getattr(module, f"CONFIG_{config_label}")
                ms = _median_ms(functools.partial(module.run, asset, config), args.repeat)
                rows.append((name, label, config_label, ms, f"{carrier} decode", base))

    print(f"{'component':<14} {'source':<32} cfg {'ms':>7}  {'baseline':<13} {'ms':>7}  ratio")
    worst = 0.0
    for component, label, config_label, ms, baseline, base in rows:
        worst = max(worst, ms)
        print(
            f"{component:<14} {label:<32} {config_label:>3} {ms:7.1f}  {baseline:<13} "
            f"{base:7.1f}  {ms / base:5.1f}x"
        )
    verdict = "met" if worst < TARGET_MS else "MISSED"
    print(f"slowest component run: {worst:.1f} ms (target < {TARGET_MS:.0f} ms: {verdict})")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
