"""Burned-in identifier coverage: find text-like regions in the pixels, mask them, vouch for it.

Reads a single-frame native (uncompressed) MONOCHROME DICOM image or an 8/16-bit
grey PNG. Text is a dense cluster of thin strokes on a smoother background, so
for each polarity (bright text: white top-hat; dark text: black top-hat) the
detector averages the stroke response over a glyph-sized window — the *text
energy* — and thresholds it at three levels, each ``median + k * 1.4826 * MAD``
of the energy of the image's quieter half (where text is printed) with a floor
(extent <= sensitive <= masking). Blobs above the extent level that reach the
sensitive level are split into **text lines** (runs of rows crossing two or more
strokes: stacked lines share a blob but not their gap rows; a band too tall for
one line is searched again in vertical strips, and its blob is parted again at
its own noise level, which parts text from noisy air it touches; faint parts that
draw none of a bright blob's strokes are searched against their own), and each line
is a **text candidate** when it reads as text: a line's height, a median row crossing
several strokes, enough crossings per text height of width, strokes of some
contrast on a flat ground. Lines just above or below a candidate join its block
on weaker evidence. A candidate is **masked** when it also reaches the masking
level, crosses ``min_crossings`` strokes and is wide enough; its region is the
line's box, continued along the line over faint glyphs and padded at both ends.

``coverage`` is the share of text-candidate core pixels inside masked regions
(1.0 when there is no candidate). The runtime privacy rule — the component
cannot know the truth — is: a ``privacy`` safety failure when any text
candidate keeps at least ``min_candidate_px`` core pixels outside every masked
region (text-like content left readable; a step wedge, whose plateaus between
stems climb step by step, is masked like a candidate but is not text), or when the DICOM Burned In
Annotation attribute says ``YES`` (or holds a value outside YES/NO) and no
region was found. Outputs are de-identification candidates for review, not a
guarantee; see ``docs/components/burned_in.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import ndimage

from pytest_openmed._canonical import digest_json, sha256_digest
from pytest_openmed.carriers.dicom import has_dicom_prefix, quiet_pydicom, read_native_dicom
from pytest_openmed.carriers.png import PNG_SIGNATURE, read_png
from pytest_openmed.components._base import (
    AssetTooLarge,
    ComponentOutput,
    CorruptAsset,
    UnsupportedAsset,
    check_asset,
    check_bounds,
    parse_boundary,
)
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "ABSTAIN_REASONS",
    "ANNOTATION_VALUES",
    "CONFIG_A",
    "CONFIG_B",
    "MAX_IMAGE_PIXELS",
    "MAX_IMAGE_SIDE",
    "MIN_IMAGE_SIDE",
    "BurnedInConfig",
    "run",
]

#: Closed vocabulary of abstain reasons.
ABSTAIN_REASONS = ("image_too_small", "cluttered_background")

#: What ``burned_in_annotation_attribute`` can be besides ``None`` (absent or empty):
#: the two DICOM enumerated values, or ``INVALID`` for anything else (never echoed).
ANNOTATION_VALUES = ("YES", "NO", "INVALID")

#: Decoding limits, checked from the header before pixels are decoded.
MAX_IMAGE_SIDE = 4096
MAX_IMAGE_PIXELS = 8 * 1024 * 1024
#: Smaller images are not searched (abstain ``image_too_small``).
MIN_IMAGE_SIDE = 16

#: A band beside a text line may hold up to this many lines that could not be told apart.
_BLOCK_LINES = 4
#: Side, in background tiles, of the neighbourhood whose calmer quarter sets the local levels.
_LOCAL_TILES = 9
#: A neighbourhood whose sensitive level is at most this share of the image's is a calm margin.
_CALM_RATIO = 0.35
#: Text at the floor contrast of the operating range (0.12) draws a top-hat response of
#: about this many times ``min_stroke_contrast``: a blob whose stroke level (half its
#: 90th-percentile response) is below that holds such text's strokes.
_FAINT_STROKE = 2.0
#: Energy of an exactly constant area: what the filters leave of nothing.
_CONSTANT = 1e-9
#: Pixels at each end of the grey range that may be hot or dead (clipped on the display scale).
_OUTLIER_PX = 16
#: The display scale spans at least this share of the near-full grey range.
_SPARSE_RANGE = 0.25

#: A step wedge (grey scale) is a line whose plateaus between stems climb in at least
#: this many steps of one sign, at least this share of their differences, each at least
#: this share of the contrast of the stem between them.
_WEDGE_STEMS = 4
_WEDGE_SHARE = 0.75
_WEDGE_STEP = 0.5
#: A step's rise is at least this many times the spread (interquartile range) of the
#: ground on either side: a bar of a wedge is flat, and so is the ground beside a glyph
#: stem, but not a side holding other strokes.
_FLAT = 2.0

#: A run of one-stem glyphs ("1111"): at least this many upright stems (no wider than
#: tall), of equal height (within this share of the first), at a pitch between these
#: shares of their height (a digit is taller than its advance) and within this share
#: of the run's first pitch.
_RUN_STEMS = 4
_RUN_EQUAL = 0.3
_RUN_PITCH = (0.3, 1.0)
_RUN_REGULAR = 0.2
#: Each stem spans at least this share of the line's rows (a glyph, not a speck).
_RUN_TALL = 0.5
#: A thin stem falls to half its response within this many pixels on either side, and
#: drifts by at most this many columns from its top to its bottom (upright).
_RIDGE_REACH = 3
_RIDGE_SPREAD = 2
#: The straight part of a round glyph's stem ("0") spans at least two thirds of its
#: height, so a ridge run's pitch is at most this many times its stems' height.
_RIDGE_PITCH = 1.5

#: Bounds of the real-valued and the integer thresholds of a configuration.
_MAX_REAL = 64.0
_MAX_INT = 512

_PNG_MODES = frozenset({"L", "I;16", "I;16B", "I"})
_UNDECODABLE = "the image could not be decoded"

IntImage = NDArray[Any]
FloatImage = NDArray[np.float64]
BoolImage = NDArray[np.bool_]
Region = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class BurnedInConfig:
    """Detector thresholds.

    Intensities are fractions of the normalised display range; ``*_sigmas`` are
    multiples of a map's robust spread (1.4826 * MAD), never below the matching
    ``*_floor``.
    """

    smooth_sigma: float = 0.6
    tophat_px: int = 7
    energy_rows: int = 5
    energy_cols: int = 9
    extent_sigmas: float = 2.0
    extent_floor: float = 0.008
    sensitive_sigmas: float = 5.0
    sensitive_floor: float = 0.02
    mask_sigmas: float = 6.0
    mask_floor: float = 0.025
    min_text_height: int = 4
    max_text_height: int = 24
    min_candidate_px: int = 12
    min_candidate_crossings: int = 3
    min_crossings: int = 3
    min_crossing_density: float = 0.8
    min_stroke_contrast: float = 0.05
    max_ground_ratio: float = 0.15
    strip_crossing_density: float = 1.2
    background_tile_px: int = 16
    min_aspect: float = 1.0
    line_gap_heights: float = 1.0
    end_pad_heights: float = 1.0
    pad_px: int = 1
    max_sensitive_threshold: float = 0.06

    def __post_init__(self) -> None:
        reals = (
            "smooth_sigma",
            "extent_sigmas",
            "extent_floor",
            "sensitive_sigmas",
            "sensitive_floor",
            "mask_sigmas",
            "mask_floor",
            "min_aspect",
            "line_gap_heights",
            "end_pad_heights",
            "max_sensitive_threshold",
            "min_crossing_density",
            "min_stroke_contrast",
            "max_ground_ratio",
            "strip_crossing_density",
        )
        check_bounds(
            self,
            reals,
            float,
            0.0,
            _MAX_REAL,
            f"real-valued thresholds must be floats in [0, {_MAX_REAL:g}]",
        )
        integers = (
            "tophat_px",
            "energy_rows",
            "energy_cols",
            "min_text_height",
            "max_text_height",
            "min_candidate_px",
            "min_candidate_crossings",
            "min_crossings",
            "pad_px",
            "background_tile_px",
        )
        check_bounds(
            self, integers, int, 0, _MAX_INT, f"integer thresholds must be between 0 and {_MAX_INT}"
        )
        if self.tophat_px < 3 or self.energy_rows < 1 or self.energy_cols < 1:
            raise InputRefused("tophat_px must be at least 3 and the energy window at least 1x1")
        if self.background_tile_px < 4:
            raise InputRefused("background_tile_px must be at least 4")
        if self.min_text_height > self.max_text_height:
            raise InputRefused("min_text_height must not exceed max_text_height")
        if not (
            self.extent_sigmas <= self.sensitive_sigmas <= self.mask_sigmas
            and self.extent_floor <= self.sensitive_floor <= self.mask_floor
        ):
            raise InputRefused("thresholds must rise from extent to sensitive to masking")
        if self.min_crossings < self.min_candidate_crossings:
            raise InputRefused("masking must not accept fewer crossings than a candidate has")


#: Conservative: masks every text candidate that shows a little strong evidence,
#: with generous padding.
CONFIG_A = BurnedInConfig()

#: Permissive: masks only clear multi-glyph text lines with tight boxes; faint or
#: fragmentary text is left to the residual check (and so reported as a privacy failure).
CONFIG_B = BurnedInConfig(
    mask_sigmas=12.0,
    mask_floor=0.04,
    min_candidate_crossings=4,
    min_crossings=6,
    min_aspect=2.0,
    end_pad_heights=1.0,
    pad_px=0,
)


@dataclass(frozen=True, slots=True)
class _Decoded:
    pixels: IntImage
    inverted: bool
    annotation: str | None
    overlay_planes: int


def _check_dimensions(rows: object, columns: object) -> None:
    if type(rows) is not int or type(columns) is not int or rows < 1 or columns < 1:
        raise CorruptAsset("image dimensions are missing or invalid")
    if rows > MAX_IMAGE_SIDE or columns > MAX_IMAGE_SIDE or rows * columns > MAX_IMAGE_PIXELS:
        raise AssetTooLarge("image dimensions exceed the component limit")


def _decode_png(asset: bytes) -> _Decoded:
    pixels = read_png(
        asset,
        modes=_PNG_MODES,
        max_side=MAX_IMAGE_SIDE,
        max_pixels=MAX_IMAGE_PIXELS,
        unsupported="only single-frame grey PNG images are read",
        corrupt=_UNDECODABLE,
    )
    return _Decoded(pixels=pixels, inverted=False, annotation=None, overlay_planes=0)


def _annotation(dataset: Any) -> str | None:
    """The Burned In Annotation value, compared on its raw bytes.

    Reading the raw element avoids pydicom's value conversion, which warns and
    logs an invalid value verbatim; the value itself is never returned.
    """
    element = dataset.get_item((0x0028, 0x0301))
    if element is None:
        return None
    value = element.value
    if isinstance(value, str):
        value = value.encode("ascii", "replace")
    if value is None or not isinstance(value, bytes) or not value.strip(b" \0"):
        return None
    token = value.strip(b" \0")
    return token.decode("ascii") if token in (b"YES", b"NO") else "INVALID"


def _overlay_planes(dataset: Any) -> int:
    """Repeating groups 6000-601E holding an overlay's rows/columns or data."""
    count = 0
    for group in range(0x6000, 0x6020, 2):
        if any((group, element) in dataset for element in (0x0010, 0x0011, 0x3000)):
            count += 1
    return count


