"""One component run on one asset in a fresh interpreter, with its time and peak memory.

A resource bound is about the peak of one run alone, imports included, so each
measurement is its own child process: ``python -m
pytest_openmed.development.peak_memory MODE COMPONENT CONFIG`` reads the asset
from stdin, imports ``pytest_openmed.components.<COMPONENT>`` and then either
runs it (``run``) under its ``CONFIG`` attribute, or, as the plain baseline
(``baseline``), reads only the asset's header with the plain library (Pillow
``Image.open``, pydicom ``dcmread(stop_before_pixels=True)``, tifffile
``TiffFile``).  It prints one JSON line: the outcome (``ran``, ``abstained``,
the refusing component error's class name, or ``header read``), the
milliseconds of the run or read, and the process's peak resident memory
(``VmHWM`` of ``/proc/self/status``: Linux only).

:func:`measure` starts that child; ``validation/dicom_frames.py``,
``validation/wsi_tiles.py`` and ``benchmarks/resource_bounds.py`` measure
through it.  Development tooling: no engine imports it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Literal

from pytest_openmed.errors import InputRefused

__all__ = ["PEAK_TARGET_MIB", "Measurement", "measure"]

#: The resource-bound target (issue 11): one component run peaks under this, imports included.
PEAK_TARGET_MIB = 512.0

Mode = Literal["run", "baseline"]
_MODES: tuple[Mode, ...] = ("run", "baseline")
_STATUS = "/proc/self/status"


@dataclass(frozen=True, slots=True)
class Measurement:
    """What one child process did with the asset, how long it took, and its peak memory."""

    outcome: str
    ms: float
    mib: float


def measure(
    component: str, asset: bytes, *, config: str = "CONFIG_A", mode: Mode = "run"
) -> Measurement:
    """Run ``components.<component>`` (or the baseline header read) on ``asset`` in a child.

    ``component`` is a module name under :mod:`pytest_openmed.components`
    (``"dicom_frames"``) and ``config`` the name of one of its configurations
    (``"CONFIG_A"``), so only names cross the process boundary.  A child that
    fails raises :class:`subprocess.CalledProcessError`: a measurement is never
    made up.
    """
    if mode not in _MODES:
        raise InputRefused("mode must be 'run' or 'baseline'")
    done = subprocess.run(
        [sys.executable, "-m", __name__, mode, component, config],
        input=asset,
        capture_output=True,
        check=True,
    )
    result = json.loads(done.stdout)
    return Measurement(str(result["outcome"]), float(result["ms"]), float(result["mib"]))


def _peak_mib() -> float:
    """This process's peak resident memory (``VmHWM``), not the parent's."""
    with open(_STATUS, encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024.0


def _read_header(asset: bytes) -> None:
    """The plain baseline: what the plain library reads of the header alone."""
    import io
    import warnings

    from pytest_openmed.carriers.dicom import has_dicom_prefix
    from pytest_openmed.carriers.png import PNG_SIGNATURE

    warnings.simplefilter("ignore")
    if asset.startswith(PNG_SIGNATURE):
        from PIL import Image

        _ = Image.open(io.BytesIO(asset)).size
    elif has_dicom_prefix(asset):
        import pydicom

        _ = pydicom.dcmread(io.BytesIO(asset), stop_before_pixels=True).Rows
    else:
        import tifffile

        with tifffile.TiffFile(io.BytesIO(asset)) as tif:
            _ = tif.pages[0].shape


def _child(mode: str, component: str, config: str) -> dict[str, object]:
    asset = sys.stdin.buffer.read()
    module = importlib.import_module(f"pytest_openmed.components.{component}")
    from pytest_openmed.components import ComponentError

    start = time.perf_counter()
    if mode == "run":
        try:
            result = module.run(asset, getattr(module, config))
            outcome = "abstained" if result.abstained else "ran"
        except ComponentError as error:
            outcome = type(error).__name__
    else:
        _read_header(asset)
        outcome = "header read"
    ms = 1000.0 * (time.perf_counter() - start)
    return {"outcome": outcome, "ms": ms, "mib": _peak_mib()}


if __name__ == "__main__":
    print(json.dumps(_child(*sys.argv[1:4])))
