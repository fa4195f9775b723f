"""DICOM frame coverage: which frames of a multi-frame image were examined, which hold content.

Non-diagnostic.  The component reads a native (uncompressed) multi-frame
DICOM with pydicom, decides which frames to examine under its sampling rule,
and reports which examined frames carry *content*: localised bright structure
standing out of the frame's noise floor.  "Content" here is a signal-level
candidate for a reviewer, never a finding.

Content detector (per examined frame, all steps from numpy/scipy):

1. noise σ: 1.4826 × the median absolute horizontal pixel difference / √2
   (insensitive to smooth structure), floored at half a stored unit;
2. background: a quadratic surface fitted to block medians (block = min(rows,
   cols) // 16 pixels), refitted twice without cells that stand out above it;
3. contrast ``snr``: the maximum of the background-free frame smoothed by a
   periodic Gaussian of ``detection_scale_px`` (``scipy.ndimage.fourier_gaussian``
   on the frame's FFT), divided by the standard deviation of white noise of σ
   after the same smoothing (the norm of its impulse response);
4. content when ``snr`` ≥ ``detection_snr``.  With ``ambiguity_band`` (lo, hi)
   set, a frame whose ``snr`` lies in [lo, hi) × ``detection_snr`` is *near
   threshold* and the component abstains (``near_threshold_content``),
   still reporting its judgement.

Sampling rules (``rule`` in the output):

* ``every_frame`` (``stride == 1``): every frame is examined.
* ``stride_change_detection`` (``stride > 1``): frame 0 and every
  ``stride``-th frame are examined, and any other frame whose *change
  statistic* against the last examined frame exceeds ``change_threshold``.
  The change statistic is the largest absolute difference of block means
  (same blocks as above) after removing a quadratic surface, in units of the
  block-mean noise of the two frames.  An unexamined frame is *represented*
  by the last examined frame before it.

``coverage`` = found / (found + represented), where *found* is the number of
examined frames judged to have content and *represented* the number of
unexamined frames whose representative has content (1.0 when both are 0).
Under ``every_frame`` it is 1.0.  Under the stride rule it falls below 1.0
exactly when content persisted through frames the rule skipped; content that
appears with a change below ``change_threshold`` after an empty examined frame
is not seen at all (the rule's documented blind spot).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_openmed._canonical import finite_float
from pytest_openmed.carriers.dicom import quiet_pydicom, read_native_dicom
from pytest_openmed.components._base import (
    MAX_DECODED_PIXELS,
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
    "CONFIG_A",
    "CONFIG_B",
    "MAX_FRAMES",
    "MAX_PIXELS",
    "MAX_SIDE",
    "MIN_SIDE",
    "RULES",
    "FrameCoverageConfig",
    "run",
]

#: Closed sampling-rule labels.
RULES = ("every_frame", "stride_change_detection")
#: Closed abstain vocabulary.
ABSTAIN_REASONS = ("near_threshold_content",)

#: Declared-size limits, checked before any pixel is decoded.
MAX_FRAMES = 4096
MIN_SIDE = 8
MAX_SIDE = 4096
#: frames × rows × columns: the shared decoded-pixel budget, checked by the reader.
MAX_PIXELS = MAX_DECODED_PIXELS

#: The detection scale a configuration may set, in pixels.
_MIN_SCALE_PX, _MAX_SCALE_PX = 0.5, 16.0

_UNREADABLE = "asset is not a readable native DICOM image"
_NOISE_FLOOR = 0.5
_DECIMALS = 6

FloatArray = NDArray[np.float64]


@dataclasses.dataclass(frozen=True, slots=True)
class FrameCoverageConfig:
    """How frames are sampled and how content is judged.

    ``stride`` 1 means every frame (``change_threshold`` is then unused);
    ``ambiguity_band`` is ``None`` or (lo, hi) multiples of ``detection_snr``
    inside which the component abstains instead of deciding.
    """

    stride: int
    change_threshold: float
    detection_snr: float
    detection_scale_px: float
    ambiguity_band: tuple[float, float] | None

    def __post_init__(self) -> None:
        check_bounds(
            self, ("stride",), int, 1, MAX_FRAMES, f"stride must be an int in 1..{MAX_FRAMES}"
        )
        for name in ("change_threshold", "detection_snr", "detection_scale_px"):
            if finite_float(getattr(self, name), name) <= 0.0:
                raise InputRefused("thresholds and scales must be positive")
        if not _MIN_SCALE_PX <= self.detection_scale_px <= _MAX_SCALE_PX:
            raise InputRefused(
                f"detection_scale_px must be within {_MIN_SCALE_PX:g}..{_MAX_SCALE_PX:g}"
            )
        band = self.ambiguity_band
        if band is not None:
            if type(band) is not tuple or len(band) != 2:
                raise InvalidArgument("ambiguity_band must be None or a (lo, hi) tuple")
            lo, hi = (finite_float(v, "ambiguity_band") for v in band)
            if not 0.0 < lo < 1.0 < hi:
                raise InputRefused("ambiguity_band must satisfy 0 < lo < 1 < hi")

    @property
    def rule(self) -> str:
        return RULES[0] if self.stride == 1 else RULES[1]


#: Conservative: examine every frame, abstain on near-threshold content.
CONFIG_A = FrameCoverageConfig(
    stride=1,
    change_threshold=6.0,
    detection_snr=9.0,
    detection_scale_px=3.0,
    ambiguity_band=(0.75, 1.5),
)

#: Faster: every 8th frame plus change detection, decide near-threshold frames by the threshold.
CONFIG_B = FrameCoverageConfig(
    stride=8,
    change_threshold=6.0,
    detection_snr=9.0,
    detection_scale_px=3.0,
    ambiguity_band=None,
)


# -- parsing -------------------------------------------------------------------------------


def _declared_int(dataset: Any, keyword: str, default: int | None = None) -> int:
    value = dataset.get(keyword, default)
    if value is None or value == "":
        if default is None:
            raise CorruptAsset("DICOM image attributes are missing or malformed")
        value = default
    return int(value)


def _decode(asset: bytes) -> NDArray[np.float64]:
    """Pixel frames as float64 (frames, rows, cols); bright = signal for both monochromes."""
    with quiet_pydicom():
        dataset = read_native_dicom(
            asset,
            unsupported="only native (uncompressed) DICOM transfer syntaxes are read",
            corrupt=_UNREADABLE,
        )
        with parse_boundary(_UNREADABLE):
            if "PixelData" not in dataset:
                raise UnsupportedAsset("DICOM object has no native pixel data")
            if _declared_int(dataset, "SamplesPerPixel") != 1:
                raise UnsupportedAsset("only single-sample (monochrome) DICOM images are read")
            photometric = str(dataset.get("PhotometricInterpretation", ""))
            if photometric not in ("MONOCHROME1", "MONOCHROME2"):
                raise UnsupportedAsset("only MONOCHROME1/2 DICOM images are read")
            bits = _declared_int(dataset, "BitsAllocated")
            if bits not in (8, 16, 32):
                raise UnsupportedAsset("only 8, 16 or 32 bits allocated are read")
            frames = _declared_int(dataset, "NumberOfFrames", 1)
            rows = _declared_int(dataset, "Rows")
            cols = _declared_int(dataset, "Columns")
            if not (
                1 <= frames <= MAX_FRAMES
                and MIN_SIDE <= rows <= MAX_SIDE
                and MIN_SIDE <= cols <= MAX_SIDE
            ):
                raise UnsupportedAsset("DICOM frame count or size is outside the supported limits")
            if len(dataset.PixelData) < frames * rows * cols * (bits // 8):
                raise CorruptAsset("DICOM pixel data is shorter than its declared size")
            pixels = np.asarray(dataset.pixel_array, dtype=np.float64)
    if pixels.size != frames * rows * cols:
        raise CorruptAsset("DICOM pixel data does not match its declared size")
    pixels = pixels.reshape(frames, rows, cols)
    if not np.all(np.isfinite(pixels)):
        raise CorruptAsset("DICOM pixel data is not finite")
    return -pixels if photometric == "MONOCHROME1" else pixels


# -- statistics ----------------------------------------------------------------------------


def _upper_median(values: FloatArray, axis: int) -> FloatArray:
    """Upper median along ``axis`` (one ``partition``, no averaging of the middle pair)."""
    middle = values.shape[axis] // 2
    median: FloatArray = np.take(np.partition(values, middle, axis=axis), middle, axis=axis)
    return median


def _noise_sigma(frames: FloatArray) -> FloatArray:
    """Per-frame robust noise σ: 1.4826 × median |horizontal neighbour difference| / √2."""
    diffs = np.abs(np.diff(frames, axis=2)).reshape(frames.shape[0], -1)
    sigma: FloatArray = 1.4826 * _upper_median(diffs, axis=1) / math.sqrt(2.0)
    return np.maximum(sigma, _NOISE_FLOOR)


def _smooth(stack: FloatArray, scale: float) -> FloatArray:
    """Periodic Gaussian smoothing of each frame (``scipy.ndimage.fourier_gaussian``)."""
    from scipy import fft
    from scipy.ndimage import fourier_gaussian

    rows, cols = stack.shape[-2:]
    spectrum = fft.rfft2(stack, axes=(-2, -1))
    sigmas = (0.0,) * (stack.ndim - 2) + (scale, scale)
    spectrum = fourier_gaussian(spectrum, sigmas, n=cols, axis=-1)
    smoothed: FloatArray = fft.irfft2(spectrum, s=(rows, cols), axes=(-2, -1))
    return smoothed


def _smoothed_noise_gain(shape: tuple[int, int], scale: float) -> float:
    """Std of white unit noise after :func:`_smooth`: the norm of its impulse response."""
    delta = np.zeros(shape)
    delta[0, 0] = 1.0
    return float(np.sqrt(np.sum(_smooth(delta, scale) ** 2)))


class _Grid:
    """Block layout and quadratic design matrices for one frame shape."""

    def __init__(self, rows: int, cols: int) -> None:
        self.block = max(1, min(rows, cols) // 16)
        self.grid_rows, self.grid_cols = rows // self.block, cols // self.block
        centres_y = (np.arange(self.grid_rows, dtype=np.float64) + 0.5) * self.block - 0.5
        centres_x = (np.arange(self.grid_cols, dtype=np.float64) + 0.5) * self.block - 0.5
        self.cells = self._design(centres_y, centres_x, rows, cols)
        # Per-pixel coordinates stay separable: a rows·cols × 6 design matrix
        # would hold 48 bytes per pixel.
        self.row_v = self._normalised(np.arange(rows, dtype=np.float64), rows)[:, None]
        self.col_u = self._normalised(np.arange(cols, dtype=np.float64), cols)[None, :]

    @staticmethod
    def _normalised(coords: FloatArray, size: int) -> FloatArray:
        half = (size - 1) / 2.0
        normalised: FloatArray = (coords - half) / max(half, 1.0)
        return normalised

    @classmethod
    def _design(cls, ys: FloatArray, xs: FloatArray, rows: int, cols: int) -> FloatArray:
        v, u = np.meshgrid(cls._normalised(ys, rows), cls._normalised(xs, cols), indexing="ij")
        x, y = u.ravel(), v.ravel()
        return np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=1)

    def surface(self, coef: FloatArray) -> FloatArray:
        """The quadratic ``coef`` (in :meth:`_design` order) at every pixel."""
        u, v = self.col_u, self.row_v
        c0, cx, cy, cxx, cyy, cxy = (float(c) for c in coef)
        surface: FloatArray = (c0 + cx * u + cxx * u * u) + v * (cy + cyy * v) + cxy * (v * u)
        return surface

    def blocks(self, frame: FloatArray) -> FloatArray:
        b = self.block
        cropped = frame[: self.grid_rows * b, : self.grid_cols * b]
        return (
            cropped.reshape(self.grid_rows, b, self.grid_cols, b)
            .transpose(0, 2, 1, 3)
            .reshape(self.grid_rows * self.grid_cols, b * b)
        )


def _background(medians: FloatArray, sigma: float, grid: _Grid) -> FloatArray:
    """Quadratic coefficients fitted to block medians, without cells standing out above them."""
    cell_sigma = 1.2533 * sigma / grid.block
    keep = np.ones(medians.shape, dtype=bool)
    coef: FloatArray = np.zeros(grid.cells.shape[1])
    for _ in range(3):
        coef = np.asarray(np.linalg.lstsq(grid.cells[keep], medians[keep], rcond=None)[0])
        resid = medians - grid.cells @ coef
        spread = max(cell_sigma, 1.4826 * float(np.median(np.abs(resid[keep]))))
        new_keep = resid <= 3.0 * spread
        if int(new_keep.sum()) < 2 * grid.cells.shape[1] or np.array_equal(new_keep, keep):
            break
        keep = new_keep
    return coef


def _peak_snr(frames: FloatArray, sigma: FloatArray, grid: _Grid, scale: float) -> FloatArray:
    """Contrast of the brightest background-free, smoothed spot of each frame."""
    count, rows, cols = frames.shape
    medians = _upper_median(np.stack([grid.blocks(frame) for frame in frames]), axis=2)
    residual = np.empty_like(frames)
    for i in range(count):
        residual[i] = frames[i] - grid.surface(_background(medians[i], float(sigma[i]), grid))
    peaks: FloatArray = _smooth(residual, scale).reshape(count, -1).max(axis=1)
    return peaks / (sigma * _smoothed_noise_gain((rows, cols), scale))


def _change(means: FloatArray, sigma: FloatArray, grid: _Grid, index: int, ref: int) -> float:
    """Largest block-mean change beyond a quadratic surface, in block-noise units."""
    delta = means[index] - means[ref]
    coef = np.linalg.lstsq(grid.cells, delta, rcond=None)[0]
    resid = np.abs(delta - grid.cells @ coef)
    noise = math.sqrt(float(sigma[index]) ** 2 + float(sigma[ref]) ** 2) / grid.block
    return float(resid.max()) / noise


def _examined(
    frames: FloatArray, sigma: FloatArray, grid: _Grid, config: FrameCoverageConfig
) -> list[int]:
    count = frames.shape[0]
    if config.stride == 1:
        return list(range(count))
    means = np.stack([grid.blocks(frame).mean(axis=1) for frame in frames])
    examined, ref = [0], 0
    for index in range(1, count):
        if (
            index % config.stride == 0
            or _change(means, sigma, grid, index, ref) > config.change_threshold
        ):
            examined.append(index)
            ref = index
    return examined


def _coverage(count: int, examined: Sequence[int], content: set[int]) -> float:
    represented, ref = 0, 0
    examined_set = set(examined)
    for index in range(count):
        if index in examined_set:
            ref = index
        elif ref in content:
            represented += 1
    total = len(content) + represented
    return 1.0 if total == 0 else round(len(content) / total, _DECIMALS)


def run(asset: bytes, config: FrameCoverageConfig = CONFIG_A) -> ComponentOutput:
    """Frame-sampling manifest and content coverage of one native multi-frame DICOM."""
    check_asset(asset)
    if type(config) is not FrameCoverageConfig:
        raise InvalidArgument("config must be a FrameCoverageConfig")
    frames = _decode(asset)
    count, rows, cols = frames.shape
    grid = _Grid(rows, cols)
    sigma = _noise_sigma(frames)
    examined = _examined(frames, sigma, grid, config)
    snrs = _peak_snr(frames[examined], sigma[examined], grid, config.detection_scale_px)
    content = {i for i, snr in zip(examined, snrs, strict=True) if snr >= config.detection_snr}
    band = config.ambiguity_band
    near = band is not None and any(band[0] <= snr / config.detection_snr < band[1] for snr in snrs)
    output = {
        "frame_count": count,
        "examined_frames": examined,
        "content_frames": sorted(content),
        "coverage": _coverage(count, examined, content),
        "rule": config.rule,
    }
    return ComponentOutput(
        output=output,
        abstained=near,
        abstain_reason=ABSTAIN_REASONS[0] if near else None,
    )