def _decode_dicom(asset: bytes) -> _Decoded:
    with quiet_pydicom():
        dataset = read_native_dicom(
            asset, unsupported="only native (uncompressed) DICOM is read", corrupt=_UNDECODABLE
        )
        with parse_boundary(_UNDECODABLE):
            if "PixelData" not in dataset:
                raise UnsupportedAsset("the DICOM object holds no image pixels")
            photometric = str(dataset.get("PhotometricInterpretation", "")).strip()
            if (
                dataset.get("SamplesPerPixel") != 1
                or photometric not in ("MONOCHROME1", "MONOCHROME2")
                or dataset.get("BitsAllocated") not in (8, 16)
            ):
                raise UnsupportedAsset("only 8/16-bit monochrome DICOM images are read")
            frames = dataset.get("NumberOfFrames", 1)
            if frames in (None, ""):
                frames = 1
            if int(frames) != 1:
                raise UnsupportedAsset("only single-frame DICOM images are read")
            rows, columns = dataset.get("Rows"), dataset.get("Columns")
            _check_dimensions(rows, columns)
            expected = rows * columns * (dataset.BitsAllocated // 8)
            if len(dataset.PixelData) < expected:
                raise CorruptAsset("the DICOM pixel data is shorter than its dimensions")
            pixels = np.array(dataset.pixel_array)
            if pixels.shape != (rows, columns):
                raise CorruptAsset(_UNDECODABLE)
            decoded = _Decoded(
                pixels=pixels,
                inverted=photometric == "MONOCHROME1",
                annotation=_annotation(dataset),
                overlay_planes=_overlay_planes(dataset),
            )
    return decoded


def _decode(asset: bytes) -> _Decoded:
    """Dispatch on content (DICOM preamble or PNG signature); typed errors only."""
    if has_dicom_prefix(asset):
        return _decode_dicom(asset)
    if asset.startswith(PNG_SIGNATURE):
        return _decode_png(asset)
    raise UnsupportedAsset("the burned-in component reads native DICOM or grey PNG only")


# --------------------------------------------------------------------------- detection


def _normalised(decoded: _Decoded) -> FloatImage:
    """The image on the display scale: its 0.1 and 99.9 percentiles at 0 and 1.

    The percentiles set the scale, so that a few hot or dead pixels do not squeeze
    the anatomy's contrast, and the tail of the anatomy past them is clipped as
    ever. But on a plain (black, grey or gently graded) background a short
    identifier covers less than 0.1 % of the pixels and lies past a percentile:
    clipping erased it. So content reaching past a percentile by at least
    :data:`_SPARSE_RANGE` of the scale is kept (up to the :data:`_OUTLIER_PX`-th most
    extreme pixel), and when the percentiles span under :data:`_SPARSE_RANGE` of
    that near-full range (a near-uniform image: they hold little more than its
    noise) the scale is that share of it, so the noise is not stretched over the
    whole display.
    """
    image = decoded.pixels.astype(np.float64)
    low, high = (float(v) for v in np.percentile(image, (0.1, 99.9)))
    flat = image.ravel()
    first, last = min(_OUTLIER_PX, flat.size - 1), max(0, flat.size - 1 - _OUTLIER_PX)
    ends = np.partition(flat, (first, last))
    floor, ceiling = float(ends[first]), float(ends[last])
    span = max(high - low, _SPARSE_RANGE * (ceiling - floor))
    if span <= 0.0:
        return np.zeros_like(image)
    below, above = (low - floor) / span, (ceiling - high) / span
    scaled: FloatImage = np.clip(
        (image - low) / span,
        -below if below >= _SPARSE_RANGE else 0.0,
        1.0 + above if above >= _SPARSE_RANGE else 1.0,
    )
    return 1.0 - scaled if decoded.inverted else scaled


def _tiles(energy: FloatImage, tile: int) -> FloatImage:
    """The energy cut into ``tile`` x ``tile`` tiles: (tile rows, tile columns, pixels)."""
    rows, cols = energy.shape[0] // tile, energy.shape[1] // tile
    tiles: FloatImage = (
        energy[: rows * tile, : cols * tile]
        .reshape(rows, tile, cols, tile)
        .transpose(0, 2, 1, 3)
        .reshape(rows, cols, tile * tile)
    )
    return tiles


def _quiet_sample(tiles: FloatImage, tile_median: FloatImage) -> FloatImage:
    """The energy of the quieter half of the image: tiles whose median is at most the median tile.

    Text is printed where it can be read — on air, a flat border or a smooth patch —
    so the levels follow that background, not the anatomy's texture (which the
    text-line tests below reject).
    """
    quiet: FloatImage = tiles[tile_median <= np.median(tile_median)].ravel()
    return quiet


def _robust_spread(sample: FloatImage) -> tuple[float, float]:
    """Median and robust spread (1.4826 * MAD) of ``sample``."""
    median = float(np.median(sample))
    return median, 1.4826 * float(np.median(np.abs(sample - median)))


def _row_crossings(strokes: BoolImage) -> NDArray[np.int64]:
    """Stroke starts met along each row: text crosses about two per glyph."""
    crossings: NDArray[np.int64] = strokes[:, :1].sum(axis=1) + np.sum(
        strokes[:, 1:] & ~strokes[:, :-1], axis=1
    )
    return crossings


def _strokes(response: FloatImage, own: BoolImage) -> BoolImage:
    """A blob's strokes: its pixels above half its own 90th-percentile response.

    Relative to the blob, so the stroke pattern does not depend on the text's contrast.
    """
    level = 0.5 * float(np.percentile(response[own], 90))
    strokes: BoolImage = own & (response > level)
    return strokes


def _line_bands(strokes: BoolImage, least: int = 2) -> list[tuple[int, int]]:
    """Row spans of the text lines in a blob: runs of rows that cross ``least`` or more
    strokes (two, unless said otherwise).

    Lines stacked at ordinary spacing share one blob of text energy (the energy
    window spans the gap between them), but the rows between two lines cross at
    most one stroke; a single-row dip inside a line (a glyph's horizontal bar) is
    bridged.
    """
    on = _row_crossings(strokes) >= least
    inner = on[1:-1] | (on[:-2] & on[2:])
    on[1:-1] = inner
    edges = np.flatnonzero(np.diff(np.concatenate(([0], on.astype(np.int8), [0]))))
    return [(int(start), int(stop)) for start, stop in zip(edges[::2], edges[1::2], strict=True)]


def _fullest_rows(strokes: BoolImage) -> NDArray[np.bool_]:
    """The rows of a line crossing at least its median number of strokes.

    There its stems stand side by side; rows above and below them (the rims of a
    wedge's bars, a glyph's horizontal bars, the ground beyond a wedge's end) would
    join them into one run or mix other levels into the ground beside them.
    """
    crossings = _row_crossings(strokes)
    fullest: NDArray[np.bool_] = crossings >= np.median(crossings)
    return fullest


def _stems(strokes: BoolImage) -> list[tuple[int, int]]:
    """A line's upright stems: column runs stroked in at least half of its fullest rows."""
    full = strokes[_fullest_rows(strokes)]
    upright = 2 * full.sum(axis=0) >= full.shape[0]
    edges = np.flatnonzero(np.diff(np.concatenate(([0], upright.astype(np.int8), [0]))))
    return [(int(start), int(stop)) for start, stop in zip(edges[::2], edges[1::2], strict=True)]


def _stem_run(smooth: FloatImage, response: FloatImage, strokes: BoolImage) -> bool:
    """Whether a line holds a run of one-stem glyphs ("1111", "11-11-1111").

    Each such glyph crosses one stroke per row, not the two or three of most glyphs,
    so the run has half the crossings per text height that the density test asks
    of text, and a line holding other strokes on its rows dilutes it further. Its
    physics is as plain: :data:`_RUN_STEMS` or more upright stems of one height,
    side by side at a regular glyph pitch (a hyphen, short and wide, ends a run), on
    one ground: no plateau between them steps as a wedge's bars do (:func:`_steps`).
    Ticks of a scale look the same; reading them as text is the safe side.
    """
    run: list[tuple[int, int, int]] = []  # (start, stop, height) of each stem in the run
    for start, stop in _stems(strokes):
        rows = int(strokes[:, start:stop].any(axis=1).sum())
        if stop - start > rows or rows < _RUN_TALL * strokes.shape[0]:
            run = []
            continue
        if run:
            first, pitch = run[0], start - run[-1][0]
            equal = abs(rows - first[2]) <= _RUN_EQUAL * first[2]
            spaced = _RUN_PITCH[0] * first[2] <= pitch <= _RUN_PITCH[1] * first[2]
            regular = len(run) < 2 or abs(pitch - (run[1][0] - first[0])) <= _RUN_REGULAR * pitch
            if not (equal and spaced and regular):
                run = []
        run.append((start, stop, rows))
        if len(run) >= _RUN_STEMS:
            stems = [(begin, end) for begin, end, _ in run]
            if not any(_steps(smooth, response, strokes, stems)):
                return True
            run = run[1:]
    return False


def _step_wedge(smooth: FloatImage, response: FloatImage, strokes: BoolImage) -> bool:
    """Whether a line's stems are the steps of a grey scale (a step wedge), not glyph stems.

    A step wedge is a row of bars of monotone grey levels; the imaging chain's
    edge enhancement puts an overshoot on both sides of every step, which the
    top-hat reads as a stem. Between two stems lies a *plateau*: a wedge's bar,
    or the ground (with any glyph parts of the other polarity) between two glyph
    stems. A wedge's plateaus climb (or fall) step by step: each differs from the
    one before by a whole step, in one direction, and each is uniform along its
    columns. Text's plateaus do not: beside the stems of one polarity lie the
    same ground or the same mix of ground and glyphs again and again, whether the
    stems are irregular or as regular as "1111"; text on a gradient moves by a
    few hundredths of its contrast from one plateau to the next.

    So the line is a wedge when at least :data:`_WEDGE_STEMS` of the differences
    between consecutive plateaus, and :data:`_WEDGE_SHARE` of them, are steps of
    one sign, each at least :data:`_WEDGE_STEP` of the contrast of the stem between
    them and :data:`_FLAT` times the spread along any column of the two plateaus.
    Plateaus are read on the line's fullest rows, off its strokes and their 1-px
    fringe; one with too little such ground (stems too close, as in small text) is
    no step. Text beside a wedge on the same rows breaks its staircase.
    """
    stems = _stems(strokes)
    if len(stems) < _WEDGE_STEMS + 2:  # n stems bound n - 1 plateaus: n - 2 differences
        return False
    signs = _steps(smooth, response, strokes, stems)
    most = max(signs.count(1), signs.count(-1))
    return most >= _WEDGE_STEMS and most >= _WEDGE_SHARE * len(signs)


def _steps(
    smooth: FloatImage, response: FloatImage, strokes: BoolImage, stems: list[tuple[int, int]]
) -> list[int]:
    """Per pair of consecutive plateaus: +1 or -1 for a step up or down, else 0
    (see :func:`_step_wedge`)."""
    fullest = _fullest_rows(strokes)
    ground = ~ndimage.binary_dilation(strokes)[fullest]
    smooth = smooth[fullest]
    plateaus: list[list[FloatImage] | None] = []
    for (_, stop), (start, _) in pairwise(stems):
        columns = [smooth[ground[:, c], c] for c in range(stop, start)]
        enough = 2 * sum(column.size for column in columns) >= smooth.shape[0]
        plateaus.append(columns if enough and columns else None)
    signs = []
    for index, (before, after) in enumerate(pairwise(plateaus)):
        if before is None or after is None:
            signs.append(0)
            continue
        rise = float(np.mean(np.concatenate(after))) - float(np.mean(np.concatenate(before)))
        rough = max(
            (
                float(np.subtract(*np.percentile(column, (75, 25))))
                for column in before + after
                if column.size >= 2
            ),
            default=0.0,
        )
        start, stop = stems[index + 1]
        stem = response[:, start:stop][strokes[:, start:stop]]
        step = (
            abs(rise) >= _WEDGE_STEP * float(np.percentile(stem, 90)) and abs(rise) >= _FLAT * rough
        )
        signs.append(int(np.sign(rise)) if step else 0)
    return signs


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A text-like line: where it is, its core pixels, the region it earned (if any), and
    whether it is a graphic (a step wedge) rather than text."""

    where: tuple[slice, slice]
    core: BoolImage
    region: Region | None
    line: Region
    graphic: bool = False


@dataclass(frozen=True, slots=True)
class _Detection:
    regions: tuple[Region, ...]
    coverage: float
    uncovered_candidates: int
    cluttered: bool


def _along_line(
    energy: FloatImage, level: FloatImage, where: tuple[slice, slice], gap: float
) -> tuple[int, int]:
    """Columns of a text line: the line's, extended left and right over faint glyphs.

    A column continues the line when some row of the band has text energy of
    at least ``level`` (the band's mean is too strict: the faint glyphs of small
    text fill only a few of its rows); gaps of up to ``gap`` columns (about a
    glyph) are bridged. The line grows by at most its own width on each side:
    enough for the faint half of a line, not a walk along textured anatomy.
    """
    profile: BoolImage = np.any(energy[where[0], :] >= level[where[0], :], axis=0)
    x0, x1 = where[1].start, where[1].stop
    reach = x1 - x0
    limit = int(gap)
    last = x1
    x = x1
    while x < min(profile.size, x1 + reach) and x - last <= limit:
        if profile[x]:
            last = x + 1
        x += 1
    first = x0
    x = x0 - 1
    while x >= max(0, x0 - reach) and first - 1 - x <= limit:
        if profile[x]:
            first = x
        x -= 1
    return first, last


@dataclass(frozen=True, slots=True)
class _Levels:
    """Per-pixel extent, sensitive (weak) and masking (strong) levels of the text energy."""

    extent: FloatImage
    weak: FloatImage
    strong: FloatImage


def _levels(energy: FloatImage, config: BurnedInConfig) -> tuple[_Levels, float]:
    """The three levels per pixel, and the image's sensitive level (for the clutter rule).

    The image's levels are ``median + k * spread`` of the quieter half's energy. A
    *calm margin* gets its own: per tile, the median energy and its noise (1.4826 *
    MAD within the tile); per neighbourhood of :data:`_LOCAL_TILES` tiles a side,
    their calmer quarter (25th percentile; text covering up to half the neighbourhood
    does not raise its own level). Where that neighbourhood's sensitive level is at
    most :data:`_CALM_RATIO` of the image's, the margin is distinctly calmer than the
    image — the black band beside an ultrasound fan, the air beside an MR — and text
    printed there is measured against the margin's noise, not the image's; elsewhere
    the image's levels hold (within-tile noise alone would read a uniformly textured
    image as calmer than it is). Never below the floors; whatever a lower level raises
    meets the same text-line tests as everywhere. An exactly constant neighbourhood (a
    display frame) takes its own sensitive and masking levels on any image, even where
    the floors leave no margin calm; its extent level stays the image's, so no blob grows.
    """
    tile = config.background_tile_px
    tiles = _tiles(energy, tile)
    rows, cols = tiles.shape[:2]
    tile_median = np.median(tiles, axis=2) if rows * cols >= 2 else None
    # An image smaller than two tiles is sampled whole.
    sample = energy.ravel() if tile_median is None else _quiet_sample(tiles, tile_median)
    median, spread = _robust_spread(sample)
    sigmas = (config.extent_sigmas, config.sensitive_sigmas, config.mask_sigmas)
    floors = (config.extent_floor, config.sensitive_floor, config.mask_floor)
    whole = [max(floor, median + k * spread) for k, floor in zip(sigmas, floors, strict=True)]
    whole[1] = max(whole[0], whole[1])
    whole[2] = max(whole[1], whole[2])
    constant_tiles = tile_median is not None and bool((tile_median <= _CONSTANT).any())
    if tile_median is None or (
        config.sensitive_floor > _CALM_RATIO * whole[1] and not constant_tiles
    ):
        # No neighbourhood can be a calm margin: its level never falls below the floor.
        # One level for every pixel: a read-only view, not three image-sized arrays.
        maps = [np.broadcast_to(np.float64(level), energy.shape) for level in whole]
    else:
        tile_noise = 1.4826 * np.median(np.abs(tiles - tile_median[..., None]), axis=2)
        calm_median = ndimage.percentile_filter(tile_median, 25, size=_LOCAL_TILES, mode="nearest")
        calm_noise = ndimage.percentile_filter(tile_noise, 25, size=_LOCAL_TILES, mode="nearest")
        local = [
            np.maximum(floor, calm_median + k * calm_noise)
            for k, floor in zip(sigmas, floors, strict=True)
        ]
        local[1] = np.maximum(local[0], local[1])
        local[2] = np.maximum(local[1], local[2])
        calm = local[1] <= _CALM_RATIO * whole[1]
        # An exactly constant margin (a display frame) holds no noise: whatever reaches
        # the floors there was drawn. Its sensitive and masking levels are the margin's
        # on any image; its extent level stays the image's, so that no blob grows.
        constant = calm | (calm_median + calm_noise <= _CONSTANT)
        # Each pixel takes its tile's level; the rows and columns past the last whole
        # tile take the last tile's.
        tile_rows = np.minimum(np.arange(energy.shape[0]) // tile, rows - 1)
        tile_cols = np.minimum(np.arange(energy.shape[1]) // tile, cols - 1)
        maps = [
            np.where(use, grid, level).take(tile_rows, axis=0).take(tile_cols, axis=1)
            for grid, level, use in zip(local, whole, (calm, constant, constant), strict=True)
        ]
    return _Levels(extent=maps[0], weak=maps[1], strong=maps[2]), whole[1]


def _flat_ground(
    response: FloatImage, strokes: BoolImage, stroke_level: float, config: BurnedInConfig
) -> bool:
    """Whether a line's ground is flat: off its strokes and their 1-px fringe, the median
    response is at most ``max_ground_ratio`` of the strokes' (texture is as strong
    between its "strokes" as in them)."""
    ground = response[~ndimage.binary_dilation(strokes)]
    return not ground.size or float(np.median(ground)) <= config.max_ground_ratio * stroke_level


def _line_candidate(
    response: FloatImage,
    smooth: FloatImage,
    energy: FloatImage,
    levels: _Levels,
    blob: tuple[slice, slice],
    inside: BoolImage,
    band: tuple[int, int],
    config: BurnedInConfig,
    *,
    beside_text: bool = False,
    min_density: float | None = None,
) -> _Candidate | None:
    """One text line of a blob (rows ``band`` of it), if its strokes read as text.

    A text line is a band of bounded height whose rows cross many strokes (the
    *median* row, so a few noisy rows do not make texture text), densely along
    its width (at least ``min_crossing_density`` crossings per text height of
    width: text has about 2.5, the edge of an organ or a bone far fewer), with
    strokes of at least ``min_stroke_contrast`` of the display range drawn on a
    flat ground: off the strokes (and their 1-px fringe) the median response is at
    most ``max_ground_ratio`` of the strokes' 90th percentile. Texture and noise
    are as strong between their "strokes" as in them.

    Text comes in blocks: a line ``beside_text`` (just above or below an accepted
    line) needs only the strokes and crossings of text — not the flat ground or the
    density, which a faint line on noise or a line touching a rule can miss. A band
    beside a line may also be up to :data:`_BLOCK_LINES` lines tall (lines too close,
    or too blurred, to be told apart); it keeps the flat-ground test.
    """
    height, width = response.shape
    top, bottom = blob[0].start + band[0], blob[0].start + band[1]
    text_h = bottom - top
    tallest = config.max_text_height * (_BLOCK_LINES if beside_text else 1)
    if not config.min_text_height <= text_h <= tallest:
        return None
    half_rows, half_cols = config.energy_rows // 2, config.energy_cols // 2
    lo, hi = max(0, band[0] - half_rows), min(inside.shape[0], band[1] + half_rows)
    where = (slice(blob[0].start + lo, blob[0].start + hi), blob[1])
    own = inside[lo:hi]
    core = own & (energy[where] >= levels.weak[where])
    if int(core.sum()) < config.min_candidate_px:
        return None
    line = (slice(top, bottom), blob[1])
    line_own = inside[band[0] : band[1]]
    strokes = _strokes(response[line], line_own)
    stroke_level = float(np.percentile(response[line][strokes], 90))
    if stroke_level < config.min_stroke_contrast:
        return None
    flat = _flat_ground(response[line], strokes, stroke_level, config)
    if not (flat or (beside_text and text_h <= config.max_text_height)):
        return None
    cols = np.flatnonzero(strokes.any(axis=0))
    text_w = int(cols[-1] - cols[0] + 1)
    crossings = float(np.median(_row_crossings(strokes)))
    if crossings < config.min_candidate_crossings:
        return None
    density = config.min_crossing_density if min_density is None else min_density
    sparse = crossings / max(text_w / text_h, 1.0) < density and not beside_text
    if sparse and not _stem_run(smooth[line], response[line], strokes):
        return None
    region: Region | None = None
    if (
        bool((energy[where] >= levels.strong[where])[own].any())
        and text_w >= config.min_aspect * text_h
        and crossings >= config.min_crossings
    ):
        # The line's box widened by half the energy window, continued along the
        # line over faint glyphs and padded at both ends.
        y0 = max(0, top - half_rows)
        y1 = min(height, bottom + half_rows)
        span = (
            slice(y0, y1),
            slice(
                max(0, blob[1].start + int(cols[0]) - half_cols),
                min(width, blob[1].start + int(cols[-1]) + 1 + half_cols),
            ),
        )
        x0, x1 = _along_line(energy, levels.extent, span, config.line_gap_heights * text_h)
        pad_x = config.pad_px + round(config.end_pad_heights * text_h)
        region = (
            max(0, x0 - pad_x),
            max(0, y0 - config.pad_px),
            min(width, x1 + pad_x),
            min(height, y1 + config.pad_px),
        )
    line_box = (
        blob[1].start + int(cols[0]),
        top,
        blob[1].start + int(cols[-1]) + 1,
        bottom,
    )
    graphic = _step_wedge(smooth[line], response[line], strokes)
    return _Candidate(where=where, core=core, region=region, line=line_box, graphic=graphic)


def _candidates(
    response: FloatImage, smooth: FloatImage, config: BurnedInConfig
) -> tuple[list[_Candidate], bool]:
    """Text-line candidates of one polarity's top-hat response, and whether it is too cluttered.

    Text is a dense cluster of thin strokes, so the local mean of the response
    over a glyph-sized window (the *text energy*) separates it from noise far
    better than single pixels do. A blob of energy above the extent level that
    reaches the sensitive level somewhere (hysteresis) is split into its text
    lines (:func:`_line_bands`); each line is tested on its own
    (:func:`_line_candidate`). Too cluttered: even the quieter half of the image
    is so textured that the sensitive level exceeds ``max_sensitive_threshold``.
    """
    energy = ndimage.uniform_filter(response, size=(config.energy_rows, config.energy_cols))
    levels, weak = _levels(energy, config)
    blobs, count = ndimage.label(energy > levels.extent)
    # Pixels at or above the sensitive level, per blob, in one pass over the image:
    # most blobs are specks of noise that never reach it.
    sensitive = np.bincount(blobs[energy >= levels.weak], minlength=count + 1)
    found: list[_Candidate] = []
    pending: list[tuple[tuple[slice, slice], BoolImage, tuple[int, int]]] = []
    for label, where in enumerate(ndimage.find_objects(blobs), start=1):
        if where is None or sensitive[label] < max(1, config.min_candidate_px):
            continue
        inside = blobs[where] == label
        before = len(found)
        tall = _blob_lines(response, smooth, energy, levels, where, inside, config, found, pending)
        # Faint text joined to much stronger structure (bone) draws no stroke of the blob's:
        # searched where no line of the blob read as text (a text line's own fringe is none).
        parts = (
            _faint_parts(response, energy, levels, where, inside, config)
            if len(found) == before
            else []
        )
        if tall:
            # A band too tall for a line: the blob may be text joined to noise above the
            # extent level (noisy air beside a display frame); its own noise level parts them.
            parts = list(_own_level_parts(energy, levels, where, inside, config)) + parts
        for sub_where, sub_inside in parts:
            _blob_lines(
                response,
                smooth,
                energy,
                levels,
                sub_where,
                sub_inside,
                config,
                found,
                pending,
                min_density=config.strip_crossing_density,
            )
    strict = list(found)
    for part_where, part_inside, part_band in pending:  # lines beside a text line
        if _beside(strict, part_where, part_band):
            candidate = _line_candidate(
                response,
                smooth,
                energy,
                levels,
                part_where,
                part_inside,
                part_band,
                config,
                beside_text=True,
            )
            if candidate is not None:
                found.append(candidate)
    return found, weak > config.max_sensitive_threshold


def _blob_lines(
    response: FloatImage,
    smooth: FloatImage,
    energy: FloatImage,
    levels: _Levels,
    where: tuple[slice, slice],
    inside: BoolImage,
    config: BurnedInConfig,
    found: list[_Candidate],
    pending: list[tuple[tuple[slice, slice], BoolImage, tuple[int, int]]],
    *,
    min_density: float | None = None,
) -> bool:
    """Test each text line of one blob; returns whether a band was too tall for a line."""

    def keep(
        part_where: tuple[slice, slice],
        part_inside: BoolImage,
        part_band: tuple[int, int],
        density: float | None,
    ) -> bool:
        """Test one line; keep it when it reads as text."""
        candidate = _line_candidate(
            response,
            smooth,
            energy,
            levels,
            part_where,
            part_inside,
            part_band,
            config,
            min_density=density,
        )
        if candidate is not None:
            found.append(candidate)
        return candidate is not None

    strokes = _strokes(response[where], inside)
    tall = False
    for band in _line_bands(strokes):
        if band[1] - band[0] <= config.max_text_height:
            if keep(where, inside, band, min_density):
                continue
            pending.append((where, inside, band))
            for part in _full_lines(where, inside, response[where], band, config):
                keep(*part, config.strip_crossing_density)
            for part in _stem_run_lines(where, inside, response, smooth, band, config, judged=True):
                keep(*part, 0.0)  # a run at glyph pitch: dense by construction
            continue
        tall = True
        pending.append((where, inside, band))
        for part in _strip_bands(where, inside, strokes, band, config.max_text_height):
            keep(*part, config.strip_crossing_density)
        for part in _stem_run_lines(where, inside, response, smooth, band, config, judged=False):
            keep(*part, 0.0)
    return tall


def _in_image(where: tuple[slice, slice], part: tuple[slice, slice]) -> tuple[slice, slice]:
    """A part of a blob (slices within ``where``) in the image's coordinates."""
    return (
        slice(where[0].start + part[0].start, where[0].start + part[0].stop),
        slice(where[1].start + part[1].start, where[1].start + part[1].stop),
    )


