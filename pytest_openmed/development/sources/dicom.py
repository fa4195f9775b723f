"""Generated native multi-frame DICOM with known content frames (synthetic, non-diagnostic).

:func:`generate_dicom_frames` writes a multi-frame 16-bit MONOCHROME2 Secondary
Capture object with pydicom: every frame is a noise floor over a (possibly
smooth, frame-varying) background, and some frames carry Gaussian "content"
blobs.  Ground truth is defined by the blob contrast at a reference detection
scale, so a detector documented against the same scale can be scored exactly:

* contrast ``snr`` of a blob = its peak after Gaussian smoothing with
  :data:`REFERENCE_SCALE_PX`, divided by the standard deviation of the smoothed
  noise floor;
* a frame is a *content frame* when a blob's ``snr`` is at least
  :data:`CONTENT_SNR` (every such blob is generated with ``snr`` ≥ 2 ×
  :data:`CONTENT_SNR`, far from the threshold);
* a *near-threshold frame* (ambiguity slice only) carries one blob with ``snr``
  within 0.95–1.15 × :data:`CONTENT_SNR`: ground truth calls it ambiguous,
  neither content nor empty;
* a *subtle-change frame* (ambiguity slice only) is a content frame that
  repeats the previous frame's blobs with fresh noise: it differs from its
  predecessor only by noise and a ±2 % amplitude change.

Slices: ``nominal`` (noise σ = 20 over a flat floor, blob ``snr`` 40–150),
``adverse_acquisition`` (σ = 60, a frame-varying quadratic bias field of a few σ
and a drifting floor, low-contrast blobs with ``snr`` 20–32 beside ordinary
ones), ``ambiguity_conflict`` (σ = 20; independent content frames,
persistent runs of subtle-change frames and near-threshold frames, separated
by empty frames).  All UIDs derive from the seed and slice; no dates or times
are written; the bytes are identical for the same arguments.
"""

from __future__ import annotations

import hashlib
import io
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_openmed._canonical import canonical_bytes
from pytest_openmed._validate import check_int, check_seed
from pytest_openmed.development.sources import SLICES, GeneratedSource, check_slice
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "CONTENT_SNR",
    "MEDIA_TYPE",
    "REFERENCE_SCALE_PX",
    "generate_dicom_frames",
]

#: Media type of the generated asset.
MEDIA_TYPE = "application/dicom"

#: Gaussian scale (pixels) at which blob contrast is defined.
REFERENCE_SCALE_PX = 3.0

#: Contrast (at the reference scale) from which a blob makes its frame a content frame.
CONTENT_SNR = 9.0

_FLOOR = 1000.0
_MIN_FRAMES, _MAX_FRAMES = 16, 512
_MIN_SIDE, _MAX_SIDE = 64, 512
_UID_ROOT = "openmed-dicom-frames"
#: A fixed implementation UID and name so the file meta does not depend on the pydicom version.
_IMPLEMENTATION_NAME = "OPENMED_SYN_1"

FloatArray = NDArray[np.float64]


def _smoothed_noise_gain(scale: float) -> float:
    """Std of white unit noise after a 2-D Gaussian of ``scale`` (truncated at 4 σ).

    The 2-D kernel is the outer product of the 1-D one, so the gain is the sum of
    the squared 1-D weights.
    """
    radius = int(4.0 * scale + 0.5)
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    weights = np.exp(-0.5 * (x / scale) ** 2)
    weights /= weights.sum()
    return float(np.sum(weights**2))


def _amplitude_for(snr: float, sigma: float, width_y: float, width_x: float) -> float:
    """Blob amplitude whose smoothed peak is ``snr`` × the smoothed noise std."""
    s2 = REFERENCE_SCALE_PX**2
    gain = (width_y / math.sqrt(width_y**2 + s2)) * (width_x / math.sqrt(width_x**2 + s2))
    return snr * sigma * _smoothed_noise_gain(REFERENCE_SCALE_PX) / gain


def _blob_params(
    rng: np.random.Generator, rows: int, cols: int, snr_range: tuple[float, float], count: int
) -> list[dict[str, float]]:
    blobs = []
    for _ in range(count):
        wy, wx = (float(v) for v in rng.uniform(4.0, 8.0, size=2))
        margin = 3.0 * max(wy, wx)
        blobs.append(
            {
                "cy": float(rng.uniform(margin, rows - 1 - margin)),
                "cx": float(rng.uniform(margin, cols - 1 - margin)),
                "wy": wy,
                "wx": wx,
                "snr": float(rng.uniform(*snr_range)),
            }
        )
    return blobs


