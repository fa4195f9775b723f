"""Generated images with synthetic burned-in identifier text and its exact pixel mask.

A smooth synthetic "acquisition" (dark field, a soft elliptical body, broad
Gaussian blobs, a gradient and noise) gets one to four synthetic identifier
strings drawn into its pixels with Pillow's built-in font
(``ImageFont.load_default(size=...)``; nothing is downloaded). Strings are
random tokens in identifier shapes (``ZZ``-prefixed ids, accession-like
numbers, ``ZZ^`` names, dates): none is a real identifier.

Carriers: ``dicom16`` (native Explicit VR Little Endian, MONOCHROME2, 16 bits
allocated, 12 stored), ``dicom8`` (8-bit), ``png8`` (grey) and ``png16``
(16-bit grey). UIDs derive from the seed; no dates or times are written, so the
bytes are identical for a seed. Slices:

* ``nominal`` — clear text (contrast 0.35–0.9 of the display range) on the
  dark field, little noise; DICOM carries Burned In Annotation ``YES``;
* ``adverse_acquisition`` — low contrast (0.12–0.3), bright or dark text, over
  the body as well, more noise, a slight blur, smaller fonts; on about half the
  sources one identifier is a **stacked block** of 2–5 lines at ordinary line
  spacing (top-to-top pitch of ``font_px + 1`` to ``font_px + 3``: 12 px text at
  13–15 px, 16 px at 17–19 px), the corner-block layout of CT/MR/US consoles;
  on about :data:`PLAIN_SHARE` of the sources the background is **plain** instead
  of an acquisition (see :data:`BACKGROUNDS`: black, a uniform grey, or a gentle
  gradient, as in ultrasound margins and secondary captures; 448–640 px a side),
  with little or no noise, in the same layouts;
* ``ambiguity_conflict`` — the Burned In Annotation attribute disagrees with
  the pixels (``NO`` with text, ``YES`` without, or absent), text-like
  non-identifier distractors (tick marks, a thin curve), overlay planes.

Truth: ``identifiers`` [{``box``, ``mask_rle``, ``pixels``, ``contrast``,
``font_px``}], where the mask is every pixel whose glyph coverage is at least
:data:`GLYPH_COVERAGE` (run-length encoded inside the box, row-major, first run
unset; decode with :func:`identifier_masks`), plus ``shape``, ``background`` (a
:data:`BACKGROUNDS` kind; ``None`` for a caller's), ``carrier``,
``burned_in_annotation_attribute`` and ``overlay_planes``. Each line of a stacked
block is its own identifier (with ``block`` and ``line`` numbers).

:func:`render_on_background` draws the same identifier strings (one line or a
stacked block, or lines the caller names) onto a caller's background, e.g. a real
CT, MR, CR or ultrasound image, so that the component can be measured on real
anatomy and real noise. :func:`render_graphic` draws burned-in graphics that are
not text (:data:`GRAPHICS`: step wedges, rulers, tick scales), built from how they
are made, optionally with text beside them.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage

from pytest_openmed.development.sources import GeneratedSource, check_slice
from pytest_openmed.errors import InputRefused

__all__ = [
    "BACKGROUNDS",
    "CARRIERS",
    "GLYPH_COVERAGE",
    "GRAPHICS",
    "MISS_FRACTION",
    "PLAIN_SHARE",
    "STACKED_FONT_PX",
    "STACKED_LINES",
    "STACKED_PITCH_EXTRA",
    "generate_burned_in_identifier_coverage",
    "identifier_coverage",
    "identifier_masks",
    "plain_background",
    "render_graphic",
    "render_on_background",
]

#: The closed set of carriers the generator writes.
CARRIERS = ("dicom16", "dicom8", "png8", "png16")

#: Background kinds: the synthetic acquisition, or a plain one (uniform black, a
#: uniform grey, a gentle linear gradient).
BACKGROUNDS = ("acquisition", "black", "grey", "gradient")

#: Share of adverse sources drawn on a plain background.
PLAIN_SHARE = 0.25

#: Largest rise of a plain gradient across the image (display range): near-uniform.
_GRADIENT_RISE = 0.08

#: A pixel belongs to an identifier when its glyph coverage (antialiasing alpha) is at least this.
GLYPH_COVERAGE = 0.3

#: Scoring: an identifier is *missed* when less than this share of its pixels is masked
#: (the same figure as the nominal coverage target).
MISS_FRACTION = 0.95

_SLICE_INDEX = {"nominal": 0, "adverse_acquisition": 1, "ambiguity_conflict": 2}
_UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ"
_DIGITS = "0123456789"
_SECONDARY_CAPTURE = "1.2.840.10008.5.1.4.1.1.7"
_DISTRACTOR_CLEARANCE = 10
#: Largest background spread (max - min, display range) under a text block.
_MAX_BACKGROUND_SPREAD = 0.15
#: Attempts per wanted identifier (each with a fresh token, size and contrast).
_PLACEMENT_ROUNDS = 4
#: Text plus background stays this far inside the display range.
_HEADROOM = 0.03

#: Burned-in graphics that are not text (:func:`render_graphic`; their truth holds no
#: identifier): a step wedge (a calibration grey scale of equal-width bars of monotone
#: grey levels), a ruler of equal, strictly periodic ticks, and a tick scale whose every
#: 2nd, 5th or 10th tick is long.
GRAPHICS = ("step_wedge", "ruler", "tick_scale")

#: Stacked blocks (adverse slice): how many lines, which font sizes, and how much
#: the top-to-top line pitch exceeds the font size (ordinary line spacing).
STACKED_LINES = (2, 5)
STACKED_FONT_PX = (10, 16)
STACKED_PITCH_EXTRA = (1, 3)

FloatImage = NDArray[np.float64]
BoolImage = NDArray[np.bool_]


def _token(rng: np.random.Generator) -> str:
    """A random string in an identifier's shape; synthetic by construction (``ZZ`` prefix)."""

    def pick(alphabet: str, n: int) -> str:
        return "".join(alphabet[int(i)] for i in rng.integers(0, len(alphabet), n))

    kind = int(rng.integers(0, 4))
    if kind == 0:
        return "ID ZZ" + pick(_DIGITS, 6)
    if kind == 1:
        return "ACC " + pick(_DIGITS, 4) + "-" + pick(_DIGITS, 4)
    if kind == 2:
        return "ZZ^" + pick(_UPPER, int(rng.integers(4, 8)))
    return f"DOB 19{pick(_DIGITS, 2)}-0{int(rng.integers(1, 10))}-1{int(rng.integers(0, 10))}"


