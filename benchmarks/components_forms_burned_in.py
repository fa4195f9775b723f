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

import functools
import io
import warnings

import numpy as np
from _timing import Row, arguments, median_ms, report, time_configs

from pytest_openmed.components import burned_in, forms
from pytest_openmed.development.sources import SLICES
from pytest_openmed.development.sources.burned_in import (
    CARRIERS,
    generate_burned_in_identifier_coverage,
)
from pytest_openmed.development.sources.forms import generate_form_grounding


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
    args = arguments(__doc__)
    rows: list[Row] = []
    for slice_name in SLICES:
        page = generate_form_grounding(args.seed, slice_name).asset
        base = median_ms(functools.partial(_decode_png_grey, page), args.repeat)
        rows += time_configs(
            forms,
            slice_name,
            page,
            baseline="Pillow PNG decode",
            baseline_ms=base,
            repeat=args.repeat,
        )
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
        base = median_ms(functools.partial(_decode_pixels, asset), args.repeat)
        rows += time_configs(
            burned_in, name, asset, baseline="pixel decode", baseline_ms=base, repeat=args.repeat
        )
    return report(rows)


if __name__ == "__main__":
    raise SystemExit(main())