def _render_blobs(
    blobs: list[dict[str, float]], sigma: float, yy: FloatArray, xx: FloatArray, gain: float = 1.0
) -> FloatArray:
    image = np.zeros(yy.shape, dtype=np.float64)
    for blob in blobs:
        amplitude = gain * _amplitude_for(blob["snr"], sigma, blob["wy"], blob["wx"])
        image += amplitude * np.exp(
            -0.5 * (((yy - blob["cy"]) / blob["wy"]) ** 2 + ((xx - blob["cx"]) / blob["wx"]) ** 2)
        )
    return image


def _place(
    rng: np.random.Generator, frames: int, items: list[tuple[str, int]]
) -> list[tuple[str, int, int]]:
    """Shuffle (kind, length) ``items`` into ``frames``, ≥ 1 empty frame apart; add starts."""
    shuffled = [items[i] for i in rng.permutation(len(items))]
    slack = frames - sum(length for _, length in shuffled) - (len(shuffled) + 1)
    if slack < 0:
        raise InputRefused("too few frames for the ambiguity slice layout")
    # Spread the slack over the len(items) + 1 gaps, each of which already holds one empty frame.
    cuts = np.sort(rng.integers(0, slack + 1, size=len(shuffled)))
    extra = np.diff(np.concatenate(([0], cuts, [slack])))
    placed, cursor = [], 0
    for (kind, length), gap in zip(shuffled, extra[:-1], strict=True):
        cursor += 1 + int(gap)
        placed.append((kind, length, cursor))
        cursor += length
    return placed