def _background(rng: np.random.Generator, shape: tuple[int, int]) -> FloatImage:
    height, width = shape
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    image = rng.uniform(0.03, 0.12) + rng.uniform(-0.04, 0.04) * (xx / width)
    cy, cx = height * rng.uniform(0.42, 0.58), width * rng.uniform(0.42, 0.58)
    ry, rx = height * rng.uniform(0.28, 0.36), width * rng.uniform(0.26, 0.36)
    body = (((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0).astype(np.float64)
    image += rng.uniform(0.3, 0.45) * ndimage.gaussian_filter(body, sigma=3.0)
    for _ in range(int(rng.integers(3, 8))):
        by = cy + rng.uniform(-0.8, 0.8) * ry
        bx = cx + rng.uniform(-0.8, 0.8) * rx
        sigma = rng.uniform(10.0, 30.0)
        amplitude = rng.uniform(-0.12, 0.2)
        image += amplitude * np.exp(-((yy - by) ** 2 + (xx - bx) ** 2) / (2 * sigma**2))
    result: FloatImage = image
    return result


def plain_background(rng: np.random.Generator, kind: str, shape: tuple[int, int]) -> FloatImage:
    """A plain background of ``kind`` (not ``acquisition``) in the display range [0, 1].

    Black is exactly 0 (text on it can only be brighter); grey is one level in
    0.25-0.65 (both polarities fit); a gradient rises by up to :data:`_GRADIENT_RISE`
    along a random direction from a level in 0.1-0.6.
    """
    if kind not in BACKGROUNDS[1:]:
        raise InputRefused("background must be one of: black, grey, gradient")
    if kind == "black":
        return np.zeros(shape)
    level = float(rng.uniform(0.25, 0.65)) if kind == "grey" else float(rng.uniform(0.1, 0.6))
    if kind == "grey":
        return np.full(shape, level)
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float64)
    angle = float(rng.uniform(0.0, 2.0 * np.pi))
    ramp = np.cos(angle) * xx / shape[1] + np.sin(angle) * yy / shape[0]
    ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-9)
    gradient: FloatImage = level + float(rng.uniform(0.02, _GRADIENT_RISE)) * ramp
    return gradient


