"""Validation of the burned_in component on real images (issue 11).

Run ``python validation/burned_in.py`` (needs the ``dev`` extra: ``pydicom-data``
and ``deid-data``). It reads only files shipped inside installed packages —
pydicom's bundled test files, ``pydicom-data``'s data store and ``deid-data`` —
and never downloads anything. Three sets:

* **text-free**: real CT, MR, CR and ultrasound images without burned-in text,
  as shipped (native single-frame DICOM) or derived from a real file (one frame
  of a multi-frame object, a decompressed copy, a 512-px tile or a half-resolution
  copy of a large radiograph, the grey scan area of an ultrasound image);
* **real text**: the real ultrasound image of ``deid-data`` whose burned-in
  identifiers and label column are real pixels (tokens found below);
* **rendered**: synthetic identifier strings (one line, or stacked blocks at
  ordinary line spacing) drawn by the generator onto every text-free
  background at contrasts 0.12–0.6, carried as DICOM and PNG;
* **plain**: the same renderings on plain 512 x 512 backgrounds of each kind
  (black, grey, a gentle gradient; the generator's ``plain_background``), the
  simplest layout there is (ultrasound margins, secondary captures): a silent
  miss rate of 0 on every kind. Development split: the detector was tuned on
  render seeds below :data:`CHECK_SEED` and is checked on seeds from it; both
  halves are printed;
* **split**: the text-free and rendered targets again on each half of the real
  backgrounds (alternate images in listing order), the tuning and check halves;
* **graphics**: burned-in graphics that are not text, generated from their
  physics (``render_graphic``: step wedges, rulers, tick scales at 3-16 px on
  plain backgrounds; tuning and check seeds), text beside them (identifier
  tokens and repeated digits), and repeated-digit strings ("1111", "0000")
  rendered on every text-free and plain background: such strings have stems as
  regular as a ruler's, and no rule for graphics may let them through;
* **mr-like**: generated MR-like backgrounds built from how magnitude MR images
  are made (:func:`mr_like_background`: anatomy plus complex Gaussian noise,
  its magnitude, an interpolated reconstruction, an exactly black display
  frame), text-free and with the rendered strings, on a tuning and a check
  half of seeds: abstentions and privacy failures are measured, silent misses
  are a target (issue 27: why the noisy 1024-px MR abstains, and what lifting
  that abstention would expose).

It prints every target with its figure and whether it holds, and exits 1 if
any does not.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image
from scipy import ndimage

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B, BurnedInConfig, run
from pytest_openmed.development.sources.burned_in import (
    BACKGROUNDS,
    GRAPHICS,
    MISS_FRACTION,
    identifier_coverage,
    plain_background,
    render_graphic,
    render_on_background,
)

if __package__:  # imported as ``validation.burned_in`` (the tests)
    from validation._report import Report, Target
else:  # run as ``python validation/burned_in.py``
    from _report import Report, Target

__all__ = [
    "RealImage",
    "label_tokens",
    "real_file",
    "rendered_sources",
    "text_free_image",
    "text_free_images",
]

Array = NDArray[Any]

#: Where each package keeps its files, relative to the package directory.
_ROOTS = {"pydicom": "data/test_files", "data_store": "data", "deid_data": "data"}


def real_file(package: str, name: str) -> Path:
    """A file shipped inside an installed package (never downloaded); KeyError if absent."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise KeyError(f"package {package} is not installed (install the dev extra)")
    path = Path(spec.origin).parent / _ROOTS[package] / name
    if not path.is_file():
        raise KeyError(f"{package} does not ship {name}")
    return path


def _dataset(package: str, name: str) -> Any:
    import pydicom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pydicom.dcmread(real_file(package, name))


@dataclass(frozen=True, slots=True)
class RealImage:
    """One real image: its name, modality, the asset the component reads, and its display image."""

    name: str
    modality: str
    asset: bytes
    display: Array  # float in [0, 1], MONOCHROME1 inverted: the background for rendering


def _display(pixels: Array, inverted: bool) -> Array:
    image = pixels.astype(np.float64)
    low, high = np.percentile(image, (0.1, 99.9))
    scaled: Array = np.clip((image - low) / max(high - low, 1e-9), 0.0, 1.0)
    return 1.0 - scaled if inverted else scaled