def _own_level_parts(
    energy: FloatImage,
    levels: _Levels,
    where: tuple[slice, slice],
    inside: BoolImage,
    config: BurnedInConfig,
) -> Iterator[tuple[tuple[slice, slice], BoolImage]]:
    """A blob with a band too tall for a line, parted at its own levels.

    Text can be joined to noise above the extent level: where an exactly black
    display frame fills the quieter half, it sets the image's levels below the noise
    of the air beside it, and the air and text printed beside it (on the frame or on
    the air) form one blob whose rows all cross strokes. The blob's energy is then
    mostly that noise, so its own ``median + extent_sigmas * spread`` parts the text
    from it; a part counts when it reaches the blob's own sensitive level (``median +
    sensitive_sigmas * spread``) and the image's, with ``min_candidate_px`` pixels.
    """
    own = energy[where]
    median, spread = _robust_spread(own[inside])
    above = inside & (own > median + config.extent_sigmas * spread)
    parts, count = ndimage.label(above)
    if count == 0:
        return
    sensitive = (own >= levels.weak[where]) & (own >= median + config.sensitive_sigmas * spread)
    weak = np.bincount(parts[sensitive], minlength=count + 1)
    for label, part in enumerate(ndimage.find_objects(parts), start=1):
        if part is None or weak[label] < max(1, config.min_candidate_px):
            continue
        yield _in_image(where, part), parts[part] == label


