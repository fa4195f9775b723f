"""Benchmark of the forms and burned_in components against plain decoding.

Run ``python benchmarks/components_forms_burned_in.py``.  For generated sources
(three slices; for burned_in every carrier) it times, in the same run:

* ``forms.run`` under configurations A and B, against a baseline that only
  decodes the PNG to grey with Pillow (``Image.open`` + ``convert("L")``);
* ``burned_in.run`` under A and B, against a baseline that only decodes the
  pixels (pydicom ``dcmread`` + ``pixel_array``, or Pillow for PNG);

plus real images for burned_in: pydicom's ``examples_overlay.dcm`` (MR,
300 x 484) and, when the ``dev`` extra's ``pydicom-data`` and ``deid-data`` are
installed, a 512 x 512 CT, a 768 x 1024 ultrasound, a 1024 x 1024 MR, a
half-resolution chest radiograph and the scan area of a speckled ultrasound
(read from the installed packages, never downloaded); and for forms, pages laid
on the real photographed paper of scikit-image's ``page`` (shading, grain,
bleed-through), when scikit-image is installed.  Each figure is the median of
``--repeat`` runs after one warm-up; the ratio is component / baseline.  Target
(issue 5): under 200 ms per source (the generated sources are 224-320 px a side;
the work grows with the pixel count, so the megapixel real images take longer).
"""

from __future__ import annotations

import functools
import io
import sys
import warnings
from pathlib import Path

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


#: Real images beside the generated sources: (label, package, file).
_REAL = (
    ("real/MR examples_overlay", "pydicom", "examples_overlay.dcm"),
    ("real/CT 693_UNCR 512x512", "data_store", "693_UNCR.dcm"),
    ("real/US GREYSCALE_IMAGE 768x1024", "deid_data", "ultrasounds/GREYSCALE_IMAGE.dcm"),
    ("real/MR MR2_UNCR 1024x1024", "data_store", "MR2_UNCR.dcm"),
)


#: Real images derived in memory by the validation script's catalogue: (label, name).
_DERIVED = (
    ("real/CR RG1_UNCR half", "RG1_UNCR.dcm:half"),
    ("real/US ALOKA scan area", "gdcm-US-ALOKA-16.dcm:scan[95:415,345:600]"),
)


def _real_sources() -> list[tuple[str, bytes]]:
    """The real images whose package is installed (files shipped in it; no download)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from validation.burned_in import real_file, text_free_images

    sources = []
    for label, package, name in _REAL:
        try:
            sources.append((label, real_file(package, name).read_bytes()))
        except KeyError:
            print(f"skipped {label}: install the dev extra")
    try:
        derived = {
            image.name: (f"{image.display.shape[0]}x{image.display.shape[1]}", image.asset)
            for image in text_free_images()
        }
    except KeyError:
        print("skipped the derived real images: install the dev extra")
        return sources
    sources += [(f"{label} {derived[name][0]}", derived[name][1]) for label, name in _DERIVED]
    return sources


def _real_paper_pages(seed: int) -> list[tuple[str, bytes]]:
    """Forms laid on scikit-image's real photographed page, when scikit-image is installed."""
    try:
        from skimage import data
    except ImportError:
        print("skipped forms on real paper: install the dev extra")
        return []
    scan = data.page()  # type: ignore[no-untyped-call]
    return [
        (
            f"real paper/{ink}/scan",
            generate_form_grounding(
                seed, "nominal", ink=ink, acquisition="scan", paper_scan=scan
            ).asset,
        )
        for ink in ("dark", "pencil")
    ]


def main() -> int:
    args = arguments(__doc__)
    rows: list[Row] = []
    pages = [(name, generate_form_grounding(args.seed, name).asset) for name in SLICES]
    for slice_name, page in pages + _real_paper_pages(args.seed):
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
    sources += _real_sources()
    for name, asset in sources:
        base = median_ms(functools.partial(_decode_pixels, asset), args.repeat)
        rows += time_configs(
            burned_in, name, asset, baseline="pixel decode", baseline_ms=base, repeat=args.repeat
        )
    return report(rows)


if __name__ == "__main__":
    raise SystemExit(main())
