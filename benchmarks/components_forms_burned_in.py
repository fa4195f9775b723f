"""Benchmark of the forms and burned_in components against plain decoding.

Run ``python benchmarks/components_forms_burned_in.py``.  For generated sources
(three slices; for burned_in every carrier) it times, in the same run:

* ``forms.run`` under configurations A and B, against a baseline that only
  decodes the PNG to grey with Pillow (``Image.open`` + ``convert("L")``);
* ``burned_in.run`` under A and B, against a baseline that only decodes the
  pixels (pydicom ``dcmread`` + ``pixel_array``, or Pillow for PNG);

plus the real pydicom file ``examples_overlay.dcm`` for burned_in.  Each figure
is the median of ``--repeat`` runs after one warm-up; the ratio is component /
baseline.  Target (issue 5): under 200 ms per source.
"""

from __future__ import annotations

import argparse
import functools
import io
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

from pytest_openmed.components import burned_in, forms
from pytest_openmed.development.sources import SLICES
from pytest_openmed.development.sources.burned_in import (
    CARRIERS,
    generate_burned_in_identifier_coverage,
)
from pytest_openmed.development.sources.forms import generate_form_grounding

TARGET_MS = 200.0


def _median_ms(action: Callable[[], object], repeat: int) -> float:
    action()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000.0 * statistics.median(times)


def _decode_png_grey(asset: bytes) -> object:
    from PIL import Image

    with Image.open(io.BytesIO(asset)) as image:
        return np.asarray(image.convert("L"))


def _decode_pixels(asset: bytes) -> object:
    if asset[128:132] == b"DICM":
        import pydicom

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pydicom.dcmread(io.BytesIO(asset)).pixel_array
    from PIL import Image

    with Image.open(io.BytesIO(asset)) as image:
        return np.asarray(image)


def _real_overlay() -> bytes:
    from pydicom.data import get_testdata_file

    path = get_testdata_file("examples_overlay.dcm")
    assert path is not None
    with open(path, "rb") as handle:
        return handle.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rows = []
    for slice_name in SLICES:
        page = generate_form_grounding(args.seed, slice_name).asset
        base = _median_ms(functools.partial(_decode_png_grey, page), args.repeat)
        for label, form_config in (("A", forms.CONFIG_A), ("B", forms.CONFIG_B)):
            ms = _median_ms(functools.partial(forms.run, page, form_config), args.repeat)
            rows.append(("forms", slice_name, label, ms, "Pillow PNG decode", base))
    sources = [
        (
            f"{slice_name}/{carrier}",
            generate_burned_in_identifier_coverage(args.seed, slice_name, carrier=carrier).asset,
        )
        for slice_name in SLICES
        for carrier in CARRIERS
    ]
    sources.append(("real/examples_overlay", _real_overlay()))
    for name, asset in sources:
        base = _median_ms(functools.partial(_decode_pixels, asset), args.repeat)
        for label, mask_config in (("A", burned_in.CONFIG_A), ("B", burned_in.CONFIG_B)):
            ms = _median_ms(functools.partial(burned_in.run, asset, mask_config), args.repeat)
            rows.append(("burned_in", name, label, ms, "pixel decode", base))

    print(f"{'component':<10} {'source':<32} cfg {'ms':>8}  {'baseline':<18} {'ms':>8}  ratio")
    worst = 0.0
    for component, name, label, ms, baseline, base in rows:
        worst = max(worst, ms)
        print(
            f"{component:<10} {name:<32} {label:>3} {ms:8.1f}  {baseline:<18} "
            f"{base:8.1f}  {ms / base:6.1f}x"
        )
    verdict = "met" if worst < TARGET_MS else "MISSED"
    print(f"slowest component run: {worst:.1f} ms (target < {TARGET_MS:.0f} ms: {verdict})")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