def _faint_parts(
    response: FloatImage,
    energy: FloatImage,
    levels: _Levels,
    where: tuple[slice, slice],
    inside: BoolImage,
    config: BurnedInConfig,
) -> list[tuple[tuple[slice, slice], BoolImage]]:
    """The parts of a blob with a band too tall for a line that its strong strokes do not reach.

    A blob's strokes are its pixels above half its 90th-percentile response
    (:func:`_strokes`), a level set by its strongest structure: faint text joined to
    bone draws few strokes or none, and no line of the blob holds it. The pixels
    beyond one energy window (how far a stroke's energy reaches) of any response at
    that 90th percentile are something fainter, measured against their own strokes:
    each such part that reaches the sensitive level with ``min_candidate_px`` pixels
    is searched for lines as a blob is.
    """
    own = response[where]
    strong = float(np.percentile(own[inside], 90))
    if 0.5 * strong < _FAINT_STROKE * config.min_stroke_contrast:
        return []  # text of the operating range draws strokes at the blob's level
    window = (config.energy_rows, config.energy_cols)
    rest = inside & (ndimage.maximum_filter(own, size=window, mode="constant") < strong)
    parts, count = ndimage.label(rest)
    if count == 0:
        return []
    weak = np.bincount(parts[energy[where] >= levels.weak[where]], minlength=count + 1)
    found = []
    for label, part in enumerate(ndimage.find_objects(parts), start=1):
        if part is None or weak[label] < max(1, config.min_candidate_px):
            continue
        pixels = parts[part] == label
        if float(np.percentile(own[part][pixels], 90)) >= 0.5 * strong:
            continue  # it draws the blob's strokes: the blob's own lines hold it
        found.append((_in_image(where, part), pixels))
    return found


