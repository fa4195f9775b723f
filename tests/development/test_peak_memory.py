"""One component run in a fresh interpreter: its outcome, its time and its own peak memory.

The resource-bound scripts (``validation/dicom_frames.py``,
``validation/wsi_tiles.py``, ``benchmarks/resource_bounds.py``) measure through
:func:`measure`; a child that fails is an error, never a made-up figure.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_openmed.development.peak_memory import Measurement, measure
from pytest_openmed.development.sources.dicom import generate_dicom_frames
from pytest_openmed.development.sources.oversized import declared_dicom

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: A DICOM header declaring 4096 frames of 4096² over 1 KiB of pixels.
OVERSIZED = declared_dicom(4096, 4096, 4096, pixel_bytes=1024)


def test_a_header_past_the_budget_is_refused_by_its_component_error_name() -> None:
    peak = measure("dicom_frames", OVERSIZED)
    assert peak.outcome == "DecodedSizeTooLarge"
    assert peak.ms >= 0.0
    assert 1.0 < peak.mib < 512.0  # the child's own peak: imports, no decoded pixels


def test_a_run_reports_ran_and_a_peak_above_the_baseline_header_read() -> None:
    asset = generate_dicom_frames(0, "nominal").asset
    run = measure("dicom_frames", asset, config="CONFIG_B")
    base = measure("dicom_frames", asset, mode="baseline")
    assert run.outcome == "ran"
    assert base.outcome == "header read"
    assert run.mib > base.mib > 1.0


def test_a_child_that_fails_is_an_error_never_a_figure() -> None:
    with pytest.raises(subprocess.CalledProcessError):
        measure("dicom_frames", OVERSIZED, config="CONFIG_Z")
    with pytest.raises(subprocess.CalledProcessError):
        measure("no_such_component", OVERSIZED)


def test_an_unknown_mode_is_refused_before_any_child_starts() -> None:
    with pytest.raises(ValueError, match="mode must be 'run' or 'baseline'"):
        measure("dicom_frames", OVERSIZED, mode="other")  # type: ignore[arg-type]


def test_a_measurement_is_a_frozen_value() -> None:
    peak = Measurement("ran", 1.0, 2.0)
    with pytest.raises(AttributeError):
        peak.mib = 0.0  # type: ignore[misc]
