"""Whole-slide tiling and provenance: tissue mask, tile plan, and level-0 boxes that are checked.

Non-diagnostic.  The component reads a pyramidal, tiled RGB TIFF, finds
tissue on a low-resolution level, plans tiles at a chosen level and gives every
tile its provenance: the box at its level and the box it covers at level 0.
It then *verifies* that provenance against the pixels: a verified tile must be
a standard downsampling of its level-0 box, whatever filter made the level
(box, bilinear, bicubic, Lanczos, Gaussian, area, nearest): see
:func:`_matches`.  A mismatch is a ``provenance`` safety failure; the tile plan
is still reported.

Reading: tifffile parses the IFDs and the pyramid (``series[0].levels``, SubIFD
or page pyramids).  Tiles are decoded here, one at a time and only where
needed, with a zlib stream capped at the tile's declared size, because
tifffile's fallback inflates a tile without any bound; every decoded tile (and,
from its header, the coarsest level) counts against the shared decoded-pixel
budget.  Accepted: 8-bit RGB,
contiguous samples, tiled, no compression or Deflate, no or horizontal
predictor.  A TIFF without tiles, other compression, other sample layouts or
a pyramid whose levels are not integer downsamples of level 0 is
:class:`UnsupportedAsset`; unreadable bytes are :class:`CorruptAsset`.

Tissue mask (on the coarsest level, block-reduced until its longer side is
≤ 1024 pixels): HSV saturation ``(max − min) / max``; threshold by Otsu's
method (never below ``threshold``) or the fixed ``threshold``; then
``scipy.ndimage`` closing, hole filling, removal of objects under 4 mask
pixels and ``mask_dilation`` dilations.  A tile enters the plan when its
level-0 box touches a mask pixel.  Tiles step by ``tile_size - overlap`` at
the chosen level (the level with the largest downsample ≤
``target_downsample``); edge tiles are clipped to the level.

Verification: ``verify_every`` 1 checks every planned tile; ``k`` checks the
tiles whose position in the plan (row-major) is a multiple of ``k`` — a
deterministic, documented sample, not a silent one.
"""

from __future__ import annotations

import dataclasses
import itertools
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_openmed._canonical import finite_float, sha256_digest
from pytest_openmed.carriers.tiff import open_tiff
from pytest_openmed.components._base import (
    MAX_DECODED_PIXELS,
    ComponentOutput,
    CorruptAsset,
    UnsupportedAsset,
    check_asset,
    check_decoded_pixels,
)
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "ABSTAIN_REASONS",
    "CONFIG_A",
    "CONFIG_B",
    "MAX_DECODED_PIXELS",
    "MAX_LEVEL_PIXELS",
    "MAX_PAGES",
    "MAX_PLAN_TILES",
    "MAX_TILE_SIDE",
    "TISSUE_METHODS",
    "TilePlanConfig",
    "run",
]

#: Closed tissue-mask methods.
TISSUE_METHODS = ("otsu_saturation", "fixed_saturation")
#: Closed abstain vocabulary.
ABSTAIN_REASONS = ("no_tissue",)

#: Limits, checked on declared sizes before any tile is decoded.
MAX_PAGES = 64
MAX_LEVELS = 16
MAX_SIDE = 65536
MAX_LEVEL_PIXELS = 1 << 28  # declared pixels of any one level
MAX_TILE_SIDE = 2048
MAX_PLAN_TILES = 65536
MASK_MAX_SIDE = 1024

#: Bounds of a configuration's downsample, tile side and mask dilation.
_MAX_DOWNSAMPLE = 1024
_MIN_TILE_SIDE = 16
_MAX_DILATION = 16

_CELL = 32
_MIN_OBJECT = 4
_DECIMALS = 6
_COMPRESSIONS = (1, 8, 32946)  # none, Adobe Deflate, Deflate

UInt8Array = NDArray[np.uint8]
FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