def _native(dataset: Any, pixels: Array) -> bytes:
    """``dataset`` rewritten as native Explicit VR Little Endian, one frame of ``pixels``."""
    from pydicom.uid import ExplicitVRLittleEndian

    out = dataset.copy()
    out.file_meta = dataset.file_meta.copy()
    out.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    for keyword in ("NumberOfFrames", "PerFrameFunctionalGroupsSequence", "PlanarConfiguration"):
        if keyword in out:
            delattr(out, keyword)
    if pixels.ndim == 3 or out.PhotometricInterpretation not in ("MONOCHROME1", "MONOCHROME2"):
        out.PhotometricInterpretation = "MONOCHROME2"
        out.SamplesPerPixel = 1
    if pixels.dtype == np.uint8:
        out.BitsAllocated, out.BitsStored, out.HighBit = 8, 8, 7
    out.Rows, out.Columns = pixels.shape
    out.PixelData = np.ascontiguousarray(pixels).astype(pixels.dtype.newbyteorder("<")).tobytes()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


def _grey(dataset: Any, frame: int | None = None) -> Array:
    """The luminance of a colour (RGB, YBR or palette) ultrasound image, as 8-bit grey."""
    from pydicom.pixels import apply_color_lut, convert_color_space

    pixels = dataset.pixel_array if frame is None else dataset.pixel_array[frame]
    photometric = dataset.PhotometricInterpretation
    if photometric == "PALETTE COLOR":
        pixels = apply_color_lut(pixels, dataset)
        if pixels.dtype != np.uint8:
            pixels = (pixels >> 8).astype(np.uint8)
    elif photometric.startswith("YBR"):
        pixels = convert_color_space(pixels, photometric, "RGB")
    luma = pixels[..., :3].astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    grey: Array = np.rint(luma).astype(np.uint8)
    return grey


def _image(
    name: str, modality: str, dataset: Any, pixels: Array, *, as_shipped: bytes | None
) -> RealImage:
    inverted = str(dataset.get("PhotometricInterpretation", "")) == "MONOCHROME1"
    asset = as_shipped if as_shipped is not None else _native(dataset, pixels)
    return RealImage(name, modality, asset, _display(pixels, inverted))


#: Native single-frame monochrome files read as shipped: (package, file, modality).
_AS_SHIPPED = (
    ("pydicom", "CT_small.dcm", "CT"),
    ("data_store", "693_UNCR.dcm", "CT"),
    ("pydicom", "MR_small.dcm", "MR"),
    ("pydicom", "examples_overlay.dcm", "MR"),
    ("data_store", "MR-SIEMENS-DICOM-WithOverlays.dcm", "MR"),
    ("data_store", "MR2_UNCR.dcm", "MR"),
)
#: Compressed single-frame CT decoded by pydicom and re-encoded as native DICOM.
_DECOMPRESSED = (
    ("data_store", "explicit_VR-UN.dcm", "CT"),
    ("pydicom", "J2K_pixelrep_mismatch.dcm", "CT"),
)
#: Multi-frame objects: the middle frame, one image per acquisition (the frames of one
#: series are near-duplicates and would outweigh the other images).
_FRAMES = (("data_store", "eCT_Supplemental.dcm", "CT"), ("data_store", "emri_small.dcm", "MR"))
#: Radiographs too large for one asset: 512-px tiles (a 3 x 3 grid) and a half-resolution copy,
#: each with the box (rows, columns) of its burned-in laterality marker, if any: RG3 carries
#: an "R"; tiles and copies that overlap a marker are left out (a marker is text).
_RADIOGRAPHS = (
    ("data_store", "RG1_UNCR.dcm", "CR", None),
    ("data_store", "RG3_UNCR.dcm", "CR", (1360, 1490, 1130, 1230)),
)
#: The grey scan area (rows, columns) of real ultrasound images, clear of every label,
#: scale and caliper: (package, file, modality, frame, crop).
_SCAN_AREAS = (
    ("deid_data", "ultrasounds/GREYSCALE_IMAGE.dcm", None, (slice(180, 700), slice(130, 890))),
    ("deid_data", "ultrasounds/RGB_IMAGE.dcm", None, (slice(90, 720), slice(40, 660))),
    ("data_store", "US1_UNCR.dcm", None, (slice(112, 332), slice(45, 595))),
    ("data_store", "OBXXXX1A.dcm", None, (slice(110, 440), slice(210, 760))),
    ("data_store", "gdcm-US-ALOKA-16.dcm", None, (slice(95, 415), slice(50, 330))),
    ("data_store", "gdcm-US-ALOKA-16.dcm", None, (slice(95, 415), slice(345, 600))),
)