def _full_lines(
    where: tuple[slice, slice],
    inside: BoolImage,
    response: FloatImage,
    band: tuple[int, int],
    config: BurnedInConfig,
) -> Iterator[tuple[tuple[slice, slice], BoolImage, tuple[int, int]]]:
    """The text line hidden in a band that failed the text-line test, as a line of its own.

    Anatomy touching a text line joins it in one band: on the rows just above or
    below the text it crosses one or two strokes, so the band's median row (a row of
    the anatomy) crosses too few strokes for text; on the text's rows it lies beside
    the glyphs and stretches the line's width, so the crossings per text height fall.
    Only a band on a flat ground (:func:`_flat_ground`) is searched: dropping a
    texture's sparser rows would make its ground look flatter than it is.
    The text's own rows still cross at least ``min_candidate_crossings`` strokes, and
    its glyphs stand in one run of columns (gaps under a text height, as
    ``line_gap_heights`` says of a line's glyphs): each run of such rows, as tall as
    text, is tested again, and where its strokes fall into runs of columns further
    apart than that, each run on its own.
    """
    rows = slice(band[0], band[1])
    strokes = _strokes(response[rows], inside[rows])  # the band's rows only
    if not strokes.any():
        return
    level = float(np.percentile(response[rows][strokes], 90))
    if not _flat_ground(response[rows], strokes, level, config):
        return  # texture, not text beside anatomy: cutting it finer must not flatten it
    for start, stop in _line_bands(strokes, config.min_candidate_crossings):
        height = stop - start
        if not config.min_text_height <= height < band[1] - band[0]:
            continue
        sub = (band[0] + start, band[0] + stop)
        columns = np.flatnonzero(strokes[start:stop].any(axis=0))
        gaps = np.flatnonzero(np.diff(columns) > max(1.0, config.line_gap_heights * height))
        if not gaps.size:
            yield where, inside, sub
            continue
        firsts = np.concatenate(([columns[0]], columns[gaps + 1]))
        lasts = np.concatenate((columns[gaps], [columns[-1]]))
        for first, last in zip(firsts, lasts, strict=True):
            cols = slice(int(first), int(last) + 1)
            part = (where[0], slice(where[1].start + cols.start, where[1].start + cols.stop))
            yield part, inside[:, cols], sub