@dataclasses.dataclass(frozen=True, slots=True)
class TilePlanConfig:
    """Level choice, tissue threshold, tile geometry and how much provenance is verified."""

    target_downsample: int
    tile_size: int
    overlap: int
    tissue_method: str
    threshold: float
    mask_dilation: int
    verify_every: int
    provenance_tolerance: float

    def __post_init__(self) -> None:
        ints = (
            self.target_downsample,
            self.tile_size,
            self.overlap,
            self.mask_dilation,
            self.verify_every,
        )
        if any(type(value) is not int for value in ints):
            raise InvalidArgument("integer configuration fields must be int")
        if not 1 <= self.target_downsample <= _MAX_DOWNSAMPLE:
            raise InputRefused(f"target_downsample must be in 1..{_MAX_DOWNSAMPLE}")
        tile_ok = _MIN_TILE_SIDE <= self.tile_size <= MAX_TILE_SIDE
        if not tile_ok or not 0 <= self.overlap < self.tile_size:
            raise InputRefused(
                f"tile_size must be in {_MIN_TILE_SIDE}..{MAX_TILE_SIDE} "
                "and 0 <= overlap < tile_size"
            )
        dilation_ok = 0 <= self.mask_dilation <= _MAX_DILATION
        if not dilation_ok or not 1 <= self.verify_every <= MAX_PLAN_TILES:
            raise InputRefused(f"mask_dilation must be in 0..{_MAX_DILATION} and verify_every >= 1")
        if self.tissue_method not in TISSUE_METHODS:
            raise InputRefused("tissue_method must be otsu_saturation or fixed_saturation")
        if not 0.0 < finite_float(self.threshold, "threshold") < 1.0:
            raise InputRefused("threshold must be within (0, 1)")
        if not 0.0 <= finite_float(self.provenance_tolerance, "provenance_tolerance") <= 255.0:
            raise InputRefused("provenance_tolerance must be within 0..255")


#: Conservative: downsample-2 level, Otsu threshold, dilated mask, every tile verified.
CONFIG_A = TilePlanConfig(
    target_downsample=2,
    tile_size=256,
    overlap=0,
    tissue_method="otsu_saturation",
    threshold=0.04,
    mask_dilation=1,
    verify_every=1,
    provenance_tolerance=2.0,
)

#: Faster: downsample-4 level, fixed threshold, every 4th tile verified.
CONFIG_B = TilePlanConfig(
    target_downsample=4,
    tile_size=128,
    overlap=0,
    tissue_method="fixed_saturation",
    threshold=0.15,
    mask_dilation=0,
    verify_every=4,
    provenance_tolerance=2.0,
)


# -- reading -------------------------------------------------------------------------------