def _layout(
    rng: np.random.Generator,
    slice_name: str,
    shape: tuple[int, int, int],
    near_threshold: bool,
) -> tuple[list[list[dict[str, float]]], list[float], dict[str, list[int]]]:
    """Per-frame blob lists, per-frame amplitude gains, and truth index lists."""
    frames, rows, cols = shape
    blobs: list[list[dict[str, float]]] = [[] for _ in range(frames)]
    gains = [1.0] * frames
    near: list[int] = []
    subtle: list[int] = []
    if slice_name in ("nominal", "adverse_acquisition"):
        count = max(3, round(0.25 * frames))
        chosen = sorted(int(i) for i in rng.choice(frames, size=count, replace=False))
        for position, index in enumerate(chosen):
            low_contrast = slice_name == "adverse_acquisition" and position % 2 == 0
            snr_range = (20.0, 32.0) if low_contrast else (40.0, 150.0)
            blobs[index] = _blob_params(rng, rows, cols, snr_range, int(rng.integers(1, 4)))
    else:
        groups = max(1, frames // 16)
        items = [("single", 1)] * groups + [("near", 1)] * (groups if near_threshold else 0)
        items += [("run", int(rng.integers(2, 5))) for _ in range(groups)]
        for kind, length, start in _place(rng, frames, items):
            if kind == "near":
                blobs[start] = _blob_params(
                    rng, rows, cols, (0.95 * CONTENT_SNR, 1.15 * CONTENT_SNR), 1
                )
                near.append(start)
                continue
            first = _blob_params(rng, rows, cols, (40.0, 150.0), int(rng.integers(1, 4)))
            for offset in range(length):
                blobs[start + offset] = first
                if offset:
                    gains[start + offset] = float(rng.uniform(0.98, 1.02))
                    subtle.append(start + offset)
    content = [i for i in range(frames) if blobs[i] and i not in near]
    truth = {"content_frames": content, "near_threshold_frames": near}
    truth["subtle_change_frames"] = sorted(subtle)
    return blobs, gains, truth


def _bias_field(
    rng: np.random.Generator, sigma: float, yy: FloatArray, xx: FloatArray
) -> FloatArray:
    """A smooth quadratic field of a few noise σ, different in every frame."""
    u = 2.0 * xx / (xx.shape[1] - 1) - 1.0
    v = 2.0 * yy / (yy.shape[0] - 1) - 1.0
    c = rng.normal(0.0, 1.5 * sigma, size=5)
    field: FloatArray = c[0] * u + c[1] * v + c[2] * u * u + c[3] * v * v + c[4] * u * v
    return field


def _uid(seed: int, slice_name: str, role: str) -> str:
    """A ``2.25.`` UID (UUID-derived form) hashed from seed, slice and role: stable, synthetic."""
    material = canonical_bytes([_UID_ROOT, seed, slice_name, role])
    return "2.25." + str(int.from_bytes(hashlib.sha256(material).digest()[:16], "big"))


def _encode(seed: int, slice_name: str, pixels: NDArray[np.uint16]) -> bytes:
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import (
        UID,
        ExplicitVRLittleEndian,
        MultiFrameGrayscaleWordSecondaryCaptureImageStorage,
    )

    frames, rows, cols = pixels.shape
    sop_uid = _uid(seed, slice_name, "sop")
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = MultiFrameGrayscaleWordSecondaryCaptureImageStorage
    meta.MediaStorageSOPInstanceUID = UID(sop_uid)
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    meta.ImplementationClassUID = UID(_uid(0, "implementation", "class"))
    meta.ImplementationVersionName = _IMPLEMENTATION_NAME

    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID = MultiFrameGrayscaleWordSecondaryCaptureImageStorage
    ds.SOPInstanceUID = sop_uid
    ds.StudyInstanceUID = _uid(seed, slice_name, "study")
    ds.SeriesInstanceUID = _uid(seed, slice_name, "series")
    ds.Modality = "OT"
    ds.ConversionType = "SYN"
    ds.PatientName = "SYNTHETIC^PHANTOM"
    ds.PatientID = "SYNTHETIC"
    ds.PatientBirthDate = ""
    ds.PatientSex = ""
    ds.StudyDate = ""
    ds.StudyTime = ""
    ds.StudyID = ""
    ds.AccessionNumber = ""
    ds.ReferringPhysicianName = ""
    ds.SeriesNumber = 1
    ds.InstanceNumber = 1
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = "MONOCHROME2"
    ds.NumberOfFrames = frames
    ds.FrameIncrementPointer = 0x00181063  # Frame Time
    ds.FrameTime = 40.0
    ds.Rows = rows
    ds.Columns = cols
    ds.BitsAllocated = 16
    ds.BitsStored = 16
    ds.HighBit = 15
    ds.PixelRepresentation = 0
    ds.PixelData = pixels.astype("<u2").tobytes()
    buffer = io.BytesIO()
    ds.save_as(buffer, implicit_vr=False, little_endian=True, enforce_file_format=True)
    return buffer.getvalue()


def generate_dicom_frames(
    seed: int,
    slice: str,
    *,
    frames: int = 48,
    rows: int = 128,
    cols: int = 128,
    near_threshold: bool = True,
) -> GeneratedSource:
    """A native multi-frame DICOM and its truth (content / near-threshold / subtle frames).

    ``near_threshold=False`` leaves the near-threshold frames out of the
    ambiguity slice (its persistent runs stay), so that what a sampling rule
    misses can be scored without frames whose truth is ambiguous.

    ``truth`` holds ``frame_count``, ``content_frames``, ``near_threshold_frames``,
    ``subtle_change_frames`` (sorted frame indices), ``frame_snr`` (the largest
    blob contrast per frame, 0.0 for empty frames), ``noise_sigma``,
    ``reference_scale_px`` and ``content_snr``.
    """
    check_seed(seed, "seed must be a non-negative int")
    check_slice(slice)
    check_int(
        frames, _MIN_FRAMES, _MAX_FRAMES, f"frames must be an int in {_MIN_FRAMES}..{_MAX_FRAMES}"
    )
    check_int(rows, _MIN_SIDE, _MAX_SIDE, f"rows must be an int in {_MIN_SIDE}..{_MAX_SIDE}")
    check_int(cols, _MIN_SIDE, _MAX_SIDE, f"cols must be an int in {_MIN_SIDE}..{_MAX_SIDE}")
    rng = np.random.default_rng([seed, SLICES.index(slice), 0xD1C0])
    adverse = slice == "adverse_acquisition"
    sigma = 60.0 if adverse else 20.0
    if type(near_threshold) is not bool:
        raise InvalidArgument("near_threshold must be a bool")
    blobs, gains, indices = _layout(rng, slice, (frames, rows, cols), near_threshold)

    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float64)
    pixels = np.empty((frames, rows, cols), dtype=np.uint16)
    floor = _FLOOR * (3.0 if adverse else 1.0)
    for index in range(frames):
        image = np.full((rows, cols), floor, dtype=np.float64)
        if adverse:
            floor += float(rng.normal(0.0, 0.5 * sigma))
            image += _bias_field(rng, sigma, yy, xx)
        image += _render_blobs(blobs[index], sigma, yy, xx, gains[index])
        image += rng.normal(0.0, sigma, size=(rows, cols))
        pixels[index] = np.clip(np.rint(image), 0, 65535).astype(np.uint16)

    truth: dict[str, Any] = {
        "frame_count": frames,
        **indices,
        "frame_snr": [round(max((b["snr"] for b in f), default=0.0), 6) for f in blobs],
        "noise_sigma": sigma,
        "reference_scale_px": REFERENCE_SCALE_PX,
        "content_snr": CONTENT_SNR,
    }
    return GeneratedSource(
        asset=_encode(seed, slice, pixels), media_type=MEDIA_TYPE, slice=slice, truth=truth
    )