def _ridges(response: FloatImage, config: BurnedInConfig) -> BoolImage:
    """Thin upright strokes along each row: a pixel of at least ``min_stroke_contrast``
    that peaks along its row and falls to half of it within :data:`_RIDGE_REACH` pixels
    on both sides (a thin stem on flat ground, whatever its neighbours' strength)."""
    cols = response.shape[1]
    reach = _RIDGE_REACH
    padded = np.pad(response, ((0, 0), (reach, reach)), mode="edge")
    left = np.min([padded[:, reach - k : reach - k + cols] for k in range(1, reach + 1)], axis=0)
    right = np.min([padded[:, reach + k : reach + k + cols] for k in range(1, reach + 1)], axis=0)
    before = padded[:, reach - 1 : reach - 1 + cols]
    after = padded[:, reach + 1 : reach + 1 + cols]
    half = 0.5 * response
    ridges: BoolImage = (
        (response >= config.min_stroke_contrast)
        & (response > before)
        & (response >= after)
        & (left <= half)
        & (right <= half)
    )
    return ridges


def _stems_seen(
    seen: BoolImage, columns: list[float], rows: tuple[int, int], band: tuple[int, int]
) -> bool:
    """Whether the band's strokes ``seen`` show a run's stems apart: on most of the
    run's rows within the band, every stem's column is a stroke and ground lies
    between each two."""
    shown = []
    for row in range(max(rows[0], band[0]), min(rows[1], band[1])):
        line = seen[row - band[0]]
        stems = all(line[round(column)] for column in columns)
        apart = all(
            not line[round(left) + 1 : round(right)].all() for left, right in pairwise(columns)
        )
        shown.append(stems and apart)
    return 2 * sum(shown) > len(shown)