class _Level:
    """One pyramid level: its geometry and a bounded, on-demand tile decoder."""

    def __init__(self, page: Any, asset: bytes, budget: list[int]) -> None:
        self.height, self.width = int(page.imagelength), int(page.imagewidth)
        self.tile_h, self.tile_w = int(page.tilelength), int(page.tilewidth)
        self.compression = int(page.compression)
        self.predictor = int(page.predictor)
        self.offsets = tuple(int(v) for v in page.dataoffsets)
        self.counts = tuple(int(v) for v in page.databytecounts)
        self.across = -(-self.width // self.tile_w)
        self.down = -(-self.height // self.tile_h)
        self.downsample = 1
        self._asset = asset
        self._budget = budget
        self._tiles: dict[int, UInt8Array] = {}

    def check(self) -> None:
        if not (1 <= self.width <= MAX_SIDE and 1 <= self.height <= MAX_SIDE):
            raise UnsupportedAsset("slide level size is outside the supported limits")
        if self.width * self.height > MAX_LEVEL_PIXELS:
            raise UnsupportedAsset("slide level size is outside the supported limits")
        if not (16 <= self.tile_w <= MAX_TILE_SIDE and 16 <= self.tile_h <= MAX_TILE_SIDE):
            raise UnsupportedAsset("slide tile size is outside the supported limits")
        if self.compression not in _COMPRESSIONS or self.predictor not in (1, 2):
            raise UnsupportedAsset("only uncompressed or Deflate tiles are read")
        if len(self.offsets) != self.across * self.down or len(self.counts) != len(self.offsets):
            raise CorruptAsset("slide tile tables do not match the level size")

    def _tile(self, index: int) -> UInt8Array:
        cached = self._tiles.get(index)
        if cached is not None:
            return cached
        size = self.tile_h * self.tile_w * 3
        self._budget[0] += self.tile_h * self.tile_w
        check_decoded_pixels(self._budget[0])
        offset, count = self.offsets[index], self.counts[index]
        if offset < 0 or count <= 0 or offset + count > len(self._asset):
            raise CorruptAsset("slide tile lies outside the file")
        data = self._asset[offset : offset + count]
        if self.compression != 1:
            try:
                inflater = zlib.decompressobj()
                data = inflater.decompress(data, size + 1)
            except zlib.error:
                raise CorruptAsset("slide tile is not a valid Deflate stream") from None
        if len(data) < size or (self.compression != 1 and len(data) > size):
            raise CorruptAsset("slide tile does not decode to its declared size")
        tile = np.frombuffer(data[:size], dtype=np.uint8).reshape(self.tile_h, self.tile_w, 3)
        if self.predictor == 2:
            tile = np.cumsum(tile, axis=1, dtype=np.uint8)
        self._tiles[index] = tile
        return tile

    def region(self, x: int, y: int, w: int, h: int) -> UInt8Array:
        """Pixels of the level box [x, y, w, h] (inside the level)."""
        out = np.empty((h, w, 3), dtype=np.uint8)
        for ty in range(y // self.tile_h, (y + h - 1) // self.tile_h + 1):
            for tx in range(x // self.tile_w, (x + w - 1) // self.tile_w + 1):
                tile = self._tile(ty * self.across + tx)
                y0, x0 = max(y, ty * self.tile_h), max(x, tx * self.tile_w)
                y1 = min(y + h, (ty + 1) * self.tile_h)
                x1 = min(x + w, (tx + 1) * self.tile_w)
                out[y0 - y : y1 - y, x0 - x : x1 - x] = tile[
                    y0 - ty * self.tile_h : y1 - ty * self.tile_h,
                    x0 - tx * self.tile_w : x1 - tx * self.tile_w,
                ]
        return out


def _page_ok(page: Any) -> bool:
    return (
        bool(page.is_tiled)
        and int(page.samplesperpixel) == 3
        and int(page.photometric) == 2
        and int(page.planarconfig) == 1
        and int(page.imagedepth) == 1
        and int(page.sampleformat) == 1
        and tuple(np.atleast_1d(page.bitspersample)) in ((8,), (8, 8, 8))
    )


def _open(asset: bytes) -> list[_Level]:
    """The pyramid, level 0 first, each level with its integer downsample."""
    budget = [0]  # pixels decoded so far, checked against the budget before each tile
    with open_tiff(asset, corrupt="asset is not a readable TIFF") as tif:
        if len(tif.pages) > MAX_PAGES:
            raise UnsupportedAsset("TIFF has more pages than supported")
        series = tif.series
        if not series:
            raise CorruptAsset("TIFF holds no image")
        pages = []
        for stored in series[0].levels[: MAX_LEVELS + 1]:
            if len(stored.pages) != 1:
                raise UnsupportedAsset("only single-image pyramid levels are read")
            pages.append(stored.keyframe)
        if len(pages) > MAX_LEVELS:
            raise UnsupportedAsset("TIFF pyramid has more levels than supported")
        if len(pages[0].subifds or ()) >= len(pages):
            # tifffile leaves out reduced levels whose shape does not fit the pyramid.
            raise UnsupportedAsset("pyramid levels are not integer downsamples of level 0")
        if not all(page.is_tiled for page in pages):
            raise UnsupportedAsset("TIFF is not tiled")
        if not all(_page_ok(page) for page in pages):
            raise UnsupportedAsset("only tiled 8-bit contiguous RGB TIFF pyramids are read")
        levels = [_Level(page, asset, budget) for page in pages]
    for level in levels:
        level.check()
    base = levels[0]
    for level in levels[1:]:
        factor = round(base.width / level.width)
        if (
            factor < 2
            or level.width not in (base.width // factor, -(-base.width // factor))
            or level.height not in (base.height // factor, -(-base.height // factor))
        ):
            raise UnsupportedAsset("pyramid levels are not integer downsamples of level 0")
        level.downsample = factor
    if any(a.downsample >= b.downsample for a, b in itertools.pairwise(levels)):
        raise UnsupportedAsset("pyramid levels are not ordered by resolution")
    coarsest = levels[-1]  # decoded whole for the tissue mask: refused from its header
    check_decoded_pixels(coarsest.across * coarsest.down * coarsest.tile_h * coarsest.tile_w)
    return levels


# -- tissue --------------------------------------------------------------------------------


def _saturation(rgb: UInt8Array) -> NDArray[np.float64]:
    high = rgb.max(axis=2).astype(np.float64)
    low = rgb.min(axis=2).astype(np.float64)
    return np.where(high > 0, (high - low) / np.maximum(high, 1.0), 0.0)


def _otsu(values: NDArray[np.float64]) -> float:
    """Otsu's threshold over a 256-bin histogram of values in [0, 1]."""
    counts, edges = np.histogram(values, bins=256, range=(0.0, 1.0))
    centres = (edges[:-1] + edges[1:]) / 2.0
    weight = np.cumsum(counts).astype(np.float64)
    mass = np.cumsum(counts * centres)
    total, total_mass = weight[-1], mass[-1]
    behind = total - weight
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (total_mass * weight - total * mass) ** 2 / (weight * behind)
    between[~np.isfinite(between)] = 0.0
    return float(edges[int(np.argmax(between)) + 1])


def _tissue_mask(level: _Level, config: TilePlanConfig) -> tuple[BoolArray, int, float]:
    """Mask, its level-0 downsample, and the threshold used."""
    from scipy import ndimage

    rgb = level.region(0, 0, level.width, level.height)
    factor = 1
    while max(level.width, level.height) > MASK_MAX_SIDE * factor:
        factor *= 2
    saturation = _saturation(rgb)
    if factor > 1:
        h, w = level.height // factor, level.width // factor
        saturation = saturation[: h * factor, : w * factor].reshape(h, factor, w, factor)
        saturation = saturation.mean(axis=(1, 3))
    threshold = config.threshold
    if config.tissue_method == "otsu_saturation":
        threshold = max(threshold, _otsu(saturation))
    mask = saturation > threshold
    mask = ndimage.binary_closing(mask, structure=np.ones((3, 3), dtype=bool), border_value=0)
    mask = ndimage.binary_fill_holes(mask)
    labels, count = ndimage.label(mask)
    if count:
        sizes = np.bincount(labels.ravel())
        keep = sizes >= _MIN_OBJECT
        keep[0] = False
        mask = keep[labels]
    if config.mask_dilation:
        mask = ndimage.binary_dilation(mask, iterations=config.mask_dilation)
    return np.asarray(mask, dtype=bool), level.downsample * factor, threshold


# -- plan and provenance -------------------------------------------------------------------


def _choose(levels: Sequence[_Level], target: int) -> int:
    return max(i for i, level in enumerate(levels) if level.downsample <= target)


def _plan(
    level: _Level, base: _Level, mask: BoolArray, mask_ds: int, config: TilePlanConfig
) -> list[tuple[list[int], list[int]]]:
    step, size, d = config.tile_size - config.overlap, config.tile_size, level.downsample
    tiles = []
    for y in range(0, level.height, step):
        for x in range(0, level.width, step):
            w, h = min(size, level.width - x), min(size, level.height - y)
            x0, y0 = x * d, y * d
            w0, h0 = min(w * d, base.width - x0), min(h * d, base.height - y0)
            if w0 <= 0 or h0 <= 0:
                continue
            window = mask[
                y0 // mask_ds : -(-(y0 + h0) // mask_ds), x0 // mask_ds : -(-(x0 + w0) // mask_ds)
            ]
            if window.any():
                tiles.append(([x, y, w, h], [x0, y0, w0, h0]))
                if len(tiles) > MAX_PLAN_TILES:
                    raise UnsupportedAsset("tile plan exceeds the supported number of tiles")
            if x + size >= level.width:
                break
        if y + size >= level.height:
            break
    return tiles


#: Kernel taps of a symmetric 5 × 5 resampling kernel, grouped by symmetry orbit
#: (the centre tap is 1 minus the rest: every resampling filter keeps the mean).
_ORBITS = (
    ((0, 1), (0, -1), (1, 0), (-1, 0)),
    ((1, 1), (1, -1), (-1, 1), (-1, -1)),
    ((0, 2), (0, -2), (2, 0), (-2, 0)),
    ((1, 2), (1, -2), (-1, 2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)),
    ((2, 2), (2, -2), (-2, 2), (-2, -2)),
)
_KERNEL_RADIUS = 2
#: Largest sample-position offset between resampling conventions, in level pixels.
_MAX_PHASE = 0.5
#: Gaussian (level pixels) that the residual is smoothed with before it is judged.
_SMOOTHING = 1.0
#: Allowed smoothed residual, in standard deviations of smoothed point-sampling aliasing.
_ALIASING_MARGIN = 2.0
#: Largest displacement (level pixels) the registration test searches for.
_SEARCH = 4
#: Level pixels read around a tile, so kernel, smoothing and search see real neighbours.
_MARGIN = _KERNEL_RADIUS + _SEARCH
#: Level pixels along the slide's edge left out of the comparison (border conventions differ).
_EDGE = _KERNEL_RADIUS


def _smoothed_noise_gain() -> float:
    """Standard deviation of white unit noise after the :data:`_SMOOTHING` Gaussian."""
    from scipy import ndimage

    delta = np.zeros((33, 33))
    delta[16, 16] = 1.0
    return float(np.sqrt(np.sum(ndimage.gaussian_filter(delta, _SMOOTHING) ** 2)))


def _block_stats(grey: FloatArray, d: int) -> tuple[FloatArray, FloatArray]:
    """Mean and variance of every d × d block of ``grey`` (whole blocks)."""
    h, w = grey.shape[0] // d, grey.shape[1] // d
    whole = grey[: h * d, : w * d]
    squares = whole * whole
    area = np.float32(d * d)
    # Block sums by strided slices (d × d of them), much faster than a strided reduce.
    offsets = list(itertools.product(range(d), repeat=2))
    mean = sum((whole[i::d, j::d] for i, j in offsets[1:]), start=whole[0::d, 0::d].copy()) / area
    second = sum((squares[i::d, j::d] for i, j in offsets[1:]), start=squares[0::d, 0::d].copy())
    variance: FloatArray = np.maximum(second / area - mean * mean, 0.0)
    return mean, variance


def _resampling_residual(tile: FloatArray, reference: FloatArray) -> FloatArray:
    """What no standard resampling of ``reference`` explains in ``tile``.

    Least squares of ``tile - reference`` on a symmetric 5 × 5 kernel applied
    to ``reference`` (which keeps its mean) plus a sample-position offset of
    at most :data:`_MAX_PHASE` level pixels along each axis; the residual is
    returned.  Box, bilinear, bicubic, Lanczos, Gaussian and area filters all
    lie in that family up to aliasing; a shift, another image or another
    geometry do not.
    """
    r = _KERNEL_RADIUS
    padded = np.pad(reference, r, mode="edge")
    h, w = reference.shape

    def shifted(dy: int, dx: int) -> FloatArray:
        view: FloatArray = padded[r + dy : r + dy + h, r + dx : r + dx + w]
        return view

    columns = [
        sum((shifted(dy, dx) for dy, dx in orbit), start=-len(orbit) * reference)
        for orbit in _ORBITS
    ]
    columns.append((shifted(0, 1) - shifted(0, -1)) / 2.0)
    columns.append((shifted(1, 0) - shifted(-1, 0)) / 2.0)
    design = np.stack([column.ravel() for column in columns])
    target = (tile - reference).ravel()
    kernel_terms = len(_ORBITS)
    gram = (design @ design.T).astype(np.float64)
    moment = (design @ target).astype(np.float64)
    coef = np.linalg.lstsq(gram, moment, rcond=None)[0]
    offsets = np.clip(coef[kernel_terms:], -_MAX_PHASE, _MAX_PHASE)
    if not np.array_equal(offsets, coef[kernel_terms:]):
        moment = moment - gram[:, kernel_terms:] @ offsets
        kernel = np.linalg.lstsq(
            gram[:kernel_terms, :kernel_terms], moment[:kernel_terms], rcond=None
        )[0]
        coef = np.concatenate([kernel, offsets])
    residual: FloatArray = (target - coef.astype(design.dtype) @ design).reshape(tile.shape)
    return residual


def _cell_means(values: FloatArray) -> FloatArray:
    """Mean over each 32 × 32-pixel cell (edge cells may be smaller)."""
    rows = np.arange(0, values.shape[0], _CELL)
    cols = np.arange(0, values.shape[1], _CELL)
    sums = np.add.reduceat(np.add.reduceat(values, rows, axis=0), cols, axis=1)
    heights = np.diff(np.append(rows, values.shape[0]))
    widths = np.diff(np.append(cols, values.shape[1]))
    means: FloatArray = sums / np.outer(heights, widths)
    return means


def _grey(rgb: UInt8Array) -> FloatArray:
    """Mean of the three channels, as float32 (what provenance compares)."""
    grey: FloatArray = rgb[:, :, 0].astype(np.float32)
    grey += rgb[:, :, 1]
    grey += rgb[:, :, 2]
    grey /= np.float32(3.0)
    return grey


def _matches(
    level: _Level, base: _Level, box: list[int], box0: list[int], tolerance: float
) -> bool:
    """Is the tile a standard downsampling of its level-0 box (whole blocks only)?

    On the channel mean: the reference is the d × d block mean of level 0
    around the tile.  A tile within ``tolerance`` of it (mean absolute
    difference per 32 × 32 cell) is the box filter and matches.  Otherwise the
    residual that no standard resampling explains
    (:func:`_resampling_residual`) is smoothed by a Gaussian of one level
    pixel; in every 32 × 32 cell its RMS must stay within ``tolerance`` grey
    levels plus :data:`_ALIASING_MARGIN` times the aliasing a point sample
    could show there (the within-block standard deviation of level 0, through
    the same smoothing), and no cell may match better displaced
    (:func:`_displaced`).
    """
    from scipy import ndimage

    d = level.downsample
    h, w = min(box[3], box0[3] // d), min(box[2], box0[2] // d)
    if h == 0 or w == 0:
        return True
    x, y = box[0], box[1]
    whole_w, whole_h = min(level.width, base.width // d), min(level.height, base.height // d)
    x0, y0 = max(x - _MARGIN, 0), max(y - _MARGIN, 0)
    x1, y1 = min(x + w + _MARGIN, whole_w), min(y + h + _MARGIN, whole_h)
    # The tile's own box, less the slide's outermost pixels.
    top, left = max(y, _EDGE) - y0, max(x, _EDGE) - x0
    bottom = min(y + h, whole_h - _EDGE) - y0
    right = min(x + w, whole_w - _EDGE) - x0
    if bottom <= top or right <= left:
        return True
    inside = (slice(top, bottom), slice(left, right))
    # The box filter itself (block mean within tolerance) holds; checked on the
    # tile's own box first, so the margin's neighbouring tiles are decoded only
    # when the full check runs.
    own = _grey(level.region(x, y, w, h))
    own_reference = _block_stats(_grey(base.region(x * d, y * d, w * d, h * d)), d)[0]
    core = (slice(top - (y - y0), bottom - (y - y0)), slice(left - (x - x0), right - (x - x0)))
    if np.all(_cell_means(np.abs(own - own_reference)[core]) <= tolerance):
        return True
    tile = _grey(level.region(x0, y0, x1 - x0, y1 - y0))
    source = _grey(base.region(x0 * d, y0 * d, (x1 - x0) * d, (y1 - y0) * d))
    reference, variance = _block_stats(source, d)
    residual = ndimage.gaussian_filter(_resampling_residual(tile, reference), _SMOOTHING)
    gain = _smoothed_noise_gain()
    aliasing = gain * gain * ndimage.gaussian_filter(variance, _SMOOTHING / np.sqrt(2.0))
    rms = np.sqrt(_cell_means(residual[inside] ** 2))
    aliasing_std = np.sqrt(_cell_means(aliasing[inside]))
    if np.any(rms > tolerance + _ALIASING_MARGIN * aliasing_std):
        return False
    return not np.any(_displaced(tile, reference, inside, tolerance))


def _displaced(
    tile: FloatArray, reference: FloatArray, inside: tuple[slice, slice], floor: float
) -> NDArray[np.bool_]:
    """Cells where the tile matches the reference better when displaced.

    On the smoothed images, per cell: the best mean squared difference over
    offsets within the phase allowance (−½, 0, +½ level pixel along each axis,
    the reference interpolated linearly: every standard filter samples within
    half a level pixel of the block centre) must exceed ``floor``², and an
    integer offset of 1 to :data:`_SEARCH` pixels beyond it must halve it.
    Comparing with the best allowed offset, not with zero, keeps a straight
    edge (which matches equally well anywhere along itself) from looking
    displaced.
    """
    from scipy import ndimage

    smooth_tile = ndimage.gaussian_filter(tile, _SMOOTHING)[inside]
    smooth_ref = np.pad(ndimage.gaussian_filter(reference, _SMOOTHING), _SEARCH, mode="edge")
    rows, cols = inside
    h, w = smooth_tile.shape

    def view(dy: int, dx: int) -> FloatArray:
        y, x = rows.start + _SEARCH + dy, cols.start + _SEARCH + dx
        shifted: FloatArray = smooth_ref[y : y + h, x : x + w]
        return shifted

    def difference(shifted: FloatArray) -> FloatArray:
        delta = smooth_tile - shifted
        return _cell_means(delta * delta)

    near = np.full((-(-h // _CELL), -(-w // _CELL)), np.inf)
    for half_y, half_x in itertools.product(range(-1, 2), repeat=2):
        # Offset (half_y / 2, half_x / 2): the mean of the integer views around it.
        ys = sorted({half_y // 2, -(-half_y // 2)})
        xs = sorted({half_x // 2, -(-half_x // 2)})
        views = [view(dy, dx) for dy in ys for dx in xs]
        near = np.minimum(near, difference(sum(views[1:], start=views[0]) / len(views)))
    if not np.any(near > floor * floor):
        return np.zeros(near.shape, dtype=bool)
    far = np.full_like(near, np.inf)
    for dy, dx in itertools.product(range(-_SEARCH, _SEARCH + 1), repeat=2):
        if dy or dx:
            far = np.minimum(far, difference(view(dy, dx)))
    displaced: NDArray[np.bool_] = (near > floor * floor) & (far < 0.5 * near)
    return displaced


def run(asset: bytes, config: TilePlanConfig = CONFIG_A) -> ComponentOutput:
    """Tissue mask, tile plan and verified per-tile provenance of one pyramidal TIFF."""
    check_asset(asset)
    if type(config) is not TilePlanConfig:
        raise InvalidArgument("config must be a TilePlanConfig")
    levels = _open(asset)
    base = levels[0]
    chosen = _choose(levels, config.target_downsample)
    level = levels[chosen]
    mask, mask_ds, threshold = _tissue_mask(levels[-1], config)
    tiles = _plan(level, base, mask, mask_ds, config)
    failures: tuple[str, ...] = ()
    if chosen > 0:
        for position, (box, box0) in enumerate(tiles):
            if position % config.verify_every:
                continue
            if not _matches(level, base, box, box0, config.provenance_tolerance):
                failures = ("provenance",)
                break
    output = {
        "level": chosen,
        "downsample": level.downsample,
        "tissue_method": config.tissue_method,
        "tissue_threshold": round(threshold, _DECIMALS),
        "tiles": [{"level_box": box, "level0_box": box0} for box, box0 in tiles],
        "source_digest": sha256_digest(asset),
    }
    return ComponentOutput(
        output=output,
        abstained=not tiles,
        abstain_reason=None if tiles else ABSTAIN_REASONS[0],
        safety_failures=failures,
    )
