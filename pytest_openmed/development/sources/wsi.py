"""Generated pyramidal tiled RGB TIFF slides with a known tissue mask (synthetic, non-diagnostic).

:func:`generate_wsi_tiles` paints pinkish "tissue" regions (perturbed ellipses
with a low-frequency stain texture and dark "nuclei") on a bright background,
and writes a pyramid with tifffile: level 0 as the main IFD, each reduced level
(downsample 2, 4, …) as a SubIFD flagged reduced-resolution, all tiled
256 × 256, deflate-compressed with a horizontal predictor.  Level ``n`` is the
exact ``2**n`` block mean of level 0 (rounded half up), so provenance can be
checked exactly.  No date/time, software or description tags are written; the
bytes depend only on the arguments.

Slices: ``nominal`` (white background, well-stained tissue, consistent
pyramid), ``adverse_acquisition`` (tinted, uneven background, pale staining,
grey debris specks that are not tissue), ``ambiguity_conflict`` (nominal
tissue, but the reduced levels disagree with level 0 inside one tissue patch:
they were computed from a level 0 in which that patch is displaced by several
pixels, as after a stitching error).  ``inconsistency`` overrides the slice's
choice: ``"none"``, ``"patch"`` or ``"shift"`` (every reduced level computed
from a displaced level 0).

``truth`` carries the tissue shapes (re-rendered by :func:`render_tissue_mask`),
the tissue fraction, the pyramid geometry and the inconsistency, if any.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_openmed._validate import check_int, check_seed
from pytest_openmed.development.sources import SLICES, GeneratedSource, check_slice
from pytest_openmed.errors import InputRefused

__all__ = [
    "INCONSISTENCIES",
    "MEDIA_TYPE",
    "TILE",
    "encode_pyramid",
    "generate_wsi_tiles",
    "render_tissue_mask",
]

#: Media type of the generated asset.
MEDIA_TYPE = "image/tiff"
#: Storage tile edge (pixels) at every level.
TILE = 256
#: Pyramid levels and level-0 edge a generated slide may have.
_MIN_LEVELS, _MAX_LEVELS = 3, 6
_MIN_SIZE, _MAX_SIZE = 512, 4096
#: Kinds of pyramid inconsistency the generator can plant.
INCONSISTENCIES = ("none", "patch", "shift")

_Colours = Mapping[str, tuple[float, float, float]]
_NOMINAL: _Colours = {
    "background": (243.0, 243.0, 246.0),
    "stroma": (224.0, 150.0, 194.0),
    "nucleus": (112.0, 72.0, 152.0),
}
_PALE: _Colours = {
    "background": (236.0, 233.0, 222.0),
    "stroma": (232.0, 204.0, 221.0),
    "nucleus": (178.0, 146.0, 196.0),
}


def _shapes(rng: np.random.Generator, size: int) -> list[dict[str, Any]]:
    """Two or three perturbed ellipses, kept inside the slide."""
    shapes = []
    for _ in range(int(rng.integers(2, 4))):
        ry, rx = (float(v) for v in rng.uniform(0.14, 0.24, size=2) * size)
        reach = 1.3 * max(ry, rx)
        shapes.append(
            {
                "cy": float(rng.uniform(reach, size - reach)),
                "cx": float(rng.uniform(reach, size - reach)),
                "ry": ry,
                "rx": rx,
                "angle": float(rng.uniform(0.0, math.pi)),
                "harmonics": [
                    [k, float(rng.uniform(0.02, 0.08)), float(rng.uniform(0.0, 2.0 * math.pi))]
                    for k in (2, 3, 5)
                ],
            }
        )
    return shapes


def render_tissue_mask(truth: Mapping[str, Any]) -> NDArray[np.bool_]:
    """The level-0 tissue mask of a generated slide, re-rendered from its ``truth``."""
    height, width = truth["size"]
    mask = np.zeros((height, width), dtype=bool)
    for shape in truth["tissue_shapes"]:
        reach = 1.3 * max(shape["ry"], shape["rx"])
        y0, y1 = max(0, int(shape["cy"] - reach)), min(height, int(shape["cy"] + reach) + 1)
        x0, x1 = max(0, int(shape["cx"] - reach)), min(width, int(shape["cx"] + reach) + 1)
        dy = np.arange(y0, y1, dtype=np.float32)[:, None] - np.float32(shape["cy"])
        dx = np.arange(x0, x1, dtype=np.float32)[None, :] - np.float32(shape["cx"])
        cos, sin = np.float32(math.cos(shape["angle"])), np.float32(math.sin(shape["angle"]))
        u = (dx * cos + dy * sin) / np.float32(shape["rx"])
        v = (dy * cos - dx * sin) / np.float32(shape["ry"])
        phi = np.arctan2(v, u)
        radius = np.ones_like(phi)
        for k, amplitude, phase in shape["harmonics"]:
            radius += np.float32(amplitude) * np.cos(np.float32(k) * phi + np.float32(phase))
        mask[y0:y1, x0:x1] |= np.hypot(u, v) <= radius
    return mask


def _stain_field(rng: np.random.Generator, size: int) -> NDArray[np.float32]:
    """Low-frequency stain variation in [-1, 1], smooth over ~100 level-0 pixels.

    Built at a quarter of the resolution and repeated: steps between 4-pixel
    blocks are a fraction of a grey level, invisible under the texture.
    """
    from scipy.ndimage import gaussian_filter

    coarse = gaussian_filter(rng.normal(size=(size // 4, size // 4)), 8.0, mode="wrap")
    coarse /= max(float(np.abs(coarse).max()), 1e-9)
    field = np.repeat(np.repeat(coarse.astype(np.float32), 4, axis=0), 4, axis=1)
    return np.asarray(field, dtype=np.float32)


def _stamp(image: NDArray[Any], centres: NDArray[Any], radius: int, colour: Any) -> None:
    """Paint filled discs of ``radius`` at ``centres`` (clipped to the image)."""
    offsets = [
        (dy, dx)
        for dy in range(-radius, radius + 1)
        for dx in range(-radius, radius + 1)
        if dy * dy + dx * dx <= radius * radius
    ]
    height, width = image.shape[:2]
    for dy, dx in offsets:
        ys = np.clip(centres[:, 0] + dy, 0, height - 1)
        xs = np.clip(centres[:, 1] + dx, 0, width - 1)
        image[ys, xs] = colour


def _paint(
    rng: np.random.Generator, size: int, mask: NDArray[np.bool_], adverse: bool
) -> NDArray[np.uint8]:
    colours = _PALE if adverse else _NOMINAL
    ys, xs = np.nonzero(mask)
    picks = rng.choice(ys.size, size=ys.size // 150, replace=False)
    nuclei = np.zeros((size, size), dtype=bool)
    _stamp(nuclei, np.stack([ys[picks], xs[picks]], axis=1), 2, True)
    stain = _stain_field(rng, size)[mask]
    tissue = np.asarray(colours["stroma"], dtype=np.float32) + stain[:, None] * np.asarray(
        (6.0, 18.0, 10.0), dtype=np.float32
    )
    tissue[nuclei[mask]] = colours["nucleus"]
    tissue += rng.normal(0.0, 1.5, size=tissue.shape).astype(np.float32)

    if adverse:
        ramp = np.linspace(-6.0, 6.0, size, dtype=np.float32)
        shade = ramp[None, :] + ramp[:, None] * np.float32(0.5)
        background = np.asarray(colours["background"], dtype=np.float32) + shade[..., None]
        image = np.rint(background).astype(np.uint8)
        debris = rng.integers(0, size, size=(max(8, size // 64), 2))
        _stamp(image, debris, 6, (150, 150, 152))
    else:
        image = np.empty((size, size, 3), dtype=np.uint8)
        image[:] = np.rint(np.asarray(colours["background"])).astype(np.uint8)
    image[mask] = np.clip(np.rint(tissue), 0, 255).astype(np.uint8)
    return image


def _pyramid(source: NDArray[np.uint8], levels: int) -> list[NDArray[np.uint8]]:
    """Levels 1.. of ``source``: exact ``2**n`` block means of it, rounded half up.

    Block sums are accumulated level by level (2 × 2 sums of the previous sums),
    so each level is still the exact mean over its level-0 block.
    """
    sums = source.astype(np.uint32)
    reduced = []
    for n in range(1, levels):
        sums = sums[0::2, 0::2] + sums[1::2, 0::2] + sums[0::2, 1::2] + sums[1::2, 1::2]
        area = 4**n
        reduced.append(((sums + area // 2) // area).astype(np.uint8))
    return reduced


def _displace(
    rng: np.random.Generator, level0: NDArray[np.uint8], mask: NDArray[np.bool_], kind: str
) -> tuple[NDArray[np.uint8], list[int] | None, list[int]]:
    """Level 0 as the reduced levels will see it: displaced in a patch or everywhere."""
    magnitude, sign = rng.integers(6, 13, size=2), rng.choice((-1, 1), size=2)
    dy, dx = (int(m) * int(s) for m, s in zip(magnitude, sign, strict=True))
    if kind == "shift":
        return np.roll(level0, (dy, dx), axis=(0, 1)), None, [dy, dx]
    from scipy.ndimage import distance_transform_edt

    size = level0.shape[0]
    patch = size * 3 // 16  # level-0 edge of the displaced patch (384 at size 2048)
    inner = distance_transform_edt(mask[::8, ::8]) * 8 >= patch * 0.75
    candidates = np.argwhere(inner) * 8
    if candidates.size == 0:
        candidates = np.argwhere(mask[::8, ::8]) * 8
    cy, cx = (int(v) for v in candidates[int(rng.integers(0, len(candidates)))])
    y0 = min(max(cy - patch // 2, 16), size - patch - 16)
    x0 = min(max(cx - patch // 2, 16), size - patch - 16)
    source = level0.copy()
    source[y0 : y0 + patch, x0 : x0 + patch] = level0[
        y0 - dy : y0 - dy + patch, x0 - dx : x0 - dx + patch
    ]
    return source, [x0, y0, patch, patch], [dy, dx]


def encode_pyramid(levels: list[NDArray[np.uint8]]) -> bytes:
    """A tiled pyramidal TIFF (level 0, then reduced levels as SubIFDs), as the carrier expects."""
    import tifffile

    options: dict[str, Any] = {
        "tile": (TILE, TILE),
        "photometric": "rgb",
        "compression": "zlib",
        "compressionargs": {"level": 1},
        "predictor": True,
        "metadata": None,
        "software": False,
    }
    buffer = io.BytesIO()
    with tifffile.TiffWriter(buffer) as writer:
        writer.write(levels[0], subifds=len(levels) - 1, **options)
        for level in levels[1:]:
            writer.write(level, subfiletype=1, **options)
    return buffer.getvalue()


def generate_wsi_tiles(
    seed: int,
    slice: str,
    *,
    size: int = 2048,
    levels: int = 4,
    inconsistency: str | None = None,
) -> GeneratedSource:
    """A pyramidal tiled RGB TIFF and its truth.

    ``size`` is the level-0 edge (square, 512–4096, a multiple of 256, hence
    of every downsample); ``levels`` 3–6.  ``truth`` holds ``size`` [h, w],
    ``levels``, ``downsamples``, ``tile``, ``tissue_shapes``,
    ``tissue_fraction``, ``inconsistency``, ``inconsistent_region`` (level-0
    [x, y, w, h] or ``None``) and ``displacement`` [dy, dx] (or ``None``).
    """
    check_seed(seed, "seed must be a non-negative int")
    check_slice(slice)
    check_int(
        levels, _MIN_LEVELS, _MAX_LEVELS, f"levels must be an int in {_MIN_LEVELS}..{_MAX_LEVELS}"
    )
    check_int(size, _MIN_SIZE, _MAX_SIZE, f"size must be an int in {_MIN_SIZE}..{_MAX_SIZE}")
    if size % TILE:
        raise InputRefused(f"size must be a multiple of {TILE}")
    if inconsistency is None:
        inconsistency = "patch" if slice == "ambiguity_conflict" else "none"
    if inconsistency not in INCONSISTENCIES:
        raise InputRefused("inconsistency must be one of: none, patch, shift")
    rng = np.random.default_rng([seed, SLICES.index(slice), 0x3517])
    truth: dict[str, Any] = {"size": [size, size], "tissue_shapes": _shapes(rng, size)}
    mask = render_tissue_mask(truth)
    level0 = _paint(rng, size, mask, slice == "adverse_acquisition")
    source, region, displacement = level0, None, None
    if inconsistency != "none":
        source, region, displacement = _displace(rng, level0, mask, inconsistency)
    pyramid = [level0, *_pyramid(source, levels)]
    truth.update(
        {
            "levels": levels,
            "downsamples": [2**n for n in range(levels)],
            "tile": TILE,
            "tissue_fraction": round(float(mask.mean()), 6),
            "inconsistency": inconsistency,
            "inconsistent_region": region,
            "displacement": displacement,
        }
    )
    return GeneratedSource(
        asset=encode_pyramid(pyramid), media_type=MEDIA_TYPE, slice=slice, truth=truth
    )