def _stem_run_lines(
    where: tuple[slice, slice],
    inside: BoolImage,
    image_response: FloatImage,
    image_smooth: FloatImage,
    band: tuple[int, int],
    config: BurnedInConfig,
    *,
    judged: bool,
) -> Iterator[tuple[tuple[slice, slice], BoolImage, tuple[int, int]]]:
    """A run of one-stem glyphs hidden in a band that failed the text-line test.

    Beside anatomy on the same rows, the blob's stroke level (half its 90th
    percentile) is set by the anatomy: the stems of small one-stem glyphs ("1111")
    merge with the ground between them or drop below it, so no line of them shows.
    Their physics does not depend on that level: each stem is a thin ridge along the
    rows (:func:`_ridges`), the stems of a run stand on one baseline and reach one
    height (top and bottom rows within a pixel), at a regular glyph pitch; anatomy
    beside them is not regular. Each such run of :data:`_RUN_STEMS` stems or more
    touching the band's rows — in a band the text-line test has ``judged`` (one of a
    line's height), only where the band's strokes did not show the stems apart
    (:func:`_stems_seen`; where they did, that test has judged them: a graphic's
    ticks and bars on a plain ground set their own level) — is tested again
    as a line of its own (its rows, and its columns with a pitch on either side) when
    it stands on one ground (no plateau between its stems steps, :func:`_steps`), by
    every test but the crossing density: a run at glyph pitch is as dense as text by
    construction.
    """
    response, smooth = image_response[where], image_smooth[where]
    seen = _strokes(response[band[0] : band[1]], inside[band[0] : band[1]])
    top = max(0, band[0] - config.max_text_height)
    bottom = min(inside.shape[0], band[1] + config.max_text_height)
    ridges = _ridges(response[top:bottom], config) & inside[top:bottom]
    labels, _ = ndimage.label(ridges, structure=np.ones((3, 3), dtype=bool))
    # (first row, last row, mean column, first column, end column) of each stem
    stems: list[tuple[int, int, float, int, int]] = []
    for label, part in enumerate(ndimage.find_objects(labels), start=1):
        if part is None:
            continue
        first, last = part[0].start + top, part[0].stop - 1 + top
        spread = part[1].stop - part[1].start
        if not config.min_text_height <= last - first + 1 <= config.max_text_height:
            continue  # a speck, or taller than a line of text
        if spread > _RIDGE_SPREAD:
            continue
        columns = np.flatnonzero((labels[part] == label).any(axis=0)) + part[1].start
        stems.append((first, last, float(np.mean(columns)), part[1].start, part[1].stop))
    stems.sort(key=lambda stem: stem[2])
    used: set[int] = set()
    for index, (first, last, *_) in enumerate(stems):
        if index in used:
            continue
        run = [index]
        height = last - first + 1
        for later in range(index + 1, len(stems)):
            if abs(stems[later][0] - first) > 1 or abs(stems[later][1] - last) > 1:
                continue  # another line's stem, or anatomy: not on this baseline
            pitch = stems[later][2] - stems[run[-1]][2]
            if not _RUN_PITCH[0] * height <= pitch <= _RIDGE_PITCH * height:
                break
            step = stems[run[1]][2] - stems[run[0]][2] if len(run) >= 2 else pitch
            if abs(pitch - step) > _RUN_REGULAR * pitch:
                break
            run.append(later)
        if len(run) < _RUN_STEMS or not (first < band[1] and band[0] <= last):
            continue
        if judged and _stems_seen(seen, [stems[i][2] for i in run], (first, last + 1), band):
            continue  # the text-line test saw these stems and judged them
        left, right = stems[run[0]][2], stems[run[-1]][2]
        pitch = (right - left) / (len(run) - 1)
        x0 = max(0, int(left - pitch))
        x1 = min(inside.shape[1], int(np.ceil(right + pitch)) + 1)
        line = (slice(first, last + 1), slice(x0, x1))
        # The ridges are strokes too (a faint stem may lie under the line's own level).
        strokes = (
            _strokes(response[line], inside[line]) | ridges[first - top : last + 1 - top, x0:x1]
        )
        ridge_stems = [(stems[i][3] - x0, stems[i][4] - x0) for i in run]
        if any(_steps(smooth[line], response[line], strokes, ridge_stems)):
            continue  # plateaus that step between the stems: a step wedge's bars
        used.update(run)
        part_where = (where[0], slice(where[1].start + x0, where[1].start + x1))
        yield part_where, inside[:, x0:x1], (first, last + 1)


def _beside(found: list[_Candidate], where: tuple[slice, slice], band: tuple[int, int]) -> bool:
    """Whether rows ``band`` of ``where`` lie within one of their own height of an accepted
    line, above or below it, and overlap its columns."""
    top, bottom = where[0].start + band[0], where[0].start + band[1]
    height = bottom - top
    for candidate in found:
        x0, y0, x1, y1 = candidate.line
        vertical = top - y1 if top >= y1 else y0 - bottom
        if -height < vertical <= height and x0 < where[1].stop and where[1].start < x1:
            return True
    return False