def _background_kind(seed: int, slice_name: str, carrier: str) -> str:
    """The adverse slice's background kind, from its own stream (the others stay as they were)."""
    if slice_name != "adverse_acquisition":
        return BACKGROUNDS[0]
    rng = np.random.default_rng([seed, _SLICE_INDEX[slice_name], CARRIERS.index(carrier), 1])
    if rng.random() >= PLAIN_SHARE:
        return BACKGROUNDS[0]
    return BACKGROUNDS[1 + int(rng.integers(0, len(BACKGROUNDS) - 1))]


def _place(
    rng: np.random.Generator,
    image: FloatImage,
    size: tuple[int, int],
    taken: BoolImage,
    anywhere: bool,
    contrast: float,
) -> tuple[int, int, float] | None:
    """A top-left corner and a fitting contrast for a text block, or ``None``.

    The block keeps 6 px clear of other blocks, sits on a smooth background
    (spread at most :data:`_MAX_BACKGROUND_SPREAD`: text straddling a strong
    edge is a documented limit of the component, not generated), and keeps its
    full contrast inside the display range (the polarity flips where only the
    other one fits; glyphs are never clipped away).
    """
    height, width = image.shape
    text_w, text_h = size
    if text_w + 8 >= width or text_h + 8 >= height:
        return None
    for _ in range(64):
        if anywhere:
            x = int(rng.integers(4, width - text_w - 4))
            y = int(rng.integers(4, height - text_h - 4))
        else:  # near a corner or an edge band, as scanners and consoles print them
            x = int(
                rng.choice(
                    [
                        rng.integers(4, 24),
                        rng.integers(max(5, width - text_w - 24), width - text_w - 3),
                    ]
                )
            )
            y = int(
                rng.choice(
                    [
                        rng.integers(4, 40),
                        rng.integers(max(5, height - text_h - 40), height - text_h - 3),
                    ]
                )
            )
        if taken[max(0, y - 6) : y + text_h + 6, max(0, x - 6) : x + text_w + 6].any():
            continue
        under = image[y : y + text_h, x : x + text_w]
        low, high = float(under.min()), float(under.max())
        if high - low > _MAX_BACKGROUND_SPREAD:
            continue
        for signed in (contrast, -contrast):
            if (signed > 0 and high + signed <= 1.0 - _HEADROOM) or (
                signed < 0 and low + signed >= _HEADROOM
            ):
                return (x, y, signed)
    return None


def _block_alphas(texts: Sequence[str], font_px: int, pitch: int) -> list[FloatImage]:
    """One alpha image per line, all of the block's size, lines ``pitch`` px apart (top to top).

    Lines share the font's cap line, as a console prints them; with ``pitch``
    above the glyph height (identifier tokens have no descenders) no two lines
    share a row, so each line's mask is exact.
    """
    font = ImageFont.load_default(size=font_px)
    boxes = [font.getbbox(text) for text in texts]
    left = min(int(b[0]) for b in boxes)
    top = min(int(b[1]) for b in boxes)
    width = max(int(b[2]) for b in boxes) - left + 2
    height = (len(texts) - 1) * pitch + max(int(b[3]) for b in boxes) - top + 2
    alphas = []
    for index, text in enumerate(texts):
        canvas = Image.new("L", (width, height), 0)
        ImageDraw.Draw(canvas).text((1 - left, 1 - top + index * pitch), text, fill=255, font=font)
        alphas.append(np.asarray(canvas, dtype=np.float64) / 255.0)
    return alphas


