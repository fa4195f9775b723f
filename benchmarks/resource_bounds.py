"""Peak memory and time of one component run on small assets that declare large images.

Run ``python benchmarks/resource_bounds.py``.  Every case is an asset within
the pack limits (≤ 4 MiB) built by ``development.sources.oversized`` (or a
generated development source).  Each is run once in its own subprocess
(``development.peak_memory``), so its peak RSS (``VmHWM`` of
``/proc/self/status``, imports included; Linux) is that run's alone.  Beside
it, the same subprocess runs a *plain baseline*: import the component, then
read only the header with the plain library (Pillow ``Image.open``, pydicom
``dcmread(stop_before_pixels=True)``, tifffile ``TiffFile``).  Ratios are
component / baseline.

Cases past the shared decoded-pixel budget must be *refused*
(``DecodedSizeTooLarge``) before decoding; the largest cases within it must
*run*.  Target (issue 11): every run peaks under 512 MiB.  Exit status 0 when
every case has its expected outcome and meets the target.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from pytest_openmed.components import MAX_DECODED_PIXELS
from pytest_openmed.development.peak_memory import PEAK_TARGET_MIB, measure
from pytest_openmed.development.sources.oversized import (
    declared_dicom,
    declared_png,
    declared_tiff,
)
from pytest_openmed.development.sources.wsi import generate_wsi_tiles


@dataclass(frozen=True, slots=True)
class Case:
    label: str
    component: str
    build: Callable[[], bytes]
    expected: str  # "refused" or "ran"


CASES = (
    Case("PNG 2896² (8 Mi px)", "burned_in", lambda: declared_png(2896, 2896), "refused"),
    Case("PNG 2896² (8 Mi px)", "forms", lambda: declared_png(2896, 2896), "refused"),
    Case("PNG 2508² (6 Mi px)", "burned_in", lambda: declared_png(2508, 2508), "ran"),
    Case("PNG 2508² (6 Mi px)", "forms", lambda: declared_png(2508, 2508), "ran"),
    Case("TIFF 8192² one level", "wsi_tiles", lambda: declared_tiff(8192, 8192), "refused"),
    Case("TIFF 65536×4096", "wsi_tiles", lambda: declared_tiff(65536, 4096, tile=2048), "refused"),
    Case("TIFF 3072×2048 one level", "wsi_tiles", lambda: declared_tiff(3072, 2048), "ran"),
    Case(
        "TIFF 2048² pyramid (dev slide)",
        "wsi_tiles",
        lambda: generate_wsi_tiles(0, "nominal").asset,
        "ran",
    ),
    Case(
        "DICOM 4096×4096² header",
        "dicom_frames",
        lambda: declared_dicom(4096, 4096, 4096, pixel_bytes=1024),
        "refused",
    ),
    Case(
        "DICOM 4096×4096² header",
        "burned_in",
        lambda: declared_dicom(1, 8192, 8192, pixel_bytes=1024),
        "refused",
    ),
    Case("DICOM 1×2040×2048 8-bit", "dicom_frames", lambda: declared_dicom(1, 2040, 2048), "ran"),
    Case("DICOM 1020×64×64 8-bit", "dicom_frames", lambda: declared_dicom(1020, 64, 64), "ran"),
    Case("DICOM 1×2040×2048 8-bit", "burned_in", lambda: declared_dicom(1, 2040, 2048), "ran"),
)


def _matches(expected: str, outcome: str) -> bool:
    if expected == "refused":
        return outcome == "DecodedSizeTooLarge"
    return outcome in ("ran", "abstained")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.parse_args()
    print(
        f"decoded-pixel budget: {MAX_DECODED_PIXELS} pixels; target peak < {PEAK_TARGET_MIB:.0f} MiB"
    )
    print(
        f"{'case':<32} {'component':<13} {'bytes':>8} {'outcome':<20} {'MiB':>7} {'ms':>8}"
        f"  {'base MiB':>8} {'base ms':>8}  {'MiB x':>5} {'ms x':>6}"
    )
    failures = 0
    for case in CASES:
        asset = case.build()
        run = measure(case.component, asset)
        base = measure(case.component, asset, mode="baseline")
        ok = _matches(case.expected, run.outcome) and run.mib < PEAK_TARGET_MIB
        failures += not ok
        print(
            f"{case.label:<32} {case.component:<13} {len(asset):>8} {run.outcome:<20} "
            f"{run.mib:7.1f} {run.ms:8.1f}  {base.mib:8.1f} {base.ms:8.2f}  "
            f"{run.mib / base.mib:5.1f} {run.ms / max(base.ms, 0.01):6.0f}"
            f"{'' if ok else '  FAILED'}"
        )
    print(
        f"{len(CASES) - failures}/{len(CASES)} cases as expected and under {PEAK_TARGET_MIB:.0f} MiB"
    )
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
