"""Generated 12-lead ECG recordings with exact beat and artefact truth (synthetic, non-diagnostic).

A recording is built from five wave pulses per beat (P, Q, R, S, T), each a
raised-cosine (Hann) pulse with *compact support*: it is exactly zero before
its onset and after its offset.  Each wave has one cardiac dipole; leads I and
II are its projections on the frontal-plane lead axes, III, aVR, aVL and aVF
follow from Einthoven's and Goldberger's relations, and V1..V6 are
projections on horizontal-plane axes.  The truth is therefore exact:

* **R peak** of a beat: the sample nearest the centre of its R pulse;
* **P onset**: onset of the P pulse; **QRS onset**: onset of the Q pulse (the
  first QRS pulse); **QRS offset**: offset of the S pulse (the last);
  **T offset**: offset of the T pulse;
* ``pr_ms`` = QRS onset − P onset, ``qrs_ms`` = QRS offset − QRS onset,
  ``qt_ms`` = T offset − QRS onset (equal for every beat of a recording);
* ``heart_rate_bpm`` = 60,000 / mean RR (ms) of the R peaks in the recording.

Every lead carries independent white noise (4–10 µV RMS) and a slow baseline
wander (0.02–0.12 mV peak to peak); R amplitudes follow a slow respiratory
modulation and RR intervals a ±2 % sinus arrhythmia.  No R peak lies within
120 ms of either end of the recording.

Artefacts are injected per lead: ``adverse_acquisition`` draws one to three
kinds on one to three leads each, at 1.4–4 × the flag level documented by
``components.ecg_quality`` (flatlines over 15–60 % of the recording, always
spanning a beat, or the whole lead: held at zero, or a disconnected electrode
showing only 10 µV RMS amplifier noise; clipping cuts the tops of the
lead's dominant QRS deflection, R-wave tops on most leads), and a
flat lead carries nothing else; ``ambiguity_conflict``
draws one kind on one or two leads inside its borderline band.  The realised
severity is recorded in the unit the quality component documents (clipping
moves in steps, so a draw whose realised severity leaves its range is redrawn):

=====================  ==========================================================
``noise``              RMS (mV) of added white Gaussian noise
``mains_interference`` amplitude (mV) of an added 50 or 60 Hz sinusoid
``baseline_wander``    largest peak-to-peak (mV) within any 1 s window (0.4 s from
                       either end) of an added slow drift (0.05–0.35 Hz), computed
                       exactly on the drift (:func:`window_excursion`)
``clipping``           fraction of samples held at an amplifier rail, counted as
                       ``ecg_quality`` documents (runs ≥ 4 ms at ≥ 3 places, else
                       one run ≥ 50 ms)
``flatline``           fraction of the recording replaced by a constant (lead-off,
                       spanning at least one beat) or, with ``form="disconnected"``,
                       the whole lead replaced by amplifier noise (severity 1)
=====================  ==========================================================

**Forms** (``qrs_form``, ``rhythm``; the interval task's ``adverse_acquisition``
slice draws them on about :data:`FORM_SHARE` of its sources, at 250–1000 Hz,
from a stream of their own so the other recordings are unchanged):

* ``bundle_branch_block``: the ventricles depolarise one after the other, so the
  QRS lasts 120–170 ms and its late forces are slow and large (a terminal
  dipole as large as the main one, RSR' or a broad slurred S); the axis may lie
  anywhere from +90° to −75°, so lead II may be dominantly negative; the ST
  segment (0.1–0.25 mV from J) and the T wave are discordant (opposite the QRS).
* ``infarct_qs``: a transmural anterior infarct leaves no anterior forces: a large
  initial dipole points away from the front (QS or rS in V1–V4), the QRS lasts
  100–150 ms and an injury current raises the ST segment in the anterior leads
  (0.1–0.3 mV, from J to the T wave).
* ``paced``: a ventricular stimulus (a 1–2 ms spike of 2–6 mV) starts a wide QRS
  (130–180 ms) from the right ventricular apex: left-superior axis (dominantly
  negative in II, III, aVF), discordant ST segment and T wave; sinus P waves
  still run (AV pacing keeps the PR).
* ``rhythm="fibrillation"``: no P wave; fibrillatory waves (4–9 Hz, 0.03–0.1 mV,
  wandering amplitude and frequency) and an irregularly irregular RR (each
  interval 0.6–1.4 × the mean); ``rhythm="flutter"``: no P wave; a sawtooth of
  flutter waves at 250–350 /min (0.1–0.25 mV), conducted 2:1 to 4:1.

For a wide form ``r_peak`` is still the centre of the main QRS pulse; in a QS
complex there is no R point, and ``truth["qrs_form"]`` tells a scorer to accept
any mark inside the QRS. Without P waves ``pr_ms`` is ``None``.

Assets are ``openmed.waveform.v1`` JSON (mV to 0.1 µV) or, with
``carrier="dicom"``, a native 12-lead ECG DICOM written by
:func:`waveform_dicom` (1 µV steps); the recording is synthesised at its
carrier's resolution, so the truth holds for the samples the carrier holds.
Every value and UID derives from the seed.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_openmed._canonical import canonical_bytes
from pytest_openmed.carriers.ecg import (
    MAX_SAMPLING_RATE_HZ,
    MDC_CODES,
    MIN_SAMPLING_RATE_HZ,
    STANDARD_LEADS,
)
from pytest_openmed.carriers.waveform import WAVEFORM_FORMAT
from pytest_openmed.development.sources import GeneratedSource, check_slice
from pytest_openmed.errors import InputRefused
from pytest_openmed.multimodal import MediaType

__all__ = [
    "ARTEFACT_FORMS",
    "ARTEFACT_KINDS",
    "DICOM_MEDIA_TYPE",
    "FORM_SHARE",
    "JSON_MEDIA_TYPE",
    "QRS_FORMS",
    "RHYTHMS",
    "Artefact",
    "SyntheticECG",
    "generate_ecg_intervals",
    "generate_ecg_quality",
    "synthesise_ecg",
    "waveform_dicom",
    "waveform_json",
    "window_excursion",
]

#: The media types a pack gives these carriers (one spelling: ``MediaType``).
JSON_MEDIA_TYPE = MediaType.WAVEFORM_JSON.value
DICOM_MEDIA_TYPE = MediaType.DICOM.value

#: QRS forms and rhythms the generator draws (the first of each is the plain one).
QRS_FORMS = ("narrow", "bundle_branch_block", "infarct_qs", "paced")
RHYTHMS = ("sinus", "fibrillation", "flutter")
#: Share of the interval task's adverse sources drawn with a wide QRS or without P waves.
FORM_SHARE = 0.4
#: Sampling rates (Hz) of those sources.
_FORM_RATES = (250.0, 360.0, 500.0, 1000.0)

#: The artefact kinds, named as the quality flags they should raise.
ARTEFACT_KINDS = ("flatline", "clipping", "baseline_wander", "mains_interference", "noise")

_LEADS = STANDARD_LEADS
#: Horizontal-plane angles (degrees from left towards anterior) of V1..V6.
_PRECORDIAL_ANGLES = (115.0, 95.0, 75.0, 60.0, 30.0, 0.0)
_PRECORDIAL_GAIN = 1.3
#: Rail runs that count as clipping: ≥ 4 ms at ≥ 3 places, else one run ≥ 50 ms.
_CLIP_RUN_S = 0.004
_CLIP_RUNS = 3
_CLIP_LONE_RUN_S = 0.050
#: Baseline wander is measured within windows of 1 s, 0.4 s from either end.
_WANDER_WINDOW_S = 1.0
_WANDER_EDGE_S = 0.4
#: RMS (mV) of the amplifier noise a disconnected electrode shows.
_DISCONNECTED_NOISE_MV = 0.010
#: Artefact forms: how a kind is realised (``""``: the plain one).
ARTEFACT_FORMS = {"flatline": ("", "disconnected")}
_EDGE_MARGIN_S = 0.12
_MDC_CODES = {name: code for code, name in MDC_CODES.items()}
_DICOM_UNITS = {"uV": ("microvolt", 1e-3), "mV": ("millivolt", 1.0)}
#: Decimal places of a mV each carrier holds: JSON 0.1 µV, DICOM (as written here) 1 µV.
_CARRIER_DECIMALS = {"json": 4, "dicom": 3}


@dataclass(frozen=True, slots=True)
class Artefact:
    """One injected artefact: its kind, the lead it is on and its severity (documented unit).

    ``form`` picks a variant of the kind: ``"disconnected"`` for a flatline is a
    whole lead of amplifier noise instead of a held level.
    """

    kind: str
    lead: str
    severity: float
    form: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ARTEFACT_KINDS:
            raise InputRefused("artefact kind must be one of the quality flags")
        if self.lead not in _LEADS:
            raise InputRefused("artefact lead must be a standard lead name")
        if not math.isfinite(self.severity) or self.severity <= 0.0:
            raise InputRefused("artefact severity must be a positive finite number")
        if self.kind in ("flatline", "clipping") and self.severity > 1.0:
            raise InputRefused("flatline and clipping severities are fractions")
        if self.form not in ARTEFACT_FORMS.get(self.kind, ("",)):
            raise InputRefused("artefact form is not one of its kind's forms")
        if self.form == "disconnected" and self.severity != 1.0:
            raise InputRefused("a disconnected lead is disconnected for the whole recording")


@dataclass(frozen=True, slots=True, eq=False)
class SyntheticECG:
    """A generated recording (mV, read-only) and its JSON-able ground truth."""

    sampling_rate_hz: float
    lead_names: tuple[str, ...]
    samples: NDArray[np.float64]
    truth: Mapping[str, Any]

    def __post_init__(self) -> None:
        data = np.array(self.samples, dtype=np.float64, copy=True)
        if data.ndim != 2 or data.shape[0] != len(self.lead_names):
            raise InputRefused("samples must have one row per lead")
        data.flags.writeable = False
        object.__setattr__(self, "samples", data)
        object.__setattr__(self, "truth", MappingProxyType(dict(self.truth)))

    def __repr__(self) -> str:
        return f"SyntheticECG(leads={len(self.lead_names)}, samples={self.samples.shape[1]})"


# -- beats ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Morphology:
    """Wave timings (s, relative to QRS onset) and lead weights of one recording."""

    p_onset: float
    p_duration: float
    qrs_duration: float
    st_duration: float
    qt: float
    weights: NDArray[np.float64]  # (12 leads, 5 waves: P Q R S T)
    qrs_form: str = "narrow"
    #: Lead weights of an ST injury current (infarct) and of a pacing stimulus (paced).
    injury: NDArray[np.float64] | None = None
    stimulus: NDArray[np.float64] | None = None


def _unit(vector: Sequence[float]) -> NDArray[np.float64]:
    array = np.asarray(vector, dtype=np.float64)
    result: NDArray[np.float64] = array / np.linalg.norm(array)
    return result


def _lead_matrix() -> NDArray[np.float64]:
    """Rows: lead vectors (x left, y inferior, z anterior) of the 12 standard leads."""
    lead_i = np.array([1.0, 0.0, 0.0])
    lead_ii = np.array([0.5, math.sqrt(3.0) / 2.0, 0.0])
    limb = [
        lead_i,
        lead_ii,
        lead_ii - lead_i,
        -(lead_i + lead_ii) / 2.0,
        lead_i - lead_ii / 2.0,
        lead_ii - lead_i / 2.0,
    ]
    precordial = [
        _PRECORDIAL_GAIN * np.array([math.cos(math.radians(a)), 0.0, math.sin(math.radians(a))])
        for a in _PRECORDIAL_ANGLES
    ]
    return np.stack(limb + precordial)


#: Dipole from lead weights (least squares): the size of a wave's dipole.
_LEAD_PINV = np.linalg.pinv(_lead_matrix())


def _morphology(rng: np.random.Generator, rr_min: float) -> _Morphology:
    """Draw wave timings that fit in the shortest RR, and the dipole of each wave."""
    axis = math.radians(rng.uniform(40.0, 70.0))
    t_axis = axis + math.radians(rng.uniform(-15.0, 15.0))
    p_axis = math.radians(rng.uniform(45.0, 70.0))
    dipoles = np.stack(
        [
            rng.uniform(0.12, 0.20) * _unit([math.cos(p_axis), math.sin(p_axis), 0.2]),
            rng.uniform(0.10, 0.20) * _unit([-0.6, 0.3, 0.7]),
            rng.uniform(1.0, 1.6) * _unit([math.cos(axis), math.sin(axis), -0.35]),
            rng.uniform(0.25, 0.45) * _unit([-0.5, -0.4, -0.6]),
            rng.uniform(0.25, 0.45) * _unit([math.cos(t_axis), math.sin(t_axis), 0.35]),
        ]
    )
    weights = _lead_matrix() @ dipoles.T
    # Shorter cycles shorten PR, P and QT, and a TP segment of at least 25 ms remains.
    scale = min(1.0, max(0.75, math.sqrt(rr_min / 0.75)))
    pr = rng.uniform(0.14, 0.18) * scale
    p_duration = min(rng.uniform(0.08, 0.10) * scale, pr - 0.03)
    qrs = rng.uniform(0.080, 0.100)
    qt = rng.uniform(0.39, 0.43) * math.sqrt(rr_min)
    qt = min(qt, rr_min - pr - 0.025)
    st = min(max(0.2 * (qt - qrs), 0.02), 0.1)
    return _Morphology(
        p_onset=-pr,
        p_duration=p_duration,
        qrs_duration=qrs,
        st_duration=st,
        qt=qt,
        weights=weights,
    )


def _wide_morphology(
    rng: np.random.Generator, base: _Morphology, form: str, rr_min: float
) -> _Morphology:
    """``base`` with the QRS of ``form`` (see the module docstring): wider, with the dipoles
    of its activation sequence, a discordant T wave and, for an infarct or pacing, the
    injury current or the stimulus."""
    if form == "bundle_branch_block":
        qrs = rng.uniform(0.12, 0.17)
        axis = math.radians(rng.uniform(-75.0, 90.0))
        main = rng.uniform(0.8, 1.4) * _unit(
            [math.cos(axis), math.sin(axis), rng.uniform(-0.8, 0.8)]
        )
        late_axis = axis + math.radians(rng.uniform(120.0, 200.0))
        late = rng.uniform(0.6, 1.2) * _unit(
            [math.cos(late_axis), math.sin(late_axis), rng.uniform(-0.8, 0.8)]
        )
        initial = rng.uniform(0.05, 0.15) * _unit([0.6, -0.2, 0.6])
    elif form == "infarct_qs":
        qrs = rng.uniform(0.10, 0.15)
        axis = math.radians(rng.uniform(-30.0, 60.0))
        initial = rng.uniform(0.6, 1.0) * _unit([0.2, 0.3, -0.9])
        main = rng.uniform(0.5, 1.0) * _unit([math.cos(axis), math.sin(axis), -0.8])
        late = rng.uniform(0.2, 0.4) * _unit([-0.5, -0.4, -0.6])
    else:  # paced from the right ventricular apex
        qrs = rng.uniform(0.13, 0.18)
        axis = math.radians(rng.uniform(-90.0, -45.0))
        initial = rng.uniform(0.05, 0.15) * _unit([0.3, -0.5, 0.3])
        main = rng.uniform(0.9, 1.5) * _unit([math.cos(axis), math.sin(axis), -0.6])
        late = rng.uniform(0.2, 0.5) * _unit([0.4, -0.3, -0.5])
    lead_matrix = _lead_matrix()
    t_wave = (
        -rng.uniform(0.2, 0.4) * main / float(np.linalg.norm(main))
    )  # discordant: repolarisation follows the block
    weights = base.weights.copy()
    weights[:, 1:5] = lead_matrix @ np.stack([initial, main, late, t_wave]).T
    qt = base.qt + (qrs - base.qrs_duration)
    qt = min(qt, rr_min + base.p_onset - 0.025)
    st = min(max(0.2 * (qt - qrs), 0.02), 0.1)
    injury = stimulus = None
    if form == "infarct_qs":
        injury = lead_matrix @ (rng.uniform(0.1, 0.3) * _unit([0.1, -0.1, 1.0]))
    else:  # secondary ST change: displaced against the QRS, as the T wave is
        injury = lead_matrix @ (-rng.uniform(0.1, 0.25) * main / float(np.linalg.norm(main)))
    if form == "paced":
        stimulus = lead_matrix @ (rng.uniform(2.0, 6.0) * _unit([0.3, 0.9, 0.3]))
    return _Morphology(
        p_onset=base.p_onset,
        p_duration=base.p_duration,
        qrs_duration=qrs,
        st_duration=st,
        qt=qt,
        weights=weights,
        qrs_form=form,
        injury=injury,
        stimulus=stimulus,
    )


def _atrial_waves(
    rng: np.random.Generator, rhythm: str, n: int, fs: float
) -> tuple[NDArray[np.float64], float]:
    """Atrial activity without P waves (mV along the P dipole), and the flutter cycle (s; 0 in
    fibrillation): fibrillatory waves of wandering frequency and size, or a flutter sawtooth."""
    t = np.arange(n) / fs
    if rhythm == "fibrillation":
        slow = np.cumsum(rng.normal(0.0, 1.0, n)) / math.sqrt(fs)
        frequency = np.clip(
            rng.uniform(5.0, 7.5) + 0.8 * slow / max(1.0, float(np.std(slow))), 4.0, 9.0
        )
        phase = 2.0 * np.pi * np.cumsum(frequency) / fs
        size = 1.0 + 0.4 * np.sin(2.0 * np.pi * rng.uniform(0.2, 0.6) * t + rng.uniform(0, 6.3))
        waves: NDArray[np.float64] = rng.uniform(0.03, 0.1) / 1.4 * size * np.sin(phase)
        return waves, 0.0
    cycle = 60.0 / rng.uniform(250.0, 350.0)
    position = (t / cycle + rng.uniform(0.0, 1.0)) % 1.0
    # A slow descent then a fast return: the sawtooth of typical flutter (negative in II).
    tooth = np.where(position < 0.8, -position / 0.8, -(1.0 - position) / 0.2)
    sawtooth: NDArray[np.float64] = rng.uniform(0.1, 0.25) * (tooth + 0.5)
    return sawtooth, cycle


def _irregular_times(
    rng: np.random.Generator, rr: float, duration: float, cycle: float
) -> NDArray[np.float64]:
    """R times without sinus timing: each interval 0.6–1.4 × ``rr`` (fibrillation) or 2–4
    flutter cycles (flutter), none within the edge margins."""
    times = [rng.uniform(-2.0 * rr, -rr)]
    ratio = int(rng.integers(2, 5))
    variable = rng.random() < 0.3
    while times[-1] < duration + 2.0 * rr:
        if cycle:
            step = (int(rng.integers(2, 5)) if variable else ratio) * cycle
        else:
            step = max(0.3, rr * rng.uniform(0.6, 1.4))
        times.append(times[-1] + step)
    array = np.asarray(times)
    edge = ((array > -0.06) & (array < _EDGE_MARGIN_S)) | (
        (array > duration - _EDGE_MARGIN_S) & (array < duration + 0.06)
    )
    return array[~edge]


def _plateau(n: int, fs: float, qrs_onset: float, qrs: float, qt: float) -> NDArray[np.float64]:
    """The shape of an ST displacement (0 to 1): the plateau of the ventricular action
    potential, rising over the last 20 ms of the QRS, held through the ST segment and
    falling with the T wave."""
    t = np.arange(n) / fs - qrs_onset
    rise = np.clip((t - (qrs - 0.02)) / 0.02, 0.0, 1.0)
    fall = np.clip((qt - t) / (0.3 * qt), 0.0, 1.0)
    shape: NDArray[np.float64] = np.minimum(rise, fall)
    return shape


def _add_hann(
    basis: NDArray[np.float64], fs: float, onset: float, duration: float, amplitude: float
) -> None:
    """Add ``amplitude`` × a Hann pulse supported exactly on [onset, onset + duration] (s)."""
    first = max(0, math.ceil(onset * fs))
    last = min(basis.shape[0] - 1, math.floor((onset + duration) * fs))
    if last < first:
        return
    t = np.arange(first, last + 1) / fs
    basis[first : last + 1] += amplitude * np.sin(np.pi * (t - onset) / duration) ** 2


def _add_t_wave(
    basis: NDArray[np.float64], fs: float, onset: float, duration: float, amplitude: float
) -> None:
    """Asymmetric T wave: a slower rising half-Hann (60 %) then a faster falling one (40 %)."""
    peak = onset + 0.6 * duration
    end = onset + duration
    first = max(0, math.ceil(onset * fs))
    last = min(basis.shape[0] - 1, math.floor(end * fs))
    if last < first:
        return
    t = np.arange(first, last + 1) / fs
    rising = np.sin(0.5 * np.pi * (t - onset) / (peak - onset)) ** 2
    falling = np.cos(0.5 * np.pi * (t - peak) / (end - peak)) ** 2
    basis[first : last + 1] += amplitude * np.where(t <= peak, rising, falling)


def _beat_times(
    rng: np.random.Generator, rr: float, duration: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """R-centre times (s) covering the recording, none within the edge margins.

    Returns all beat times (including beats just outside the recording, whose
    P or T waves reach into it) and the multipliers applied to the mean RR.
    """
    count = int(duration / (0.96 * rr)) + 6
    phase = rng.uniform(0.0, 2.0 * math.pi)
    jitter = 1.0 + 0.02 * np.sin(phase + 0.9 * np.arange(count)) + rng.normal(0.0, 0.004, count)
    intervals = rr * jitter
    for _ in range(500):
        # Both the phase and a ±1 % stretch of the rhythm are free: at fast rates
        # the phase alone cannot always keep both edges clear.
        start = rng.uniform(_EDGE_MARGIN_S, _EDGE_MARGIN_S + rr)
        stretch = rng.uniform(0.99, 1.01)
        times = start - 2.0 * rr + stretch * np.concatenate(([0.0], np.cumsum(intervals[:-1])))
        inside = (times > -0.06) & (times < duration + 0.06)
        margins = (times < _EDGE_MARGIN_S) | (times > duration - _EDGE_MARGIN_S)
        if not np.any(inside & margins):
            return times, stretch * jitter
    raise RuntimeError("could not place beats away from the recording edges")  # pragma: no cover


# -- artefacts ------------------------------------------------------------------


def _rail_fraction(lead: NDArray[np.float64], rail: float, fs: float) -> float:
    """Fraction of samples equal to ``rail`` in runs ≥ 4 ms when ≥ 3 such, else one ≥ 50 ms."""
    held = np.concatenate(([False], lead == rail, [False]))
    edges = np.flatnonzero(np.diff(held.astype(np.int8)))
    lengths = edges[1::2] - edges[::2]
    short = max(2, math.ceil(_CLIP_RUN_S * fs))
    lone = max(short, math.ceil(_CLIP_LONE_RUN_S * fs))
    minimum = short if int(np.count_nonzero(lengths >= short)) >= _CLIP_RUNS else lone
    return float(lengths[lengths >= minimum].sum()) / int(lead.shape[0])


def _clip(
    lead: NDArray[np.float64], target: float, fs: float, decimals: int
) -> tuple[NDArray[np.float64], float]:
    """Clip the lead's dominant side at the rail whose rail fraction is nearest ``target``.

    The fraction grows in steps as the rail is lowered (a run counts from
    10 ms on), so the two rails either side of the target are compared.
    Works at the carrier's resolution (``decimals`` of a mV), so that rounding
    the result for the carrier cannot merge further samples into the rail.
    """
    sign = 1.0 if lead.max() >= -lead.min() else -1.0
    oriented = np.round(sign * lead, decimals)
    low, high = float(np.median(oriented)), float(oriented.max())
    for _ in range(40):
        middle = round((low + high) / 2.0, decimals)
        if _rail_fraction(np.minimum(oriented, middle), middle, fs) >= target:
            low = middle
        else:
            high = middle
    sides = [(abs(_rail_fraction(np.minimum(oriented, r), r, fs) - target), r) for r in (low, high)]
    rail = min(sides)[1]
    clipped = np.minimum(oriented, rail)
    return sign * clipped, _rail_fraction(clipped, rail, fs)


def _drift(rng: np.random.Generator, t: NDArray[np.float64]) -> Any:
    """A slow drift in arbitrary units: two sinusoids 0.05–0.35 Hz plus a ramp."""
    return (
        np.sin(2.0 * np.pi * rng.uniform(0.05, 0.2) * t + rng.uniform(0.0, 2.0 * np.pi))
        + rng.uniform(0.3, 0.7)
        * np.sin(2.0 * np.pi * rng.uniform(0.15, 0.35) * t + rng.uniform(0.0, 2.0 * np.pi))
        + rng.uniform(-0.5, 0.5) * (t - t.mean()) / max(float(t[-1]), 1e-9)
    )


def _wander(rng: np.random.Generator, t: NDArray[np.float64], peak_to_peak: float) -> Any:
    """A slow drift scaled to ``peak_to_peak`` mV over the whole recording (background wander)."""
    drift = _drift(rng, t)
    return drift * (peak_to_peak / float(drift.max() - drift.min()))


def window_excursion(drift: NDArray[np.float64], fs: float) -> float:
    """Largest peak-to-peak of ``drift`` within any window of 1 s, as ``ecg_quality`` measures
    baseline wander: the baseline's move within one beat, not its swing over the recording.

    The first and last 0.4 s are left out, as the measure leaves them out.
    """
    edge = round(_WANDER_EDGE_S * fs)
    kept = drift[edge : drift.shape[0] - edge]
    width = min(kept.shape[0], round(_WANDER_WINDOW_S * fs))
    windows = np.lib.stride_tricks.sliding_window_view(kept, width)
    return float(np.max(windows.max(axis=1) - windows.min(axis=1)))


def _inject(
    rng: np.random.Generator,
    leads: NDArray[np.float64],
    fs: float,
    artefacts: Sequence[Artefact],
    decimals: int,
    r_peaks: NDArray[np.int64],
) -> list[dict[str, Any]]:
    """Apply the artefacts in acquisition order; return their truth records.

    Each record has the kind, lead and realised severity; a flatline also has
    its ``span`` [first sample, end sample), moved when needed to span the R
    peak nearest its middle (a dropout hides a beat; a held diastole hides
    nothing), and a disconnected lead its ``form``.
    """
    t = np.arange(leads.shape[1]) / fs
    realised: list[dict[str, Any]] = []
    order = ("baseline_wander", "mains_interference", "noise", "clipping", "flatline")
    for artefact in sorted(artefacts, key=lambda a: (order.index(a.kind), _LEADS.index(a.lead))):
        row = _LEADS.index(artefact.lead)
        severity = artefact.severity
        record: dict[str, Any] = {"kind": artefact.kind, "lead": artefact.lead}
        if artefact.form:
            record["form"] = artefact.form
        if artefact.kind == "baseline_wander":
            drift = _drift(rng, t)
            leads[row] += drift * (severity / window_excursion(drift, fs))
        elif artefact.kind == "mains_interference":
            frequency = 50.0 if rng.random() < 0.5 else 60.0
            phase = rng.uniform(0.0, 2.0 * np.pi)
            leads[row] += severity * np.sin(2.0 * np.pi * frequency * t + phase)
        elif artefact.kind == "noise":
            leads[row] += rng.normal(0.0, severity, leads.shape[1])
        elif artefact.kind == "clipping":
            leads[row], severity = _clip(leads[row], severity, fs, decimals)
        elif artefact.form == "disconnected":
            leads[row] = rng.normal(0.0, _DISCONNECTED_NOISE_MV, leads.shape[1])
            record["span"] = [0, leads.shape[1]]
        else:
            length = min(leads.shape[1], round(severity * leads.shape[1]))
            start = int(rng.integers(0, leads.shape[1] - length + 1))
            inside = (r_peaks >= start) & (r_peaks < start + length)
            if r_peaks.size and not inside.any():
                nearest = int(r_peaks[np.argmin(np.abs(r_peaks - (start + length // 2)))])
                start = min(max(0, nearest - length // 2), leads.shape[1] - length)
            if length >= leads.shape[1]:
                leads[row] = 0.0  # lead-off: the whole channel reads zero
            else:
                level = round(float(np.median(leads[row])), decimals)
                leads[row, start : start + length] = level
            severity = length / leads.shape[1]
            record["span"] = [start, start + length]
        record["severity"] = round(severity, 6)
        realised.append(record)
    return realised


def _draw_artefacts(
    rng: np.random.Generator, slice_name: str, focus_lead: str | None
) -> list[Artefact]:
    """Artefacts for a slice: several above flag level, or one inside the borderline band."""
    from pytest_openmed.components.ecg_quality import CONFIG_A

    if slice_name == "nominal":
        return []
    if slice_name == "ambiguity_conflict":
        kind = ARTEFACT_KINDS[int(rng.integers(0, len(ARTEFACT_KINDS)))]
        low, high = CONFIG_A.band(kind)
        count = 1 if focus_lead is not None else int(rng.integers(1, 3))
        leads = _pick_leads(rng, count, focus_lead, set())
        return [Artefact(kind, lead, low + rng.uniform(0.3, 0.7) * (high - low)) for lead in leads]
    drawn = rng.choice(ARTEFACT_KINDS, size=int(rng.integers(1, 4)), replace=False)
    kinds = [str(kind) for kind in drawn]
    focus_kind = kinds[0]
    # A flat lead carries nothing else: flat leads are chosen first, then excluded.
    kinds.sort(key=lambda kind: kind != "flatline")
    artefacts: list[Artefact] = []
    flat: set[str] = set()
    for kind in kinds:
        count = int(rng.integers(1, 4))
        reserved = {focus_lead} if focus_lead is not None and kind != focus_kind else set()
        leads = _pick_leads(rng, count, focus_lead if kind == focus_kind else None, flat | reserved)
        flag = CONFIG_A.band(kind)[1]
        for lead in leads:
            if kind == "flatline":
                whole = rng.random()
                severity = 1.0 if whole < 0.3 else rng.uniform(0.15, 0.6)
                flat.add(lead)
                if whole < 0.15:
                    artefacts.append(Artefact(kind, lead, severity, "disconnected"))
                    continue
            elif kind == "clipping":
                severity = flag * rng.uniform(1.6, 4.0)
            else:
                severity = flag * rng.uniform(1.4, 3.0)
            artefacts.append(Artefact(kind, lead, severity))
    return artefacts


def _in_slice(slice_name: str, record: Mapping[str, Any]) -> bool:
    """Whether a realised artefact lies where its slice promises."""
    from pytest_openmed.components.ecg_quality import CONFIG_A

    low, high = CONFIG_A.band(record["kind"])
    severity = record["severity"]
    if slice_name == "ambiguity_conflict":
        return bool(low <= severity < high)
    return bool(record["kind"] == "flatline" or severity >= 1.4 * high)


def _pick_leads(
    rng: np.random.Generator, count: int, focus_lead: str | None, excluded: set[str]
) -> list[str]:
    """``count`` distinct leads (the focus lead first, when given), none of them flatlined."""
    pool = [lead for lead in _LEADS if lead not in excluded and lead != focus_lead]
    chosen = [focus_lead] if focus_lead is not None and focus_lead not in excluded else []
    extra = max(0, count - len(chosen))
    picks = rng.choice(len(pool), size=min(extra, len(pool)), replace=False)
    return chosen + [pool[int(k)] for k in sorted(picks)]


# -- recordings -----------------------------------------------------------------


def synthesise_ecg(
    seed: int,
    slice_name: str,
    *,
    heart_rate_bpm: float | None = None,
    sampling_rate_hz: float = 500.0,
    duration_s: float = 10.0,
    artefacts: Sequence[Artefact] | None = None,
    focus_lead: str | None = None,
    decimals: int = 4,
    qrs_form: str = "narrow",
    rhythm: str = "sinus",
) -> SyntheticECG:
    """Synthesise one 12-lead recording and its truth.

    ``artefacts`` overrides the slice's random artefacts; ``focus_lead`` makes
    the slice's first artefact land on that lead.  Samples are held at
    ``decimals`` decimal places of a mV, the resolution of the carrier they
    are written to (4: the JSON carrier's 0.1 µV; 3: the DICOM carrier's 1 µV),
    so realised severities hold for the carrier's samples.  ``qrs_form`` and
    ``rhythm`` pick a wide QRS or a rhythm without P waves (module docstring);
    their draws come from a stream of their own.
    """
    check_slice(slice_name)
    if qrs_form not in QRS_FORMS or rhythm not in RHYTHMS:
        raise InputRefused("qrs_form or rhythm is not one of the generator's")
    if type(seed) is not int or seed < 0:
        raise InputRefused("seed must be a non-negative int")
    if type(decimals) is not int or not 3 <= decimals <= 6:
        raise InputRefused("decimals must be an int in 3..6")
    rate_ok = MIN_SAMPLING_RATE_HZ <= sampling_rate_hz <= MAX_SAMPLING_RATE_HZ
    if not rate_ok or not 5.0 <= duration_s <= 60.0:
        raise InputRefused("sampling rate or duration outside the generator's range")
    rng = np.random.default_rng([seed, 0xEC6])
    rate = float(rng.uniform(40.0, 180.0)) if heart_rate_bpm is None else float(heart_rate_bpm)
    if not 30.0 <= rate <= 200.0:
        raise InputRefused("heart rate outside the generator's range")
    fs = float(sampling_rate_hz)
    n = round(duration_s * fs)
    rr = 60.0 / rate
    times, jitter = _beat_times(rng, rr, n / fs)
    morphology = _morphology(rng, rr * float(jitter.min()))
    form_rng = np.random.default_rng([seed, 0xEC6, 2])
    atrial: NDArray[np.float64] | None = None
    if rhythm != "sinus":
        atrial, cycle = _atrial_waves(form_rng, rhythm, n, fs)
        times = _irregular_times(form_rng, rr if not cycle else 60.0 / rate, n / fs, cycle)
        rr_min = float(np.diff(times).min())
        morphology = _morphology(np.random.default_rng([seed, 0xEC6, 3]), rr_min)
    if qrs_form != "narrow":
        rr_min = float(np.diff(times).min()) if rhythm != "sinus" else rr * float(jitter.min())
        morphology = _wide_morphology(form_rng, morphology, qrs_form, rr_min)
    basis = np.zeros((5, n))
    extra = np.zeros((len(_LEADS), n)) if rhythm != "sinus" or qrs_form != "narrow" else None
    respiration = rng.uniform(0.15, 0.35)
    breath_phase = rng.uniform(0.0, 2.0 * np.pi)
    qrs = morphology.qrs_duration
    for r_time in times:
        qrs_onset = r_time - 0.4 * qrs
        breath = 1.0 + 0.05 * math.sin(2.0 * math.pi * respiration * r_time + breath_phase)
        if atrial is None:
            _add_hann(basis[0], fs, qrs_onset + morphology.p_onset, morphology.p_duration, 1.0)
        if extra is not None and morphology.injury is not None:
            extra += np.outer(morphology.injury, _plateau(n, fs, qrs_onset, qrs, morphology.qt))
        if extra is not None and morphology.stimulus is not None:
            spike = round((qrs_onset - 0.002) * fs)
            width = max(1, round(0.0015 * fs))
            if 0 <= spike and spike + width <= n:
                extra[:, spike : spike + width] += morphology.stimulus[:, None]
        _add_hann(basis[1], fs, qrs_onset, 0.3 * qrs, breath)
        _add_hann(basis[2], fs, qrs_onset + 0.15 * qrs, 0.5 * qrs, breath)
        _add_hann(basis[3], fs, qrs_onset + 0.5 * qrs, 0.5 * qrs, breath)
        t_onset = qrs_onset + qrs + morphology.st_duration
        _add_t_wave(basis[4], fs, t_onset, qrs_onset + morphology.qt - t_onset, 1.0)
    leads = morphology.weights @ basis
    if extra is not None:
        if atrial is not None:
            p_size = float(np.linalg.norm(_LEAD_PINV @ morphology.weights[:, 0]))
            extra += np.outer(morphology.weights[:, 0] / max(p_size, 1e-9), atrial)
        leads = leads + extra
    r_peaks = np.round(times[(times >= 0.0) & (times < n / fs)] * fs).astype(np.int64)
    t = np.arange(n) / fs
    for row in range(len(_LEADS)):
        leads[row] += rng.normal(0.0, rng.uniform(0.004, 0.010), n)
        leads[row] += _wander(rng, t, rng.uniform(0.02, 0.12))
    if artefacts is not None:
        realised = _inject(rng, leads, fs, list(artefacts), decimals, r_peaks)
    else:
        # Clipping severities move in steps: redraw until every realised severity
        # lies where the slice promises (above 1.4 × the flag level, or in the band).
        clean = leads
        for _ in range(50):
            leads = clean.copy()
            realised = _inject(
                rng, leads, fs, _draw_artefacts(rng, slice_name, focus_lead), decimals, r_peaks
            )
            if all(_in_slice(slice_name, record) for record in realised):
                break
        else:  # pragma: no cover - never observed; the draw is far from the limits
            raise RuntimeError("could not realise the slice's artefact severities")
    leads = np.round(leads, decimals)  # the carrier's resolution
    return SyntheticECG(
        sampling_rate_hz=fs,
        lead_names=_LEADS,
        samples=leads,
        truth=_truth(slice_name, fs, n, times, morphology, realised, rhythm),
    )


def _truth(
    slice_name: str,
    fs: float,
    n: int,
    times: NDArray[np.float64],
    morphology: _Morphology,
    artefacts: Sequence[Mapping[str, Any]],
    rhythm: str = "sinus",
) -> dict[str, Any]:
    from pytest_openmed.components.ecg_quality import CONFIG_A

    inside = times[(times >= 0.0) & (times < n / fs)]
    qrs = morphology.qrs_duration
    beats = []
    for r_time in inside:
        qrs_onset = r_time - 0.4 * qrs
        beats.append(
            {
                "r_peak": round(r_time * fs),
                "p_onset": (
                    round((qrs_onset + morphology.p_onset) * fs, 3) if rhythm == "sinus" else None
                ),
                "qrs_onset": round(qrs_onset * fs, 3),
                "qrs_offset": round((qrs_onset + qrs) * fs, 3),
                "t_offset": round((qrs_onset + morphology.qt) * fs, 3),
            }
        )
    rr_ms = np.diff(inside) * 1000.0
    bands: dict[str, dict[str, list[str]]] = {"flag": {}, "borderline": {}}
    for artefact in artefacts:
        low, high = CONFIG_A.band(artefact["kind"])
        if artefact["severity"] >= low:
            band = "flag" if artefact["severity"] >= high else "borderline"
            bands[band].setdefault(artefact["lead"], []).append(artefact["kind"])
    return {
        "slice": slice_name,
        "sampling_rate_hz": fs,
        "n_samples": n,
        "heart_rate_bpm": round(60000.0 / float(rr_ms.mean()), 3),
        "r_peaks": [beat["r_peak"] for beat in beats],
        "rr_ms": [round(float(v), 3) for v in rr_ms],
        "qrs_form": morphology.qrs_form,
        "rhythm": rhythm,
        "pr_ms": round(-morphology.p_onset * 1000.0, 3) if rhythm == "sinus" else None,
        "qrs_ms": round(qrs * 1000.0, 3),
        "qt_ms": round(morphology.qt * 1000.0, 3),
        "beats": beats,
        "artefacts": list(artefacts),
        "flagged_leads": {lead: sorted(kinds) for lead, kinds in sorted(bands["flag"].items())},
        "borderline_leads": {
            lead: sorted(kinds) for lead, kinds in sorted(bands["borderline"].items())
        },
    }


# -- carriers -------------------------------------------------------------------


def waveform_json(recording: SyntheticECG, *, units: str = "mV") -> bytes:
    """The recording as ``openmed.waveform.v1`` JSON (canonical, so byte-stable)."""
    if units not in ("mV", "uV"):
        raise InputRefused("units must be 'mV' or 'uV'")
    scale, decimals = (1.0, 4) if units == "mV" else (1000.0, 1)
    rate = recording.sampling_rate_hz
    document = {
        "format": WAVEFORM_FORMAT,
        "sampling_rate_hz": int(rate) if rate.is_integer() else rate,
        "units": units,
        "leads": [
            {"name": name, "samples": np.round(row * scale, decimals).tolist()}
            for name, row in zip(recording.lead_names, recording.samples, strict=True)
        ],
    }
    return canonical_bytes(document)


def waveform_dicom(
    recording: SyntheticECG, *, seed: int, units: str = "uV", sensitivity: float = 1.0
) -> bytes:
    """The recording as a native 12-lead (or General) ECG DICOM object, 16-bit signed.

    Samples are quantised to ``sensitivity`` ``units`` per count (refused, not
    clipped, when out of the 16-bit range).  Identifiers are synthetic, UIDs
    derive from ``seed``, and dates are fixed, so the bytes are reproducible.
    """
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.filewriter import dcmwrite
    from pydicom.sequence import Sequence as DicomSequence
    from pydicom.uid import UID, ExplicitVRLittleEndian, generate_uid

    if units not in _DICOM_UNITS or not math.isfinite(sensitivity) or sensitivity <= 0.0:
        raise InputRefused("units must be 'uV' or 'mV' with a positive sensitivity")
    meaning, to_mv = _DICOM_UNITS[units]
    counts = np.round(recording.samples / (sensitivity * to_mv))
    if counts.min() < -32768 or counts.max() > 32767:
        raise InputRefused("recording exceeds the 16-bit range at this sensitivity")
    fs = recording.sampling_rate_hz
    n = recording.samples.shape[1]
    twelve_lead = len(recording.lead_names) == 12 and 200.0 <= fs <= 1000.0 and n <= 16384
    sop_class = "1.2.840.10008.5.1.4.1.1.9.1." + ("1" if twelve_lead else "2")

    def uid(role: str) -> str:
        return str(generate_uid(entropy_srcs=["pytest-openmed-ecg", str(seed), role]))

    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = UID(sop_class)
    meta.MediaStorageSOPInstanceUID = UID(uid("instance"))
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID = sop_class
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.StudyInstanceUID = uid("study")
    ds.SeriesInstanceUID = uid("series")
    ds.PatientName = "SYNTHETIC^ECG"
    ds.PatientID = f"SYN-{seed % 1_000_000:06d}"
    ds.PatientBirthDate = ""
    ds.PatientSex = "O"
    ds.StudyDate = ds.ContentDate = "20000101"
    ds.StudyTime = ds.ContentTime = "000000"
    ds.AcquisitionDateTime = "20000101000000"
    ds.StudyID = "1"
    ds.AccessionNumber = ""
    ds.ReferringPhysicianName = ""
    ds.Modality = "ECG"
    ds.SeriesNumber = 1
    ds.InstanceNumber = 1
    ds.Manufacturer = "pytest-openmed synthetic generator"
    ds.AcquisitionContextSequence = DicomSequence([])
    group = Dataset()
    group.MultiplexGroupTimeOffset = 0
    group.WaveformOriginality = "ORIGINAL"
    group.NumberOfWaveformChannels = len(recording.lead_names)
    group.NumberOfWaveformSamples = n
    group.SamplingFrequency = f"{fs:g}"
    group.MultiplexGroupLabel = "RHYTHM"
    channels = []
    for name in recording.lead_names:
        source = Dataset()
        source.CodeValue = _MDC_CODES[name]
        source.CodingSchemeDesignator = "MDC"
        source.CodeMeaning = f"Lead {name}"
        unit = Dataset()
        unit.CodeValue = units
        unit.CodingSchemeDesignator = "UCUM"
        unit.CodeMeaning = meaning
        channel = Dataset()
        channel.ChannelSourceSequence = DicomSequence([source])
        channel.ChannelSensitivity = f"{sensitivity:g}"
        channel.ChannelSensitivityUnitsSequence = DicomSequence([unit])
        channel.ChannelSensitivityCorrectionFactor = "1"
        channel.ChannelBaseline = "0"
        channel.ChannelSampleSkew = "0"
        channel.WaveformBitsStored = 16
        channels.append(channel)
    group.ChannelDefinitionSequence = DicomSequence(channels)
    group.WaveformBitsAllocated = 16
    group.WaveformSampleInterpretation = "SS"
    group.add_new(0x54001010, "OW", counts.T.astype("<i2").tobytes())
    ds.WaveformSequence = DicomSequence([group])
    buffer = io.BytesIO()
    dcmwrite(buffer, ds, enforce_file_format=True)
    return buffer.getvalue()


def _source(recording: SyntheticECG, seed: int, slice_name: str, carrier: str) -> GeneratedSource:
    if carrier == "json":
        asset, media_type = waveform_json(recording), JSON_MEDIA_TYPE
    elif carrier == "dicom":
        asset, media_type = waveform_dicom(recording, seed=seed), DICOM_MEDIA_TYPE
    else:
        raise InputRefused("carrier must be 'json' or 'dicom'")
    return GeneratedSource(asset, media_type, slice_name, recording.truth)
    raise InputRefused("carrier must be 'json' or 'dicom'")


def generate_ecg_quality(
    seed: int, slice: str, *, carrier: str = "json", **knobs: Any
) -> GeneratedSource:
    """A recording for the quality task: artefacts anywhere (none on ``nominal``).

    ``knobs`` are passed to :func:`synthesise_ecg` (``heart_rate_bpm``,
    ``sampling_rate_hz``, ``duration_s``, ``artefacts``, ``focus_lead``); the
    recording is synthesised at the carrier's resolution.
    """
    knobs.setdefault("decimals", _CARRIER_DECIMALS.get(carrier, 4))
    return _source(synthesise_ecg(seed, slice, **knobs), seed, slice, carrier)


def generate_ecg_intervals(
    seed: int, slice: str, *, carrier: str = "json", **knobs: Any
) -> GeneratedSource:
    """A recording for the interval task: off-nominal slices put their first artefact on lead II.

    On about :data:`FORM_SHARE` of the ``adverse_acquisition`` sources the adversity is the
    heart's instead (a wide QRS or no P waves, at 250–1000 Hz, without artefacts), drawn
    from a stream of their own.
    """
    check_slice(slice)
    if slice == "adverse_acquisition" and not {"qrs_form", "rhythm"} & knobs.keys():
        pick = np.random.default_rng([seed, 0xEC6, 1])
        if pick.random() < FORM_SHARE:
            kind = int(pick.integers(0, len(QRS_FORMS) - 1 + len(RHYTHMS) - 1))
            if kind < len(QRS_FORMS) - 1:
                knobs["qrs_form"] = QRS_FORMS[1 + kind]
            else:
                knobs["rhythm"] = RHYTHMS[1 + kind - (len(QRS_FORMS) - 1)]
            knobs.setdefault("sampling_rate_hz", _FORM_RATES[int(pick.integers(0, 4))])
            knobs.setdefault("artefacts", ())
    knobs.setdefault("focus_lead", "II")
    knobs.setdefault("decimals", _CARRIER_DECIMALS.get(carrier, 4))
    return _source(synthesise_ecg(seed, slice, **knobs), seed, slice, carrier)