def _identifier(alpha: FloatImage, x: int, y: int, contrast: float, font_px: int) -> dict[str, Any]:
    """The truth entry of one drawn line whose (block-sized) alpha sits at ``x, y``."""
    mask = alpha >= GLYPH_COVERAGE
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    box = (x + int(cols[0]), y + int(rows[0]), x + int(cols[-1]) + 1, y + int(rows[-1]) + 1)
    inner = mask[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    return {
        "box": list(box),
        "mask_rle": _rle(inner),
        "pixels": int(inner.sum()),
        "contrast": round(contrast, 6),
        "font_px": font_px,
    }


def _draw(
    rng: np.random.Generator,
    image: FloatImage,
    taken: BoolImage,
    alphas: list[FloatImage],
    anywhere: bool,
    wanted: float,
    font_px: int,
) -> list[dict[str, Any]] | None:
    """Place one block (one or more lines) and draw it; its lines' truth, or ``None``."""
    block = np.maximum.reduce(alphas) if len(alphas) > 1 else alphas[0]
    placed = _place(rng, image, (block.shape[1], block.shape[0]), taken, anywhere, wanted)
    if placed is None:
        return None
    x, y, contrast = placed
    h, w = block.shape
    image[y : y + h, x : x + w] += contrast * block
    taken[y : y + h, x : x + w] = True
    return [_identifier(alpha, x, y, contrast, font_px) for alpha in alphas]


def _rle(mask: BoolImage) -> list[int]:
    flat = mask.ravel()
    changes = np.flatnonzero(np.diff(flat.astype(np.int8))) + 1
    bounds = np.concatenate(([0], changes, [flat.size]))
    runs = [int(run) for run in np.diff(bounds)]
    return [0, *runs] if flat.size and flat[0] else runs


def identifier_masks(truth: Mapping[str, Any]) -> list[BoolImage]:
    """Full-image boolean masks of each identifier in a generated source's truth."""
    height, width = truth["shape"]
    masks = []
    for identifier in truth["identifiers"]:
        x0, y0, x1, y1 = identifier["box"]
        values = np.zeros(sum(identifier["mask_rle"]), dtype=bool)
        position, state = 0, False
        for run in identifier["mask_rle"]:
            values[position : position + run] = state
            position += run
            state = not state
        full = np.zeros((height, width), dtype=bool)
        full[y0:y1, x0:x1] = values.reshape(y1 - y0, x1 - x0)
        masks.append(full)
    return masks


def identifier_coverage(truth: Mapping[str, Any], regions: Sequence[Sequence[int]]) -> list[float]:
    """Share of each identifier's pixels inside the union of ``regions`` ([x0, y0, x1, y1])."""
    height, width = truth["shape"]
    masked = np.zeros((height, width), dtype=bool)
    for x0, y0, x1, y1 in regions:
        masked[y0:y1, x0:x1] = True
    return [float((mask & masked).sum() / mask.sum()) for mask in identifier_masks(truth)]


def _distractors(rng: np.random.Generator, image: FloatImage, taken: BoolImage) -> None:
    """Text-like structures that are not identifiers: a tick scale and a thin bright curve.

    Both keep :data:`_DISTRACTOR_CLEARANCE` pixels away from every identifier, so the
    truth stays unambiguous (text touching such structures is a documented limit).
    """
    height, width = image.shape
    clearance = ndimage.binary_dilation(taken, iterations=_DISTRACTOR_CLEARANCE)
    for _ in range(16):
        ticks = np.zeros_like(image)
        x0 = int(rng.integers(width // 4, width // 2))
        y0 = int(rng.integers(height // 4, 3 * height // 4))
        for k in range(int(rng.integers(5, 9))):
            tall = 7 if k % 5 == 0 else 4
            ticks[y0 : y0 + tall, x0 + 6 * k : x0 + 6 * k + 1] = 1.0
        if not (clearance & (ticks > 0)).any():
            image += rng.uniform(0.2, 0.4) * ticks
            break
    t = np.linspace(0.0, 1.0, 400)
    for _ in range(16):
        cx = width * (0.3 + 0.4 * t)
        cy = height * (rng.uniform(0.3, 0.7) + 0.15 * np.sin(2 * np.pi * t + rng.uniform(0, np.pi)))
        curve = np.zeros_like(image, dtype=bool)
        curve[np.clip(cy.astype(int), 0, height - 1), np.clip(cx.astype(int), 0, width - 1)] = True
        if not (clearance & ndimage.binary_dilation(curve, iterations=2)).any():
            image += (
                rng.uniform(0.1, 0.2) * 2.0 * ndimage.gaussian_filter(curve.astype(np.float64), 0.7)
            )
            break


def _encode_png(values: NDArray[np.integer[Any]]) -> bytes:
    out = io.BytesIO()
    Image.fromarray(values).save(out, format="PNG")
    return out.getvalue()


def _encode_dicom(
    values: NDArray[np.integer[Any]],
    seed: int,
    slice_name: str,
    carrier: str,
    attribute: str | None,
    overlays: int,
    rng: np.random.Generator,
) -> bytes:
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import UID, ExplicitVRLittleEndian

    def uid(*parts: str) -> UID:
        # A UUID-derived OID (2.25.<128-bit int>) fixed by the seed, never random.
        text = "\x00".join(("pytest-openmed", "burned_in", str(seed), slice_name, carrier, *parts))
        return UID("2.25." + str(int(hashlib.sha256(text.encode("ascii")).hexdigest()[:32], 16)))

    sop_instance = uid("sop")
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = UID(_SECONDARY_CAPTURE)
    meta.MediaStorageSOPInstanceUID = sop_instance
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    meta.ImplementationClassUID = UID(
        "2.25." + str(int(hashlib.sha256(b"pytest-openmed").hexdigest()[:32], 16))
    )
    meta.ImplementationVersionName = "OPENMED_SYN_1"
    ds = Dataset()
    ds.file_meta = meta
    ds.preamble = b"\0" * 128
    ds.SOPClassUID = UID(_SECONDARY_CAPTURE)
    ds.SOPInstanceUID = sop_instance
    ds.StudyInstanceUID = uid("study")
    ds.SeriesInstanceUID = uid("series")
    ds.Modality = "OT"
    ds.PatientName = "SYNTHETIC^PHANTOM"
    ds.PatientID = "ZZ-SYNTHETIC"
    ds.ConversionType = "SYN"
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = "MONOCHROME2"
    ds.Rows, ds.Columns = values.shape
    bits = 8 if values.dtype == np.uint8 else 16
    ds.BitsAllocated = bits
    ds.BitsStored = 8 if bits == 8 else 12
    ds.HighBit = ds.BitsStored - 1
    ds.PixelRepresentation = 0
    if attribute is not None:
        ds.BurnedInAnnotation = attribute
    for plane in range(overlays):
        group = 0x6000 + 2 * plane
        rows, cols = values.shape
        bitmap = np.zeros((rows, cols), dtype=np.uint8)
        y0, x0 = int(rng.integers(0, rows // 2)), int(rng.integers(0, cols // 2))
        bitmap[y0 : y0 + 8, x0 : x0 + 40] = 1
        ds.add_new((group, 0x0010), "US", rows)
        ds.add_new((group, 0x0011), "US", cols)
        ds.add_new((group, 0x0040), "CS", "G")
        ds.add_new((group, 0x0050), "SS", [1, 1])
        ds.add_new((group, 0x0100), "US", 1)
        ds.add_new((group, 0x0102), "US", 0)
        ds.add_new((group, 0x3000), "OW", np.packbits(bitmap.ravel(), bitorder="little").tobytes())
    ds.PixelData = values.tobytes()
    out = io.BytesIO()
    ds.save_as(out, enforce_file_format=True)
    return out.getvalue()


def generate_burned_in_identifier_coverage(
    seed: int, slice: str, *, carrier: str | None = None
) -> GeneratedSource:
    """One image with synthetic burned-in identifiers and the exact identifier mask."""
    slice_name = check_slice(slice)
    if type(seed) is not int or seed < 0:
        raise InputRefused("seed must be a non-negative integer")
    if carrier is None:
        carrier = CARRIERS[seed % len(CARRIERS)]
    if carrier not in CARRIERS:
        raise InputRefused("carrier must be one of: dicom16, dicom8, png8, png16")
    rng = np.random.default_rng([seed, _SLICE_INDEX[slice_name], CARRIERS.index(carrier)])
    shape = (int(rng.integers(224, 321)), int(rng.integers(224, 321)))
    image = _background(rng, shape)
    kind = _background_kind(seed, slice_name, carrier)
    if kind != BACKGROUNDS[0]:
        # A capture or a margin is larger than the text on it: a short identifier on
        # 448-640 px covers well under 0.1 % of the pixels.
        shape = (int(rng.integers(448, 641)), int(rng.integers(448, 641)))
        image = plain_background(rng, kind, shape)
    taken = np.zeros(shape, dtype=bool)

    adverse = slice_name == "adverse_acquisition"
    ambiguous = slice_name == "ambiguity_conflict"
    without_text = ambiguous and rng.random() < 0.25
    count = 0 if without_text else int(rng.integers(1, 5))
    stacked = adverse and count > 0 and rng.random() < 0.5
    identifiers: list[dict[str, Any]] = []
    blocks = 0
    for _ in range(_PLACEMENT_ROUNDS * count):  # a block that does not fit is redrawn
        if blocks == count:
            break
        if stacked and blocks == 0:
            font_px = int(rng.integers(STACKED_FONT_PX[0], STACKED_FONT_PX[1] + 1))
            extra = int(rng.integers(STACKED_PITCH_EXTRA[0], STACKED_PITCH_EXTRA[1] + 1))
            lines = int(rng.integers(STACKED_LINES[0], STACKED_LINES[1] + 1))
            alphas = _block_alphas([_token(rng) for _ in range(lines)], font_px, font_px + extra)
        else:
            font_px = int(rng.integers(9, 16)) if adverse else int(rng.integers(11, 23))
            alphas = _block_alphas([_token(rng)], font_px, font_px)
        if adverse:
            wanted = float(rng.uniform(0.12, 0.3)) * (1.0 if rng.random() < 0.75 else -1.0)
        else:
            wanted = float(rng.uniform(0.35, 0.9))
        drawn = _draw(rng, image, taken, alphas, adverse or ambiguous, wanted, font_px)
        if drawn is None:
            continue
        if len(drawn) > 1:
            for line, entry in enumerate(drawn):
                entry["block"], entry["line"] = blocks, line
        identifiers += drawn
        blocks += 1
    if ambiguous:
        _distractors(rng, image, taken)
    if adverse:
        image = ndimage.gaussian_filter(image, sigma=float(rng.uniform(0.3, 0.6)))
    noise = rng.uniform(0.01, 0.02) if adverse else 0.004
    if kind != BACKGROUNDS[0]:  # plain: none, or a little (a screen capture, a quiet margin)
        noise = float(rng.choice([0.0, rng.uniform(0.002, 0.01)]))
    image = np.clip(image + rng.normal(0.0, noise, shape), 0.0, 1.0)

    attribute: str | None = "YES" if identifiers else "NO"
    overlays = 0
    if ambiguous:
        attribute = ["YES", "NO", None][int(rng.integers(0, 3))]
        overlays = int(rng.integers(0, 3))
    return _source(
        image, seed, slice_name, carrier, identifiers, attribute, overlays, rng, background=kind
    )


def _source(
    image: FloatImage,
    seed: int,
    slice_name: str,
    carrier: str,
    identifiers: list[dict[str, Any]],
    attribute: str | None,
    overlays: int,
    rng: np.random.Generator,
    *,
    background: str | None,
) -> GeneratedSource:
    """Quantise ``image`` (display range [0, 1]) for ``carrier``, encode it, attach the truth."""
    if carrier == "dicom16":
        values: NDArray[Any] = np.rint(image * 4095).astype(np.uint16)
    elif carrier == "png16":
        values = np.rint(image * 65535).astype(np.uint16)
    else:
        values = np.rint(image * 255).astype(np.uint8)
    if carrier.startswith("dicom"):
        asset = _encode_dicom(values, seed, slice_name, carrier, attribute, overlays, rng)
        media_type = "application/dicom"
    else:
        asset = _encode_png(values)
        media_type = "image/png"
        attribute, overlays = None, 0
    truth = {
        "background": background,
        "carrier": carrier,
        "shape": list(image.shape),
        "identifiers": identifiers,
        "burned_in_annotation_attribute": attribute,
        "overlay_planes": overlays,
    }
    return GeneratedSource(asset=asset, media_type=media_type, slice=slice_name, truth=truth)


def render_on_background(
    background: NDArray[np.floating[Any]],
    seed: int,
    *,
    carrier: str,
    font_px: int,
    contrast: float,
    lines: int = 1,
    pitch: int | None = None,
    texts: Sequence[str] | None = None,
) -> GeneratedSource | None:
    """Synthetic identifier text (one line, or ``lines`` stacked ``pitch`` px apart) drawn on a
    caller's ``background``.

    ``texts`` names the lines instead of random tokens (one line each, ``lines`` is
    then their number): strings a caller chooses, e.g. repeated digits (``"1111"``,
    ``"0000"``), whose upright strokes are as regular as a ruler's ticks.

    ``background`` is a grey image scaled to the display range [0, 1] (e.g. a real image
    between its 0.1 and 99.9 percentiles). The block goes near a corner or an edge, where
    consoles print it, else anywhere, always on a smooth patch as in the generator; the
    polarity flips where only the other one fits. No noise or blur is added: the
    background's own remain. ``None`` when no place fits. Truth as for the generator
    (slice ``adverse_acquisition``, Burned In Annotation ``YES`` on DICOM carriers).
    """
    if type(seed) is not int or seed < 0:
        raise InputRefused("seed must be a non-negative integer")
    if carrier not in CARRIERS:
        raise InputRefused("carrier must be one of: dicom16, dicom8, png8, png16")
    image = np.array(background, dtype=np.float64)
    if image.ndim != 2 or min(image.shape) < 16 or not np.all((image >= 0.0) & (image <= 1.0)):
        raise InputRefused("background must be a 2-D image in [0, 1], at least 16 px a side")
    if texts is not None:
        if not texts or not all(type(text) is str and text.strip() for text in texts):
            raise InputRefused("texts must be non-empty strings")
        lines = len(texts)
    pitch = font_px + 1 if pitch is None else pitch
    if not (6 <= font_px <= 48 and 1 <= lines <= 8 and pitch > font_px and 0.0 < contrast <= 1.0):
        raise InputRefused("font_px, lines, pitch or contrast is out of range")
    rng = np.random.default_rng([seed, font_px, lines, pitch, CARRIERS.index(carrier)])
    taken = np.zeros(image.shape, dtype=bool)
    strings = list(texts) if texts is not None else [_token(rng) for _ in range(lines)]
    alphas = _block_alphas(strings, font_px, pitch)
    drawn = None
    for anywhere in (False, True):
        drawn = _draw(rng, image, taken, alphas, anywhere, contrast, font_px)
        if drawn is not None:
            break
    if drawn is None:
        return None
    if lines > 1:
        for line, entry in enumerate(drawn):
            entry["block"], entry["line"] = 0, line
    image = np.clip(image, 0.0, 1.0)
    return _source(
        image, seed, "adverse_acquisition", carrier, drawn, "YES", 0, rng, background=None
    )


def _step_wedge(rng: np.random.Generator, bar_px: int) -> FloatImage:
    """A step wedge: 8-24 bars ``bar_px`` wide and 1.5-3 bar widths tall, at grey levels
    that step evenly up (or down) across a wide part of the display range."""
    bars = int(rng.integers(8, 25))
    height = int(np.clip(round(bar_px * float(rng.uniform(1.5, 3.0))), 6, 64))
    low = float(rng.uniform(0.05, 0.4))
    levels = np.linspace(low, float(rng.uniform(low + 0.3, 0.95)), bars)
    if rng.random() < 0.5:
        levels = levels[::-1]
    wedge: FloatImage = np.repeat(np.repeat(levels[None, :], height, axis=0), bar_px, axis=1)
    return wedge


def _ticks(rng: np.random.Generator, period_px: int, kind: str) -> FloatImage:
    """Ruler ticks (alpha 0-1): 8-24 upright ticks ``period_px`` apart on one baseline,
    1 px wide (2 px from a 8-px period); all as tall (``ruler``) or every 2nd, 5th or
    10th one 1.6-2.2 times as tall as the others (``tick_scale``)."""
    count = int(rng.integers(8, 25))
    width = 1 if period_px < 8 else 2
    short = int(rng.integers(4, 9))
    long = round(short * float(rng.uniform(1.6, 2.2)))
    every = int(rng.choice([2, 5, 10])) if kind == "tick_scale" else 0
    alpha = np.zeros((long if every else short, (count - 1) * period_px + width))
    for index in range(count):
        tall = long if every and index % every == 0 else short
        alpha[alpha.shape[0] - tall :, index * period_px : index * period_px + width] = 1.0
    return alpha


def render_graphic(
    background: NDArray[np.floating[Any]],
    seed: int,
    *,
    kind: str,
    carrier: str,
    scale_px: int,
    texts: Sequence[str] = (),
    font_px: int = 12,
    contrast: float = 0.3,
    beside: str = "right",
) -> GeneratedSource:
    """A burned-in graphic that is not text (one of :data:`GRAPHICS`) on a caller's
    ``background`` (display range [0, 1]), with optional identifier text beside it.

    Built from how such graphics are made, not from an example: a step wedge's bars
    are exposed over the background and then pass the imaging chain's edge
    enhancement (an unsharp mask of 0.5-2 bar widths, gain 0.5-3, as computed
    radiography applies it: an overshoot on both sides of every step, fading
    across the bar) and a slight blur; ruler and tick-scale ticks are drawn over
    the background at a contrast of 0.2-0.6 (either polarity) with a slight blur.
    ``scale_px`` is the bar width or the tick period, from glyph scale (3-5 px) up.
    The graphic lies on or near the top or bottom edge. ``texts`` (lines the caller
    names, e.g. ``"1111"``) are drawn at ``contrast`` as a block ``beside`` the
    graphic: ``"right"`` on its rows, 10-20 px after its end (clear of it, as the
    distractors keep clear of identifiers), or ``"below"`` it, 4-8 px under it;
    they are the truth's identifiers (none without ``texts``). Slice
    ``ambiguity_conflict``; Burned In Annotation ``NO`` without text.
    """
    if type(seed) is not int or seed < 0:
        raise InputRefused("seed must be a non-negative integer")
    if carrier not in CARRIERS:
        raise InputRefused("carrier must be one of: dicom16, dicom8, png8, png16")
    if kind not in GRAPHICS or beside not in ("right", "below"):
        raise InputRefused("kind must be one of GRAPHICS and beside 'right' or 'below'")
    image = np.array(background, dtype=np.float64)
    if image.ndim != 2 or min(image.shape) < 64 or not np.all((image >= 0.0) & (image <= 1.0)):
        raise InputRefused("background must be a 2-D image in [0, 1], at least 64 px a side")
    if not (3 <= scale_px <= 32 and 6 <= font_px <= 48 and 0.0 < contrast <= 1.0):
        raise InputRefused("scale_px, font_px or contrast is out of range")
    rng = np.random.default_rng([seed, GRAPHICS.index(kind), scale_px, CARRIERS.index(carrier)])
    height, width = image.shape
    if kind == "step_wedge":
        layer = _step_wedge(rng, scale_px)
    else:
        layer = _ticks(rng, scale_px, kind)
    layer = layer[:, : width // 2]
    h, w = layer.shape
    # Along the top or bottom edge, on it (as exposed on the film or plate's border) or near it.
    x = int(rng.integers(2, 24))
    margin = int(rng.choice([0, int(rng.integers(2, 12))]))
    y = margin if rng.random() < 0.5 else height - h - margin
    pad = 12
    window = (slice(max(0, y - pad), y + h + pad), slice(max(0, x - pad), x + w + pad))
    if kind == "step_wedge":
        image[y : y + h, x : x + w] = layer
        patch = image[window]
        sharp = patch + float(rng.uniform(0.5, 3.0)) * (
            patch - ndimage.gaussian_filter(patch, scale_px * float(rng.uniform(0.5, 2.0)))
        )
        image[window] = sharp
    else:
        under = image[y : y + h, x : x + w]
        signed = float(rng.uniform(0.2, 0.6))
        if float(under.max()) + signed > 1.0 - _HEADROOM:
            signed = -signed
        image[y : y + h, x : x + w] = under + signed * layer
    image[window] = ndimage.gaussian_filter(image[window], float(rng.uniform(0.4, 0.7)))
    image = np.clip(image, 0.0, 1.0)
    identifiers: list[dict[str, Any]] = []
    if texts:
        alphas = _block_alphas(list(texts), font_px, font_px + 2)
        block = np.maximum.reduce(alphas)
        # Clear of the graphic, as the distractors keep clear of identifiers (text
        # touching a structure on its rows is a documented limit of the component).
        if beside == "right":  # on the graphic's rows (inside the image)
            gap = int(rng.integers(_DISTRACTOR_CLEARANCE, 2 * _DISTRACTOR_CLEARANCE + 1))
            tx, ty = x + w + gap, min(max(2, y), height - 2 - block.shape[0])
        else:
            tx, ty = x, y + h + int(rng.integers(4, 9))
            if ty + block.shape[0] > height - 2:  # the graphic is at the bottom: text above it
                ty = y - block.shape[0] - int(rng.integers(4, 9))
        bh, bw = block.shape
        if tx + bw > width - 2 or ty < 2 or ty + bh > height - 2:
            raise InputRefused("the text does not fit beside the graphic")
        under = image[ty : ty + bh, tx : tx + bw]
        signed = contrast
        if float(under.max()) + signed > 1.0 - _HEADROOM:
            signed = -contrast
        image[ty : ty + bh, tx : tx + bw] = np.clip(under + signed * block, 0.0, 1.0)
        identifiers = [_identifier(alpha, tx, ty, signed, font_px) for alpha in alphas]
        if len(alphas) > 1:
            for line, entry in enumerate(identifiers):
                entry["block"], entry["line"] = 0, line
    attribute = "YES" if identifiers else "NO"
    return _source(
        image, seed, "ambiguity_conflict", carrier, identifiers, attribute, 0, rng, background=None
    )