def _strip_bands(
    where: tuple[slice, slice],
    inside: BoolImage,
    strokes: BoolImage,
    band: tuple[int, int],
    max_height: int,
) -> Iterator[tuple[tuple[slice, slice], BoolImage, tuple[int, int]]]:
    """The text lines of a band too tall to be one: looked for again in vertical strips.

    Text printed beside anatomy joins it in one blob, and over the blob's full
    width every row crosses strokes, so no line shows. Within a strip four line
    heights wide (half-overlapping), the rows between the text's lines, and
    between the text and the anatomy, are quiet again. A line cut out this way
    must read more clearly as text (``strip_crossing_density`` crossings per text
    height; text has about 2.5): the strip's edges cut anatomy into line-like bits.
    """
    width = inside.shape[1]
    strip = 4 * max_height
    starts = range(0, max(1, width - strip // 2), strip // 2)
    rows = slice(band[0], band[1])
    for start in starts:
        cols = slice(start, min(width, start + strip))
        for sub in _line_bands(strokes[rows, cols]):
            if sub[1] - sub[0] <= max_height:
                sub_where = (where[0], slice(where[1].start + start, where[1].start + cols.stop))
                yield sub_where, inside[:, cols], (band[0] + sub[0], band[0] + sub[1])


def _merge_regions(regions: list[Region]) -> tuple[Region, ...]:
    """Union overlapping boxes (bright strokes and the dark gaps between them overlap)."""
    merged = sorted(regions)
    changed = True
    while changed:
        changed = False
        result: list[Region] = []
        for box in merged:
            for index, other in enumerate(result):
                if (
                    box[0] < other[2]
                    and other[0] < box[2]
                    and box[1] < other[3]
                    and other[1] < box[3]
                ):
                    result[index] = (
                        min(box[0], other[0]),
                        min(box[1], other[1]),
                        max(box[2], other[2]),
                        max(box[3], other[3]),
                    )
                    changed = True
                    break
            else:
                result.append(box)
        merged = sorted(result)
    return tuple(sorted(merged, key=lambda r: (r[1], r[0], r[3], r[2])))


def _running(values: FloatImage, size: int, axis: int, *, dilate: bool) -> FloatImage:
    """Running minimum (or maximum, ``dilate``) over ``size`` samples along ``axis``.

    Exactly ``scipy.ndimage.grey_erosion`` / ``grey_dilation`` along one axis (mode
    ``reflect``; an even window sits as SciPy places it), by window doubling: about
    log2(size) whole-array ``np.minimum`` passes instead of SciPy's per-pixel loop.
    """
    op = np.maximum if dilate else np.minimum
    count = values.shape[axis]
    left = size // 2 - (1 if dilate and size % 2 == 0 else 0)
    padding = [(0, 0), (0, 0)]
    padding[axis] = (left, size - 1 - left)
    run = np.pad(values, padding, mode="symmetric")

    def part(start: int, length: int) -> FloatImage:
        index = [slice(None), slice(None)]
        index[axis] = slice(start, start + length)
        window: FloatImage = run[tuple(index)]
        return window

    width = 1
    length = run.shape[axis]
    while 2 * width <= size:
        # In place over the shrinking front of one array: the window doubles, no new image.
        length -= width
        op(part(0, length), part(width, length), out=part(0, length))
        width *= 2
    result: FloatImage = op(part(0, count), part(size - width, count))
    return result


def _square(values: FloatImage, size: int, *, dilate: bool) -> FloatImage:
    """Grey erosion (or dilation) with a ``size`` x ``size`` square, one axis at a time."""
    return _running(_running(values, size, 0, dilate=dilate), size, 1, dilate=dilate)


def _tophat(smooth: FloatImage, size: int, *, white: bool) -> FloatImage:
    """The white or black top-hat with a ``size`` square, equal to SciPy's, in one pass each way.

    The white top-hat is the image minus its opening (erosion, then dilation), the
    black one its closing (dilation, then erosion) minus the image.
    """
    if white:
        opened = _square(_square(smooth, size, dilate=False), size, dilate=True)
        np.subtract(smooth, opened, out=opened)
        return opened
    closed = _square(_square(smooth, size, dilate=True), size, dilate=False)
    closed -= smooth
    return closed


def _detect(image: FloatImage, config: BurnedInConfig) -> _Detection:
    smooth = ndimage.gaussian_filter(image, config.smooth_sigma) if config.smooth_sigma else image
    # One polarity at a time, so one top-hat image is alive at once.
    bright, bright_cluttered = _candidates(
        _tophat(smooth, config.tophat_px, white=True), smooth, config
    )
    dark, dark_cluttered = _candidates(
        _tophat(smooth, config.tophat_px, white=False), smooth, config
    )
    candidates = bright + dark
    regions = _merge_regions([c.region for c in candidates if c.region is not None])
    masked = np.zeros(image.shape, dtype=bool)
    for x0, y0, x1, y1 in regions:
        masked[y0:y1, x0:x1] = True
    candidate_map = np.zeros(image.shape, dtype=bool)
    uncovered_candidates = 0
    # A step wedge keeps the region it earned (masking it is harmless, and text beside
    # it may lie inside), but it is not text: left unmasked it is no privacy failure.
    for candidate in (c for c in candidates if not c.graphic):
        candidate_map[candidate.where] |= candidate.core
        uncovered = int((candidate.core & ~masked[candidate.where]).sum())
        if uncovered >= config.min_candidate_px:
            uncovered_candidates += 1
    total = int(candidate_map.sum())
    coverage = 1.0 if total == 0 else int((candidate_map & masked).sum()) / total
    return _Detection(
        regions=regions,
        coverage=coverage,
        uncovered_candidates=uncovered_candidates,
        cluttered=bright_cluttered or dark_cluttered,
    )


def _masked_digest(pixels: IntImage, regions: tuple[Region, ...]) -> str:
    """Digest of the masked pixel array (regions filled with the image minimum)."""
    masked = pixels.copy()
    fill = masked.min() if masked.size else 0
    for x0, y0, x1, y1 in regions:
        masked[y0:y1, x0:x1] = fill
    little = masked.astype(masked.dtype.newbyteorder("<"), copy=False)
    return digest_json(
        {
            "dtype": little.dtype.str,
            "shape": list(little.shape),
            "pixels": sha256_digest(np.ascontiguousarray(little).tobytes()),
        }
    )


def run(asset: bytes, config: BurnedInConfig = CONFIG_A) -> ComponentOutput:
    """Detect and mask burned-in text; report coverage and the runtime privacy verdict."""
    check_asset(asset)
    if type(config) is not BurnedInConfig:
        raise InvalidArgument("config must be a BurnedInConfig")
    decoded = _decode(asset)
    height, width = decoded.pixels.shape
    if min(height, width) < MIN_IMAGE_SIDE:
        detection = _Detection(regions=(), coverage=1.0, uncovered_candidates=0, cluttered=False)
        reason: str | None = "image_too_small"
    else:
        detection = _detect(_normalised(decoded), config)
        reason = "cluttered_background" if detection.cluttered else None
    failures: list[str] = []
    if detection.uncovered_candidates:
        failures.append("privacy")
    if decoded.annotation in ("YES", "INVALID") and not detection.regions:
        failures.append("privacy")
    output = {
        "regions": [list(region) for region in detection.regions],
        "coverage": round(detection.coverage, 6),
        "masked_digest": _masked_digest(decoded.pixels, detection.regions),
        "burned_in_annotation_attribute": decoded.annotation,
        "overlay_planes": decoded.overlay_planes,
    }
    return ComponentOutput(
        output=output,
        abstained=reason is not None,
        abstain_reason=reason,
        safety_failures=tuple(failures),
    )
