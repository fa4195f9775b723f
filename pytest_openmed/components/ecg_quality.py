"""ECG acquisition quality: per-lead artefact flags and an overall verdict (non-diagnostic).

Each lead of an ECG carrier (``openmed.waveform.v1`` JSON or native DICOM ECG,
see :mod:`pytest_openmed.carriers.waveform`) is measured five ways, each in a documented unit:

=====================  ===============================================================
``flatline``           fraction of the recording where the lead shows no beat while the
                       recording has them: held stretches (≤ 5 µV within 200 ms) that
                       span a beat found on the leads together, or the whole lead when
                       its QRS complexes do not rise above its own noise (lead-off,
                       dropout, disconnected electrode).  A quiet diastole spans no beat.
``clipping``           fraction of samples held at the lead's extreme value (a rail) in
                       runs of ≥ 4 ms when the rail holds ≥ 3 such runs (R-wave tops
                       cut by a saturating amplifier), else in one run of ≥ 50 ms;
                       flat stretches excluded
``baseline_wander``    largest peak-to-peak (mV) of the baseline within any 1 s window
                       (one beat, P onset to T offset, fits in 1 s at any rate): the
                       lead decimated to ~50 Hz, then median-filtered over 200 ms and
                       600 ms, ignoring 0.4 s at each end and 0.3 s around flat
                       stretches.  A slow swing over the whole recording is removed by
                       any baseline correction; a move within a beat tilts its ST/T
``mains_interference`` amplitude (mV) of a 50 or 60 Hz line: Welch power within ±1 Hz
                       above the neighbouring spectrum (±2–8 Hz), as √(2P)
``noise``              broadband RMS (mV): median Welch density (median over 2 s
                       segments) in 100–150 Hz of the lead high-passed at 80 Hz with
                       its QRS complexes (±80 ms of each beat) and pacing stimuli
                       (±40 ms, :func:`stimulus_times`) gated out, as the
                       white-noise RMS over the band
=====================  ===============================================================

Every measure has a borderline band ``[borderline, flag)``.  At or above
``flag`` the lead carries that flag; inside the band the measure is
*borderline*.  The overall verdict: ``unacceptable`` when more leads are
flagged than the configuration tolerates, else ``abstain`` (reason
``borderline_quality``) when some measure is borderline and the configuration
abstains on borderline recordings, else ``acceptable``.  Recordings shorter
than 5 s or sampled below 250 Hz are not judged (abstain).

These are acquisition-quality *candidates* for gating a pipeline, not a
clinical judgement of the recording.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_openmed.carriers.ecg import STANDARD_LEADS, Waveform
from pytest_openmed.carriers.waveform import read_waveform
from pytest_openmed.components._base import ComponentOutput, check_asset, check_bounds
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "ABSTAIN_REASONS",
    "CONFIG_A",
    "CONFIG_B",
    "FLAGS",
    "MIN_DURATION_S",
    "MIN_SAMPLING_RATE_HZ",
    "LeadQuality",
    "QualityConfig",
    "assess_leads",
    "assess_waveform",
    "beat_times",
    "butter_sos",
    "dropout_mask",
    "flat_mask",
    "run",
    "stimulus_times",
]

#: The closed flag vocabulary, in the order flags are listed.
FLAGS = ("flatline", "clipping", "baseline_wander", "mains_interference", "noise")
#: The closed abstain vocabulary.
ABSTAIN_REASONS = ("borderline_quality", "recording_too_short", "sampling_rate_too_low")
#: Shortest recording judged (s) and lowest sampling rate judged (Hz).
MIN_DURATION_S = 5.0
MIN_SAMPLING_RATE_HZ = 250.0

_FLAT_WINDOW_S = 0.2
_FLAT_TOLERANCE_MV = 0.005
#: A rail: held in runs of ≥ 4 ms at ≥ 3 places (cut R tops), or in one run of ≥ 50 ms.
_CLIP_RUN_S = 0.004
_CLIP_RUNS = 3
_CLIP_LONE_RUN_S = 0.050
#: A lead "shows beats" when its QRS windows reach this peak-to-peak (mV) ...
_BEAT_MIN_MV = 0.1
#: ... or this many times its sample noise (a disconnected lead shows noise only).
_BEAT_OVER_NOISE = 4.0
_BEAT_HALF_WINDOW_S = 0.08
_WANDER_EDGE_S = 0.4
#: Wander is the baseline's move within one beat: P onset to T offset spans under 1 s at any
#: rate (PR ≤ 0.3 s, QT ≤ 0.6 s), so the largest peak-to-peak within any 1 s window bounds it.
_WANDER_WINDOW_S = 1.0
_WELCH_SEGMENT_S = 2.0
_NOISE_BAND_HZ = (100.0, 150.0)
_NOISE_HIGHPASS_HZ = 80.0
_MAINS_HZ = (50.0, 60.0)
#: A pacing stimulus: a jump of this share of the lead's span within 2 ms, falling back by a
#: third of the jump within 10 ms; a lead with more than 3 such per second shows noise instead.
_STIMULUS_JUMP = 0.4
_STIMULUS_OVER_NOISE = 10.0
_STIMULUS_RISE_S = 0.002
_STIMULUS_RETURN = 1.0 / 3.0
_STIMULUS_RETURN_S = 0.01
_STIMULUS_MAX_RATE_HZ = 3.0
#: Gated out of the noise measure around each stimulus (s): the stimulus and its filter ringing.
_STIMULUS_GATE_S = 0.04


def _check_band(band: object) -> None:
    if type(band) is not tuple or len(band) != 2:
        raise InvalidArgument("each threshold band must be a (borderline, flag) tuple")
    low, high = band
    if any(isinstance(v, bool) or not isinstance(v, int | float) for v in band):
        raise InvalidArgument("threshold bands must hold numbers")
    if not (math.isfinite(low) and math.isfinite(high) and 0.0 < low <= high):
        raise InputRefused("threshold bands must satisfy 0 < borderline <= flag")


@dataclass(frozen=True, slots=True)
class QualityConfig:
    """Thresholds (borderline, flag) per measure, and the verdict policy.

    ``max_flagged_leads``: how many flagged leads still leave the recording
    acceptable.  ``abstain_on_borderline``: whether a borderline measure (and
    no excess of flagged leads) makes the component abstain.
    """

    flatline: tuple[float, float] = (0.03, 0.08)
    clipping: tuple[float, float] = (0.002, 0.005)
    baseline_wander: tuple[float, float] = (0.5, 1.0)
    mains_interference: tuple[float, float] = (0.015, 0.03)
    noise: tuple[float, float] = (0.03, 0.06)
    max_flagged_leads: int = 0
    abstain_on_borderline: bool = True

    def __post_init__(self) -> None:
        for kind in FLAGS:
            _check_band(getattr(self, kind))
        leads = len(STANDARD_LEADS)
        message = f"max_flagged_leads must be an int in 0..{leads}"
        check_bounds(self, ("max_flagged_leads",), int, 0, leads, message)
        if type(self.abstain_on_borderline) is not bool:
            raise InvalidArgument("abstain_on_borderline must be a bool")

    def band(self, kind: str) -> tuple[float, float]:
        """The (borderline, flag) thresholds of one measure."""
        if kind not in FLAGS:
            raise InputRefused("unknown quality measure")
        band: tuple[float, float] = getattr(self, kind)
        return band


#: Conservative: any flagged lead makes the recording unacceptable; borderline abstains.
CONFIG_A = QualityConfig()
#: Permissive: up to two flagged leads are tolerated; borderline counts as acceptable.
CONFIG_B = QualityConfig(max_flagged_leads=2, abstain_on_borderline=False)


@dataclass(frozen=True, slots=True)
class LeadQuality:
    """The five measures of one lead, with the flags and borderline measures they give."""

    measures: Mapping[str, float]
    flags: tuple[str, ...]
    borderline: tuple[str, ...]

    def __post_init__(self) -> None:
        if set(self.measures) != set(FLAGS):
            raise InputRefused("measures must cover every quality measure")
        object.__setattr__(self, "measures", MappingProxyType(dict(self.measures)))

    def __repr__(self) -> str:
        return f"LeadQuality(flags={self.flags!r}, borderline={self.borderline!r})"


# -- measures -------------------------------------------------------------------


def flat_mask(lead: npt.NDArray[np.float64], fs: float) -> npt.NDArray[np.bool_]:
    """Samples of ``lead`` inside a stretch varying by ≤ 5 µV over 200 ms (dropout, lead-off)."""
    from scipy import ndimage

    window = max(3, round(_FLAT_WINDOW_S * fs))
    spread = ndimage.maximum_filter1d(lead, window) - ndimage.minimum_filter1d(lead, window)
    narrow: npt.NDArray[np.bool_] = spread <= _FLAT_TOLERANCE_MV
    if not narrow.any():
        return narrow
    # A window centre is marked only when its whole window is flat: grow it back.
    grown: npt.NDArray[np.bool_] = ndimage.binary_dilation(narrow, structure=np.ones(window, bool))
    return grown


def butter_sos(
    order: int, cutoff: float | tuple[float, float], kind: str, fs: float
) -> npt.NDArray[np.float64]:
    """A Butterworth filter's second-order sections, designed once per (order, cutoff, kind, rate).

    Designing the filter costs more than applying it to a 10 s recording.  A
    fresh copy is returned (scipy's filters want a writable array).
    """
    return np.array(_designed(order, cutoff, kind, fs))


@functools.lru_cache(maxsize=64)
def _designed(
    order: int, cutoff: float | tuple[float, float], kind: str, fs: float
) -> tuple[tuple[float, ...], ...]:
    from scipy import signal

    sos = signal.butter(order, cutoff, btype=kind, fs=fs, output="sos")
    return tuple(tuple(float(v) for v in row) for row in sos)


def beat_times(samples: npt.NDArray[np.float64], fs: float) -> npt.NDArray[np.int64]:
    """QRS times (samples) found on all leads together, for telling a dropout from a diastole.

    Each lead's QRS energy (5–15 Hz, squared slope over 100 ms) is scaled by its
    own 98th percentile and the leads are averaged, so a flat, disconnected or
    noisy lead cannot hide the beats the others show.  Peaks above 30 % of the
    average's 98th percentile, at least 250 ms apart, are beats.
    """
    from scipy import ndimage, signal

    sos = butter_sos(2, (5.0, 15.0), "bandpass", fs)
    band = signal.sosfiltfilt(sos, samples, axis=-1)
    energy = ndimage.uniform_filter1d(
        np.gradient(band, axis=-1) ** 2, size=max(3, round(0.1 * fs)), axis=-1
    )
    scale = np.quantile(energy, 0.98, axis=-1)
    active = scale > 1e-12 * max(float(scale.max()), 1e-300)
    if not active.any() or float(scale.max()) <= 0.0:
        return np.zeros(0, dtype=np.int64)
    fused = (energy[active] / scale[active, None]).mean(axis=0)
    peaks, _ = signal.find_peaks(
        fused, height=0.3 * float(np.quantile(fused, 0.98)), distance=max(1, round(0.25 * fs))
    )
    return np.asarray(peaks, dtype=np.int64)


def stimulus_times(samples: npt.NDArray[np.float64], fs: float) -> npt.NDArray[np.int64]:
    """Pacing stimuli (samples, all leads): jumps no heart makes, that fall back at once.

    A lead jumps by 40 % of its span (0.1–99.9th percentile) within 2 ms (one
    sample at 500 Hz), by at least 10 × the robust spread of its 2 ms steps
    (noise does not), and falls back by a third of the jump within 10 ms: a
    steep QRS upstroke covers about a fifth of its lead's span in 4 ms and does
    not fall back, a pacemaker stimulus, however the recorder filters it, does
    both.  A lead with more than 3 such jumps per second shows noise, not
    stimuli, and gives none.  Jumps within 10 ms of each other are one stimulus.
    """
    rise = max(1, round(_STIMULUS_RISE_S * fs))
    back = max(1, round(_STIMULUS_RETURN_S * fs))
    found: list[int] = []
    for lead in samples:
        low, high = np.quantile(lead, (0.001, 0.999))
        span = float(high - low)
        if span <= 0.0 or lead.shape[0] <= rise + back:
            continue
        jumps = lead[rise:] - lead[:-rise]
        spread = 1.4826 * float(np.median(np.abs(jumps - np.median(jumps))))
        least = max(_STIMULUS_JUMP * span, _STIMULUS_OVER_NOISE * spread)
        tops = []
        for start in np.flatnonzero(np.abs(jumps) >= least):
            top = int(start) + rise
            after = lead[top + 1 : top + 1 + back]
            if after.size == 0:
                continue
            sign = 1.0 if jumps[start] > 0 else -1.0
            fallback = sign * float(lead[top]) - float((sign * after).min())
            if fallback >= _STIMULUS_RETURN * abs(float(jumps[start])):
                tops.append(top)
        # A stimulus wider than the rise step (2 ms at 1000 Hz) jumps at several
        # consecutive samples: it is one stimulus before the rate is counted.
        stimuli = _one_per_stimulus(tops, back)
        if len(stimuli) <= _STIMULUS_MAX_RATE_HZ * lead.shape[0] / fs:
            found.extend(stimuli)
    return np.asarray(_one_per_stimulus(sorted(found), back), dtype=np.int64)


def _one_per_stimulus(tops: list[int], back: int) -> list[int]:
    """Tops within ``back`` samples of the previous one merged into it (sorted input)."""
    merged: list[int] = []
    for top in tops:
        if not merged or top - merged[-1] > back:
            merged.append(top)
    return merged


def _runs(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """[start, stop) of every run of True in ``mask``, as rows."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    return edges.reshape(-1, 2).astype(np.int64)


def _silent(
    lead: npt.NDArray[np.float64],
    clean: npt.NDArray[np.float64],
    beats: npt.NDArray[np.int64],
    held: npt.NDArray[np.bool_],
    fs: float,
) -> bool:
    """Whether a lead shows none of the recording's beats (a disconnected electrode).

    Its QRS windows (±80 ms around each beat outside its held stretches, 0.5–40 Hz)
    must reach 0.1 mV peak to peak or 4 × the lead's sample noise (the robust
    standard deviation of its first difference, / √2); a lead of amplifier
    noise reaches neither, a lead with even a small QRS reaches one.
    """
    half = round(_BEAT_HALF_WINDOW_S * fs)
    n = clean.shape[0]
    seen = [int(b) for b in beats if half <= b < n - half and not held[b]]
    if len(seen) < 2:
        return False
    qrs = float(np.median([np.ptp(clean[b - half : b + half + 1]) for b in seen]))
    if qrs >= _BEAT_MIN_MV:
        return False
    step = np.diff(lead)
    noise = 1.4826 * float(np.median(np.abs(step - np.median(step)))) / math.sqrt(2.0)
    return qrs < _BEAT_MIN_MV and qrs < _BEAT_OVER_NOISE * noise


def _dropout(held: npt.NDArray[np.bool_], beats: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """The held stretches that span a beat (all of them when the recording shows none)."""
    if beats.size == 0 or not held.any():
        return held
    dropout = np.zeros_like(held)
    for start, stop in _runs(held):
        if np.any((beats >= start) & (beats < stop)):
            dropout[start:stop] = True
    return dropout


def dropout_mask(
    samples: npt.NDArray[np.float64], row: int, fs: float, beats: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Where lead ``row`` of ``samples`` shows no beat (the ``flatline`` measure's mask).

    ``beats`` are :func:`beat_times` of the whole recording.
    """
    lead = samples[row]
    clean = _bandpassed(lead, fs)
    return _lead_dropout(lead, clean, beats, flat_mask(lead, fs), fs)


def _lead_dropout(
    lead: npt.NDArray[np.float64],
    clean: npt.NDArray[np.float64],
    beats: npt.NDArray[np.int64],
    held: npt.NDArray[np.bool_],
    fs: float,
) -> npt.NDArray[np.bool_]:
    """One lead's no-beat mask: all of it when silent, else its held stretches spanning a beat."""
    if _silent(lead, clean, beats, held, fs):
        return np.ones_like(held)
    return _dropout(held, beats)


def _bandpassed(samples: npt.NDArray[np.float64], fs: float) -> npt.NDArray[np.float64]:
    from scipy import signal

    sos = butter_sos(2, (0.5, 40.0), "bandpass", fs)
    filtered: npt.NDArray[np.float64] = signal.sosfiltfilt(sos, samples, axis=-1)
    return filtered


def _clipped_fraction(
    lead: npt.NDArray[np.float64], flat: npt.NDArray[np.bool_], fs: float
) -> float:
    """Samples held at either rail: runs of ≥ 4 ms when ≥ 3 share it, else one run ≥ 50 ms.

    A saturating amplifier holds its rail repeatedly (every tall R top) or for
    long; one short hold at the lead's extreme is as likely a sample-and-hold
    glitch, and a natural peak is held for no more than a sample or two.
    """
    active = lead[~flat]
    if active.size == 0 or active.max() == active.min():
        return 0.0
    short = max(2, math.ceil(_CLIP_RUN_S * fs))
    lone = max(short, math.ceil(_CLIP_LONE_RUN_S * fs))
    clipped = 0
    for rail in (active.max(), active.min()):
        runs = _runs((lead == rail) & ~flat)
        lengths = runs[:, 1] - runs[:, 0]
        repeated = int(np.count_nonzero(lengths >= short)) >= _CLIP_RUNS
        clipped += int(lengths[lengths >= (short if repeated else lone)].sum())
    return clipped / int(lead.shape[0])


def _decimated(samples: npt.NDArray[np.float64], fs: float) -> tuple[Any, int, float]:
    """All leads low-passed at 20 Hz and decimated to about 50 Hz, for the baseline."""
    from scipy import signal

    step = max(1, int(fs // 50.0))
    sos = butter_sos(4, 20.0, "lowpass", fs)
    return signal.sosfiltfilt(sos, samples, axis=-1)[:, ::step], step, fs / step


def _baseline_excursion(
    slow: npt.NDArray[np.float64], flat: npt.NDArray[np.bool_], step: int, rate: float
) -> float:
    """Largest peak-to-peak of the median-filtered baseline within any 1 s window.

    A drift or settling spread over the recording moves the baseline little
    within one beat and is removed by any baseline correction; a move within a
    beat tilts its ST segment and T wave and shifts its fiducial points.
    """
    from scipy import ndimage

    for window_s in (0.2, 0.6):
        size = 2 * round(window_s * rate / 2.0) + 1
        slow = ndimage.median_filter(slow, size=size, mode="nearest")
    # Ignore the baseline within 0.3 s of a flat stretch (its edges are steps, not
    # drift) and within 0.4 s of either end (the windows there see part-beats only).
    margin = round(0.3 * rate)
    keep = ~ndimage.binary_dilation(flat[::step], structure=np.ones(2 * margin + 1, bool))
    edge = round(_WANDER_EDGE_S * rate)
    keep[:edge] = False
    keep[keep.shape[0] - edge :] = False
    if not keep.any():
        return 0.0
    width = max(1, round(_WANDER_WINDOW_S * rate))
    highest = ndimage.maximum_filter1d(np.where(keep, slow, -np.inf), width, mode="nearest")
    lowest = ndimage.minimum_filter1d(np.where(keep, slow, np.inf), width, mode="nearest")
    seen = np.isfinite(highest) & np.isfinite(lowest)
    return float(np.max(highest[seen] - lowest[seen]))


def _spectra(
    samples: npt.NDArray[np.float64], fs: float, beats: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Welch spectra of every lead: mean-averaged (for lines), median-averaged (for noise).

    The noise spectrum is taken with the QRS complexes and pacing stimuli
    (:func:`stimulus_times`) gated out (their own high-frequency content is
    signal) and scaled back by the fraction kept.
    """
    from scipy import signal

    segment = min(samples.shape[1], round(_WELCH_SEGMENT_S * fs))
    freqs, mean_psd = signal.welch(samples, fs=fs, nperseg=segment, average="mean", axis=-1)
    keep = np.ones(samples.shape[1], dtype=bool)
    half = round(_BEAT_HALF_WINDOW_S * fs)
    for beat in beats:
        keep[max(0, int(beat) - half) : int(beat) + half + 1] = False
    gate = round(_STIMULUS_GATE_S * fs)
    for stimulus in stimulus_times(samples, fs):
        keep[max(0, int(stimulus) - gate) : int(stimulus) + gate + 1] = False
    kept = float(keep.mean())
    if kept < 0.25:  # beats everywhere (or noise read as beats): nothing to gate
        keep[:], kept = True, 1.0
    sos = butter_sos(4, min(_NOISE_HIGHPASS_HZ, 0.4 * fs), "highpass", fs)
    gated = signal.sosfiltfilt(sos, samples, axis=-1) * keep
    _, median_psd = signal.welch(gated, fs=fs, nperseg=segment, average="median", axis=-1)
    return freqs, mean_psd, median_psd / kept


def _mains_amplitude(
    freqs: npt.NDArray[np.float64], psd: npt.NDArray[np.float64], fs: float
) -> float:
    resolution = float(freqs[1] - freqs[0])
    amplitude = 0.0
    for line in _MAINS_HZ:
        if line + 10.0 >= fs / 2.0:
            continue
        distance = np.abs(freqs - line)
        band = distance <= 1.0
        background = float(np.median(psd[(distance >= 2.0) & (distance <= 8.0)]))
        power = float(np.sum(psd[band] - background)) * resolution
        amplitude = max(amplitude, math.sqrt(2.0 * max(power, 0.0)))
    return amplitude


def _noise_rms(freqs: npt.NDArray[np.float64], psd: npt.NDArray[np.float64], fs: float) -> float:
    high = min(_NOISE_BAND_HZ[1], 0.9 * fs / 2.0)
    band = (freqs >= _NOISE_BAND_HZ[0]) & (freqs <= high)
    return math.sqrt(float(np.median(psd[band])) * fs / 2.0)


def _measure_all(samples: npt.NDArray[np.float64], fs: float) -> list[dict[str, float]]:
    beats = beat_times(samples, fs)
    freqs, mean_psd, median_psd = _spectra(samples, fs, beats)
    slow, step, rate = _decimated(samples, fs)
    clean = _bandpassed(samples, fs)
    measures = []
    for row, lead in enumerate(samples):
        flat = flat_mask(lead, fs)
        measures.append(
            {
                "flatline": float(_lead_dropout(lead, clean[row], beats, flat, fs).mean()),
                "clipping": _clipped_fraction(lead, flat, fs),
                "baseline_wander": _baseline_excursion(slow[row], flat, step, rate),
                "mains_interference": _mains_amplitude(freqs, mean_psd[row], fs),
                "noise": _noise_rms(freqs, median_psd[row], fs),
            }
        )
    return measures


def assess_leads(waveform: Waveform, config: QualityConfig = CONFIG_A) -> Mapping[str, LeadQuality]:
    """Measure every lead and classify each measure against ``config``.

    The recording must already meet :data:`MIN_DURATION_S` and
    :data:`MIN_SAMPLING_RATE_HZ` (``ValueError`` otherwise).
    """
    if waveform.duration_s < MIN_DURATION_S or waveform.sampling_rate_hz < MIN_SAMPLING_RATE_HZ:
        raise InputRefused("recording is too short or sampled too slowly to assess")
    result: dict[str, LeadQuality] = {}
    measured = _measure_all(waveform.samples, waveform.sampling_rate_hz)
    for name, measures in zip(waveform.lead_names, measured, strict=True):
        flags = tuple(k for k in FLAGS if measures[k] >= config.band(k)[1])
        borderline = tuple(k for k in FLAGS if config.band(k)[0] <= measures[k] < config.band(k)[1])
        result[name] = LeadQuality(measures=measures, flags=flags, borderline=borderline)
    return MappingProxyType(result)


def assess_waveform(waveform: Waveform, config: QualityConfig = CONFIG_A) -> ComponentOutput:
    """The component on an already decoded recording."""
    if waveform.sampling_rate_hz < MIN_SAMPLING_RATE_HZ:
        return _abstain("sampling_rate_too_low")
    if waveform.duration_s < MIN_DURATION_S:
        return _abstain("recording_too_short")
    leads = assess_leads(waveform, config)
    output: dict[str, Any] = {
        "leads": {name: {"flags": list(quality.flags)} for name, quality in leads.items()}
    }
    flagged = sum(1 for quality in leads.values() if quality.flags)
    borderline = any(quality.borderline for quality in leads.values())
    if flagged > config.max_flagged_leads:
        output["overall"] = "unacceptable"
    elif borderline and config.abstain_on_borderline:
        output["overall"] = "abstain"
        return ComponentOutput(output=output, abstained=True, abstain_reason="borderline_quality")
    else:
        output["overall"] = "acceptable"
    return ComponentOutput(output=output)


def _abstain(reason: str) -> ComponentOutput:
    return ComponentOutput(
        output={"overall": "abstain", "leads": {}}, abstained=True, abstain_reason=reason
    )


def run(asset: bytes, config: QualityConfig = CONFIG_A) -> ComponentOutput:
    """Judge the acquisition quality of one ECG carrier (JSON waveform or DICOM ECG)."""
    check_asset(asset)
    if type(config) is not QualityConfig:
        raise InvalidArgument("config must be a QualityConfig")
    return assess_waveform(read_waveform(asset), config)