def text_free_image(name: str) -> RealImage:
    """The text-free image called ``name`` (as listed by ``--list``); KeyError if none is."""
    for image in text_free_images():
        if image.name == name:
            return image
    raise KeyError(f"no text-free image {name}")


def text_free_images() -> Iterator[RealImage]:
    """Real CT, MR, CR and ultrasound images without burned-in text (see the module docstring)."""
    for package, name, modality in _AS_SHIPPED:
        dataset = _dataset(package, name)
        yield _image(
            name,
            modality,
            dataset,
            dataset.pixel_array,
            as_shipped=real_file(package, name).read_bytes(),
        )
    for package, name, modality in _DECOMPRESSED:
        dataset = _dataset(package, name)
        yield _image(f"{name}:native", modality, dataset, dataset.pixel_array, as_shipped=None)
    for package, name, modality in _FRAMES:
        dataset = _dataset(package, name)
        frame = int(dataset.NumberOfFrames) // 2
        pixels = dataset.pixel_array[frame]
        yield _image(f"{name}:frame{frame}", modality, dataset, pixels, as_shipped=None)
    for package, name, modality, marked in _RADIOGRAPHS:
        dataset = _dataset(package, name)
        pixels = dataset.pixel_array
        rows = np.linspace(0, pixels.shape[0] - 512, 3).astype(int)
        cols = np.linspace(0, pixels.shape[1] - 512, 3).astype(int)
        for i, y in enumerate(rows):
            for j, x in enumerate(cols):
                if marked is None or not (
                    y < marked[1] and marked[0] < y + 512 and x < marked[3] and marked[2] < x + 512
                ):
                    tile = pixels[y : y + 512, x : x + 512]
                    yield _image(f"{name}:tile{i}{j}", modality, dataset, tile, as_shipped=None)
        if marked is None:
            height, width = (pixels.shape[0] // 2) * 2, (pixels.shape[1] // 2) * 2
            half = pixels[:height, :width].reshape(height // 2, 2, width // 2, 2).mean(axis=(1, 3))
            half = np.rint(half).astype(pixels.dtype)
            yield _image(f"{name}:half", modality, dataset, half, as_shipped=None)
    for package, name, _frame, crop in _SCAN_AREAS:
        dataset = _dataset(package, name)
        grey = (
            _grey(dataset)
            if dataset.PhotometricInterpretation != "MONOCHROME2"
            else dataset.pixel_array
        )
        area = np.ascontiguousarray(grey[crop]).astype(np.uint8)
        label = f"{name}:scan[{crop[0].start}:{crop[0].stop},{crop[1].start}:{crop[1].stop}]"
        yield _image(label, "US", dataset, area, as_shipped=None)


# --------------------------------------------------------------------------- real text

#: The real ultrasound image with burned-in identifiers, its scan area (rows, columns),
#: and the display level above which a pixel is (bright, white) label text.
_LABELLED = ("deid_data", "ultrasounds/GREYSCALE_IMAGE.dcm")
_LABELLED_SCAN = (slice(88, 712), slice(122, 900))
_TEXT_LEVEL = 0.5
#: Its patient banner (rows): name, patient ID, birth date, sex, institution, study date
#: and time — the identifier tokens. The other labels (probe, preset, gain, scale, zoom)
#: are acquisition text.
_BANNER_ROWS = 22


def label_tokens() -> tuple[bytes, list[Array], list[Array]]:
    """The real labelled ultrasound image and the pixel masks of its text tokens:
    the identifier tokens of its patient banner, and its other labels.

    Tokens are found in the pixels outside the scan area: bright pixels (the labels are
    white) grouped into words by closing gaps of up to 4 px along a line; groups of
    fewer than 12 pixels or 5 rows (tick marks, the scale's dots) or taller than 30 rows
    (the grey-scale bar) are not tokens.
    """
    dataset = _dataset(*_LABELLED)
    display = _display(dataset.pixel_array, inverted=False)
    text = display >= _TEXT_LEVEL
    text[_LABELLED_SCAN] = False
    words, _ = ndimage.label(
        ndimage.binary_closing(text, structure=np.ones((1, 9), dtype=bool)) | text
    )
    tokens = []
    for label, where in enumerate(ndimage.find_objects(words), start=1):
        if where is None:
            continue
        mask = np.zeros(text.shape, dtype=bool)
        mask[where] = (words[where] == label) & text[where]
        height = where[0].stop - where[0].start
        width = where[1].stop - where[1].start
        if mask.sum() >= 12 and 5 <= height <= 30 and width >= 4:
            tokens.append(mask)
    banner = [t for t in tokens if not t[_BANNER_ROWS:].any()]
    labels = [t for t in tokens if t[_BANNER_ROWS:].any()]
    return real_file(*_LABELLED).read_bytes(), banner, labels


# --------------------------------------------------------------------------- rendered

#: Rendered cases per background: (font_px, lines, pitch). Stacked blocks at ordinary
#: line spacing (12 px text at 13-15 px pitch, 16 px at 17-18 px) and single lines.
RENDERINGS = (
    (12, 3, 15),
    (12, 4, 13),
    (16, 3, 18),
    (16, 5, 17),
    (14, 4, 16),
    (9, 1, 10),
    (12, 1, 13),
    (20, 1, 21),
)
CONTRASTS = (0.12, 0.2, 0.35, 0.6)
RENDER_CARRIERS = ("dicom16", "png8", "dicom8", "png16")


def rendered_sources(backgrounds: list[RealImage]) -> Iterator[tuple[str, Any]]:
    """Identifier text on each background: every rendering; contrasts and carriers rotate."""
    index = 0
    for number, image in enumerate(backgrounds):
        for font_px, lines, pitch in RENDERINGS:
            contrast = CONTRASTS[(index + number) % len(CONTRASTS)]
            carrier = RENDER_CARRIERS[(index // len(CONTRASTS) + number) % len(RENDER_CARRIERS)]
            index += 1
            source = render_on_background(
                image.display,
                index,
                carrier=carrier,
                font_px=font_px,
                contrast=contrast,
                lines=lines,
                pitch=pitch,
            )
            if source is not None:
                yield f"{image.modality}:{image.name}:{font_px}px/{lines}@{pitch}:{carrier}", source


# --------------------------------------------------------------------------- report


def _masked_share(output: Any, shape: tuple[int, int]) -> float:
    masked = np.zeros(shape, dtype=bool)
    for x0, y0, x1, y1 in output.output["regions"]:
        masked[y0:y1, x0:x1] = True
    return float(masked.mean())


def _text_free_targets(images: list[RealImage], configs: dict[str, BurnedInConfig]) -> list[Target]:
    targets = []
    for label, config in configs.items():
        flagged, shares, analysed, mr_abstained, mr_total = [], [], [], 0, 0
        for image in images:
            output = run(image.asset, config)
            if "privacy" in output.safety_failures:
                flagged.append(image.name)
            share = _masked_share(output, image.display.shape)
            shares.append(share)
            if not output.abstained:
                analysed.append(share)
            if image.modality == "MR":
                mr_total += 1
                mr_abstained += output.abstained
        rate = len(flagged) / len(images)
        targets.append(
            Target(
                f"text-free real images, config {label}: privacy failure rate <= 10 %",
                f"{rate:.1%} ({len(flagged)}/{len(images)}) {sorted(flagged)[:6]}",
                rate <= 0.10,
            )
        )
        mean_share = float(np.mean(analysed)) if analysed else 0.0
        targets.append(
            Target(
                f"text-free real images analysed, config {label}: mean masked area <= 2 %",
                f"{mean_share:.2%} over {len(analysed)} analysed (max {max(analysed):.2%}); "
                f"{float(np.mean(shares)):.2%} over all {len(images)}, abstentions included",
                mean_share <= 0.02,
            )
        )
        targets.append(
            Target(
                f"text-free real MR, config {label}: analysed, not abstained wholesale (< 50 %)",
                f"{mr_total - mr_abstained}/{mr_total} analysed",
                mr_abstained < 0.5 * mr_total,
            )
        )
    return targets


def _masked_shares(output: Any, tokens: list[Array]) -> list[float]:
    masked = np.zeros(tokens[0].shape, dtype=bool)
    for x0, y0, x1, y1 in output.output["regions"]:
        masked[y0:y1, x0:x1] = True
    return [float((t & masked).sum() / t.sum()) for t in tokens]


def _real_text_targets(configs: dict[str, BurnedInConfig]) -> list[Target]:
    asset, banner, labels = label_tokens()
    targets = []
    for label, config in configs.items():
        output = run(asset, config)
        missed = sum(share < MISS_FRACTION for share in _masked_shares(output, banner))
        others = sum(share >= MISS_FRACTION for share in _masked_shares(output, labels))
        flagged = "privacy" in output.safety_failures
        targets.append(
            Target(
                f"real ultrasound banner, config {label}: every identifier token masked",
                f"{len(banner) - missed}/{len(banner)} masked; other labels {others}/"
                f"{len(labels)} masked, privacy failure {'yes' if flagged else 'no'}",
                missed == 0,
            )
        )
    return targets


def _rendered_targets(
    images: list[RealImage], configs: dict[str, BurnedInConfig], args_verbose: bool = False
) -> list[Target]:
    sources = list(rendered_sources(images))
    targets = []
    for label, config in configs.items():
        silent: dict[str, list[str]] = {"DICOM": [], "PNG": []}
        blocks: dict[str, int] = {"DICOM": 0, "PNG": 0}
        strings = missed = analysed = analysed_missed = 0
        for name, source in sources:
            output = run(source.asset, config)
            covered = identifier_coverage(source.truth, output.output["regions"])
            strings += len(covered)
            missed += sum(c < MISS_FRACTION for c in covered)
            if not output.abstained:
                analysed += len(covered)
                analysed_missed += sum(c < MISS_FRACTION for c in covered)
            if args_verbose and min(covered) < MISS_FRACTION:
                print(f"  missed ({label}): {name} {[round(c, 2) for c in covered]}")
            carrier = "DICOM" if source.media_type == "application/dicom" else "PNG"
            if len(covered) > 1:
                blocks[carrier] += 1
            reported = "privacy" in output.safety_failures or output.abstained
            if min(covered) < MISS_FRACTION and not reported:
                silent[carrier].append(name)
        for carrier in ("DICOM", "PNG"):
            targets.append(
                Target(
                    f"rendered on real backgrounds ({carrier}), config {label}: zero silent misses",
                    f"{len(silent[carrier])} silent, {blocks[carrier]} stacked blocks "
                    f"{silent[carrier][:3]}",
                    not silent[carrier],
                )
            )
        limit = 0.05 if label == "A" else 0.10
        rate = missed / strings
        targets.append(
            Target(
                f"rendered strings at contrast >= 0.12, abstentions counted, config {label}: "
                f"missed < {limit:.0%}",
                f"{rate:.1%} ({missed}/{strings}); {analysed_missed / analysed:.1%} "
                f"({analysed_missed}/{analysed}) on the images analysed",
                rate < limit,
            )
        )
    return targets


#: Plain backgrounds: side, render seeds per kind and half, and the first seed of the check half.
PLAIN_SIDE = 512
PLAIN_SEEDS = 3
CHECK_SEED = 1000


def plain_sources(kind: str, first_seed: int, seeds: int) -> Iterator[tuple[str, Any]]:
    """Every rendering at every contrast on plain ``kind`` backgrounds; carriers rotate."""
    index = 0
    for seed in range(first_seed, first_seed + seeds):
        rng = np.random.default_rng([seed, BACKGROUNDS.index(kind)])
        background = plain_background(rng, kind, (PLAIN_SIDE, PLAIN_SIDE))
        for font_px, lines, pitch in RENDERINGS:
            for contrast in CONTRASTS:
                carrier = RENDER_CARRIERS[index % len(RENDER_CARRIERS)]
                index += 1
                source = render_on_background(
                    background,
                    seed,
                    carrier=carrier,
                    font_px=font_px,
                    contrast=contrast,
                    lines=lines,
                    pitch=pitch,
                )
                if source is not None:
                    yield f"{kind}:{seed}:{font_px}px/{lines}@{pitch}:{contrast}:{carrier}", source


def _plain_targets(configs: dict[str, BurnedInConfig]) -> list[Target]:
    targets = []
    for half, first in (("tuning half", 0), ("check half", CHECK_SEED)):
        for kind in BACKGROUNDS[1:]:
            sources = list(plain_sources(kind, first, PLAIN_SEEDS))
            for label, config in configs.items():
                strings = missed = silent = 0
                for _name, source in sources:
                    output = run(source.asset, config)
                    covered = identifier_coverage(source.truth, output.output["regions"])
                    lost = sum(c < MISS_FRACTION for c in covered)
                    strings += len(covered)
                    missed += lost
                    if not ("privacy" in output.safety_failures or output.abstained):
                        silent += lost
                targets.append(
                    Target(
                        f"plain {kind} {PLAIN_SIDE} px, {half}, config {label}: zero silent misses",
                        f"{silent} silent; {missed}/{strings} strings missed",
                        silent == 0,
                    )
                )
    return targets


def _split_targets(images: list[RealImage], configs: dict[str, BurnedInConfig]) -> list[Target]:
    """The text-free and rendered targets on each half of the real backgrounds (alternate
    images in listing order): a change that helps one half and hurts the other is no fix."""
    targets = []
    for half, part in (("tuning half", images[0::2]), ("check half", images[1::2])):
        for target in _text_free_targets(part, configs) + _rendered_targets(part, configs):
            targets.append(Target(f"[{half}] {target.name}", target.figure, target.holds))
    return targets


#: Burned-in graphics: bar widths / tick periods, plain-background seeds per half, and
#: the strings drawn beside graphics and on every background (repeated digits have
#: stems as regular as ticks; identifier tokens are the generator's shapes).
GRAPHIC_SCALES = (3, 4, 5, 6, 8, 11, 16)
GRAPHIC_SEEDS = 5
REPEATED_DIGITS = (
    ("1111",),
    ("0000",),
    ("11111111",),
    ("00000000",),
    ("1111-1111",),
    ("11-11-1111",),
    ("ID ZZ111111",),
    ("ACC 0000-0000",),
    ("1111", "0000", "1111"),
)
DIGIT_FONTS = (9, 12, 16, 20)


def graphic_sources(kind: str, first_seed: int) -> Iterator[tuple[str, Any]]:
    """Text-free ``kind`` graphics on plain 512-px backgrounds, at every scale."""
    index = 0
    for seed in range(first_seed, first_seed + GRAPHIC_SEEDS):
        for background_kind in BACKGROUNDS[1:]:
            rng = np.random.default_rng([seed, BACKGROUNDS.index(background_kind), 5])
            background = plain_background(rng, background_kind, (PLAIN_SIDE, PLAIN_SIDE))
            for scale in GRAPHIC_SCALES:
                carrier = RENDER_CARRIERS[index % len(RENDER_CARRIERS)]
                index += 1
                source = render_graphic(
                    background, seed, kind=kind, carrier=carrier, scale_px=scale
                )
                yield f"{kind}:{background_kind}:{seed}:{scale}px:{carrier}", source


def beside_graphic_sources(first_seed: int) -> Iterator[tuple[str, Any]]:
    """Repeated digits and identifier tokens beside a step wedge or a tick scale."""
    index = 0
    for seed in range(first_seed, first_seed + GRAPHIC_SEEDS):
        rng = np.random.default_rng([seed, 7])
        background = plain_background(rng, "grey", (PLAIN_SIDE, PLAIN_SIDE))
        for kind in ("step_wedge", "tick_scale"):
            for texts in REPEATED_DIGITS:
                for beside in ("right", "below"):
                    scale = GRAPHIC_SCALES[index % len(GRAPHIC_SCALES)]
                    font_px = DIGIT_FONTS[index % len(DIGIT_FONTS)]
                    contrast = CONTRASTS[index % len(CONTRASTS)]
                    index += 1
                    source = render_graphic(
                        background,
                        seed,
                        kind=kind,
                        carrier=RENDER_CARRIERS[index % len(RENDER_CARRIERS)],
                        scale_px=scale,
                        texts=texts,
                        font_px=font_px,
                        contrast=contrast,
                        beside=beside,
                    )
                    yield f"{kind}:{seed}:{'/'.join(texts)}:{beside}:{font_px}px", source


def digit_sources(backgrounds: list[tuple[str, Array]]) -> Iterator[tuple[str, Any]]:
    """Every repeated-digit string at every font on each background; contrasts rotate."""
    index = 0
    for name, background in backgrounds:
        for texts in REPEATED_DIGITS:
            for font_px in DIGIT_FONTS:
                index += 1
                source = render_on_background(
                    background,
                    index,
                    carrier=RENDER_CARRIERS[index % len(RENDER_CARRIERS)],
                    font_px=font_px,
                    contrast=CONTRASTS[index % len(CONTRASTS)],
                    pitch=font_px + 2,
                    texts=texts,
                )
                if source is not None:
                    yield f"{name}:{'/'.join(texts)}:{font_px}px", source


def _silent_target(
    title: str, sources: list[tuple[str, Any]], label: str, config: BurnedInConfig
) -> Target:
    strings = missed = 0
    silent: list[str] = []
    for name, source in sources:
        output = run(source.asset, config)
        covered = identifier_coverage(source.truth, output.output["regions"])
        lost = sum(c < MISS_FRACTION for c in covered)
        strings += len(covered)
        missed += lost
        if lost and not ("privacy" in output.safety_failures or output.abstained):
            silent.append(name)
    return Target(
        f"{title}, config {label}: zero silent misses",
        f"{len(silent)} silent; {missed}/{strings} strings missed {silent[:3]}",
        not silent,
    )


def _graphics_targets(images: list[RealImage], configs: dict[str, BurnedInConfig]) -> list[Target]:
    targets = []
    for half, first in (("tuning half", 0), ("check half", CHECK_SEED)):
        for kind in GRAPHICS:
            sources = list(graphic_sources(kind, first))
            for label, config in configs.items():
                flagged = masked = 0
                for _name, source in sources:
                    output = run(source.asset, config)
                    flagged += "privacy" in output.safety_failures
                    masked += bool(output.output["regions"])
                rate = flagged / len(sources)
                # Step wedges are a target under B; rulers and tick scales are measured.
                holds = rate <= 0.10 if kind == "step_wedge" and label == "B" else None
                targets.append(
                    Target(
                        f"[{half}] generated {kind}, text-free, config {label}: privacy"
                        + (" <= 10 %" if holds is not None else ""),
                        f"{rate:.1%} ({flagged}/{len(sources)}); masked on {masked}",
                        holds,
                    )
                )
        beside = list(beside_graphic_sources(first))
        for label, config in configs.items():
            targets.append(
                _silent_target(f"[{half}] text beside generated graphics", beside, label, config)
            )
    plains = [
        (kind, plain_background(np.random.default_rng([0, index]), kind, (PLAIN_SIDE,) * 2))
        for index, kind in enumerate(BACKGROUNDS[1:], start=1)
    ]
    digits = list(digit_sources(plains + [(image.name, image.display) for image in images]))
    for label, config in configs.items():
        targets.append(
            _silent_target("repeated digits on plain and real backgrounds", digits, label, config)
        )
    return targets


#: MR-like backgrounds: sides, seeds per half, the interpolation factors of the
#: reconstruction, the noise (standard deviation of each complex channel, display
#: scale of the anatomy) and the widest black frame on a side (share of the side).
MR_SIDES = (256, 512, 1024)
MR_SEEDS = 10
MR_ZOOMS = (1, 2, 4)
MR_NOISE = (0.01, 0.06)
MR_FRAME = 0.12


def mr_like_background(rng: np.random.Generator, side: int) -> Array:
    """A magnitude-MR-like image in [0, 1], built from how one is made.

    Anatomy (an elliptical body, structures of other signal inside it, a little
    tissue texture) is acquired on a grid ``zoom`` times coarser than ``side``
    with complex Gaussian noise in both channels; the magnitude makes the air
    Rayleigh noise and the tissue Rician; the reconstruction is interpolated to
    ``side`` (cubic), so the noise is correlated over ``zoom`` pixels; the
    display frame around the field of view is exactly black. Scaled between
    its 0.1 and 99.9 percentiles, as the real backgrounds are.
    """
    zoom = int(rng.choice(MR_ZOOMS))
    coarse = max(16, side // zoom)
    yy, xx = np.mgrid[0:coarse, 0:coarse] / coarse
    cy, cx = rng.uniform(0.4, 0.6, 2)
    ry, rx = rng.uniform(0.25, 0.4, 2)
    body = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0
    anatomy = rng.uniform(0.3, 0.5) * body.astype(np.float64)
    for _ in range(int(rng.integers(3, 9))):
        by, bx = cy + rng.uniform(-0.7, 0.7) * ry, cx + rng.uniform(-0.7, 0.7) * rx
        sy, sx = rng.uniform(0.03, 0.15, 2)
        inside = (((yy - by) / sy) ** 2 + ((xx - bx) / sx) ** 2 <= 1.0) & body
        anatomy += rng.uniform(-0.25, 0.4) * inside
    anatomy = ndimage.gaussian_filter(np.clip(anatomy, 0.0, None), rng.uniform(0.5, 1.5))
    texture = ndimage.gaussian_filter(rng.normal(0.0, 1.0, anatomy.shape), 1.0)
    anatomy += rng.uniform(0.0, 0.04) * texture * body
    sigma = rng.uniform(*MR_NOISE)
    image = np.hypot(
        anatomy + rng.normal(0.0, sigma, anatomy.shape), rng.normal(0.0, sigma, anatomy.shape)
    )
    image = np.clip(ndimage.zoom(image, zoom, order=3), 0.0, None)[:side, :side]
    image = np.pad(image, ((0, side - image.shape[0]), (0, side - image.shape[1])))
    top, bottom, left, right = (rng.uniform(0.0, MR_FRAME, 4) * side).astype(int)
    image[:top] = 0.0
    image[side - bottom :] = 0.0
    image[:, :left] = 0.0
    image[:, side - right :] = 0.0
    return _display(image, inverted=False)


def mr_like_images(first_seed: int) -> list[RealImage]:
    """:data:`MR_SEEDS` MR-like backgrounds from ``first_seed``, as 16-bit PNG assets."""
    images = []
    for seed in range(first_seed, first_seed + MR_SEEDS):
        side = MR_SIDES[seed % len(MR_SIDES)]
        display = mr_like_background(np.random.default_rng([seed, 27]), side)
        buffer = io.BytesIO()
        Image.fromarray(np.rint(display * 65535).astype(np.uint16)).save(buffer, format="PNG")
        images.append(RealImage(f"mr-like:{seed}:{side}px", "MR", buffer.getvalue(), display))
    return images


def _mr_like_targets(configs: dict[str, BurnedInConfig]) -> list[Target]:
    targets = []
    for half, first in (("tuning half", 0), ("check half", CHECK_SEED)):
        images = mr_like_images(first)
        sources = list(rendered_sources(images))
        for label, config in configs.items():
            outputs = [run(image.asset, config) for image in images]
            abstained = sum(output.abstained for output in outputs)
            flagged = sum("privacy" in output.safety_failures for output in outputs)
            targets.append(
                Target(
                    f"[{half}] generated MR-like, text-free, config {label}: abstained; privacy",
                    f"{abstained}/{len(images)} abstained; privacy on {flagged}/{len(images)}",
                    None,
                )
            )
            targets.append(
                _silent_target(f"[{half}] rendered on generated MR-like", sources, label, config)
            )
    return targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the text-free images and exit")
    parser.add_argument("--verbose", action="store_true", help="name every missed rendering")
    parser.add_argument(
        "--only",
        choices=("text-free", "real-text", "rendered", "plain", "split", "graphics", "mr-like"),
        help="run one set only",
    )
    args = parser.parse_args(argv)
    images = list(text_free_images())
    if args.list:
        for image in images:
            print(f"{image.modality:3} {image.name} {image.display.shape}")
        return 0
    configs = {"A": CONFIG_A, "B": CONFIG_B}
    sections: dict[str, Callable[[], list[Target]]] = {
        "text-free": lambda: _text_free_targets(images, configs),
        "real-text": lambda: _real_text_targets(configs),
        "rendered": lambda: _rendered_targets(images, configs, args.verbose),
        "plain": lambda: _plain_targets(configs),
        "split": lambda: _split_targets(images, configs),
        "graphics": lambda: _graphics_targets(images, configs),
        "mr-like": lambda: _mr_like_targets(configs),
    }
    report = Report()
    for name, section in sections.items():
        if args.only not in (None, name):
            continue
        for target in section():
            report.add(target)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
