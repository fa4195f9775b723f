"""ECG interval candidates: R peaks, RR, heart rate and PR / QRS / QT candidates (non-diagnostic).

Method, on an ECG carrier (``openmed.waveform.v1`` JSON or native DICOM ECG):

1. **Lead screening.**  Every lead is measured by :mod:`.ecg_quality` (its
   ``CONFIG_A`` thresholds).  A lead is *eligible* when it carries no flag
   outside the configuration's ``tolerated_flags`` (and, when
   ``refuse_borderline_lead`` is set, no borderline measure).  The analysis
   lead is the first eligible lead of ``lead_preference``; none → abstain.
2. **R peaks**: beats found on all delineation leads together
   (:func:`.ecg_quality.beat_times`), each moved to the top of the R wave of
   the analysis lead (the most positive sample within ±80 ms on the 0.5–40 Hz
   signal; the most negative one on a lead whose QRS is essentially negative);
   beats inside a dropout of the analysis lead are not listed.
3. **RR and heart rate**: RR intervals between consecutive R peaks (ms) and
   60,000 / mean RR, the mean taken over intervals that span no dropout of the
   analysis lead, since such an interval may hide beats.
4. **Median beat** of every delineation lead (0.5–40 Hz, 50/60 Hz notched where
   mains was measured), aligned on the R peaks.
5. **Boundaries**: QRS onset / offset on the spatial velocity (sum over leads of
   |slope|) where it has stayed within 7 % of its QRS peak for 20 ms; P onset
   against a straight TP-to-PR baseline per lead, at half the P height moved
   along the tangent, for a P wave that is a wave, stands alone, rises from a
   quiet baseline, recurs beat by beat and keeps a fixed relation to each QRS,
   in a diastole that does not repeat itself one atrial flutter cycle on (nor,
   where the RRs vary by whole flutter cycles, in the beats followed by the
   longest RRs) and is not seen again at its size one flutter cycle earlier inside the T wave
   (II, III, aVF, and V1 where it holds a wave above its noise; clear of the
   previous QRS; a PR exists only when one P wave conducts to each
   QRS: not in fibrillation or flutter; in a regular rhythm where a flutter wave one
   cycle before the P wave would lie in the previous QRS, sinus rhythm and flutter
   look alike: PR undetermined); T offset per lead by the trapezium-area method after the
   lead's largest deviation from its ST-to-TP line, the median over the leads
   whose T wave is not flat (under a tenth of the QRS height: its end cannot
   be placed).  ``pr_ms`` = QRS onset − P onset, ``qrs_ms`` = QRS offset −
   QRS onset, ``qt_ms`` = T offset − QRS onset.
6. **Consistency**: a candidate outside its plausible range, a QT reaching
   0.9 × RR or a PR + QT reaching RR is ``null`` with its reason in
   ``null_reasons`` (a check, never a clamp), as is a QT whose T waves are all
   flat (``wave_too_small``) and a PR whose rhythm cannot be told from flutter
   (``atrial_rhythm_undetermined``); ``candidate_leads`` says how many leads each
   candidate rests on.

Every number is a *candidate* for evaluation pipelines, never a measurement
for care.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_openmed.carriers.ecg import STANDARD_LEADS, Waveform
from pytest_openmed.carriers.waveform import read_waveform
from pytest_openmed.components import ecg_quality
from pytest_openmed.components._base import ComponentOutput, check_asset
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "ABSTAIN_REASONS",
    "CONFIG_A",
    "CONFIG_B",
    "MAX_QT_OF_RR",
    "NULL_REASONS",
    "PLAUSIBLE_MS",
    "IntervalConfig",
    "analyse_waveform",
    "run",
]

#: The closed abstain vocabulary.
ABSTAIN_REASONS = (
    "sampling_rate_too_low",
    "recording_too_short",
    "no_usable_analysis_lead",
    "too_few_beats",
    "rate_out_of_range",
)
#: Candidates outside these ranges (ms) are reported as ``null``.
PLAUSIBLE_MS = {"pr_ms": (60.0, 400.0), "qrs_ms": (40.0, 200.0), "qt_ms": (150.0, 700.0)}
#: QT must end before this share of the typical RR (the next beat's P wave comes after it).
MAX_QT_OF_RR = 0.9
#: Why a candidate is ``null`` (closed vocabulary), in ``null_reasons``.
NULL_REASONS = (
    "not_found",
    "wave_too_small",
    "out_of_range",
    "inconsistent_with_rr",
    "depends_on_qrs",
    "atrial_rhythm_undetermined",
)
_INTERVALS = ("pr_ms", "qrs_ms", "qt_ms")
_RATE_RANGE_BPM = (30.0, 240.0)
_REFRACTORY_S = 0.25
#: QRS boundaries: where the spatial velocity falls to this share of its QRS peak.
_QRS_VELOCITY_FRACTION = 0.07
#: A P wave stands this share of the QRS height above its floor ...
_P_MIN_OF_QRS = 0.03
#: ... is at most this wide at half its height ...
_P_MAX_HALF_WIDTH_S = 0.12
#: ... and each beat's P stretch correlates with the median one at least this much ...
_P_CONSISTENCY = 0.5
#: ... at a size within this range of the median one's ...
_P_SIZE_RANGE = (0.5, 2.0)
#: ... in at least this share of the beats (a conducted P wave precedes every QRS: an
#: ectopic or noisy beat may lack it, fibrillation waves resemble it only by chance).
_P_PRESENT_SHARE = 0.8
#: ... rises from at least this much quiet baseline (s) ...
_P_LEAD_IN_S = 0.01
#: ... and peaks, beat by beat, within this of the median beat's P peak (s).
_P_JITTER_S = 0.03
#: Atrial flutter: the atria depolarise continuously at 240–350 /min (a cycle of 171–250 ms),
#: conducted to the ventricles at a fixed ratio of 2:1 to 4:1 ...
_FLUTTER_CYCLE_S = (60.0 / 350.0, 60.0 / 240.0)
_FLUTTER_RATIOS = (2, 3, 4)
#: ... so the stretch from the T wave's end to the QRS holds the same wave again one cycle
#: later: correlation at least this, at sizes within this share of each other, compared
#: over at least this much (s) of that stretch.
_FLUTTER_SIMILARITY = 0.9
_FLUTTER_SIZE = 0.8
_FLUTTER_MIN_COMPARED_S = 0.04
#: With a variable conduction ratio the RRs are 2, 3 or 4 flutter cycles, so the longest
#: exceed the shortest by a whole cycle: 4/3 or more (3:1 against 4:1), 5/4 where 5:1 is met,
#: less _FLUTTER_LAG_TOLERANCE.  The beats followed by RRs this much longer than the shortest
#: are then compared on their own (their diastole is long enough to hold repeated waves).
_VARIABLE_RR = 1.2
#: Where the diastole is shorter than one cycle, the flutter wave one cycle before the one
#: preceding the QRS lies in the T wave: the first this much (s) of the P wave is fitted there,
#: with a polynomial of this degree for the T wave (smooth over a P wave's span), at RR / 2,
#: 3 or 4 within this share, in each of these leads (the flutter waves' inferior and V1
#: leads); a partial correlation of at least this, at a size in _P_SIZE_RANGE, in every one
#: of them is the same wave again.
_FLUTTER_FIT_S = 0.08
_FLUTTER_FIT_DEGREE = 3
_FLUTTER_LAG_TOLERANCE = 0.05
_FLUTTER_LEADS = ("II", "III", "aVF", "V1")
_FLUTTER_PARTIAL = 0.4
#: V1 (the last of _FLUTTER_LEADS) votes only where its P stretch is measurable: its RMS
#: deviation from a straight line at least this many times the median beat's noise there.
_FLUTTER_MEASURABLE = 3.0
#: The T wave's return is sought, and flattens, within this (s).
_T_RETURN_S = 0.15
#: A lead's T wave is located only when it stands this share of the lead's QRS height off the
#: ST-to-TP line (a lower T wave is what readers call flat: its end cannot be placed).
_T_MIN_OF_QRS = 0.1
#: A ventricular pacing stimulus lies this close before R (s), at a place fixed within
#: _STIMULUS_JITTER_S for half the beats; the QRS boundaries ignore ±_STIMULUS_BLANK_S of it.
_STIMULUS_REACH_S = 0.25
_STIMULUS_JITTER_S = 0.01
_STIMULUS_BLANK_S = 0.02
_MIN_BEATS = 3
_DECIMALS = 1


@dataclass(frozen=True, slots=True)
class IntervalConfig:
    """Which leads may be analysed.

    ``lead_preference``: candidate analysis leads, in order.
    ``tolerated_flags``: quality flags that do not disqualify a lead (the
    filters remove them).  ``refuse_borderline_lead``: also disqualify leads
    with a borderline quality measure.
    """

    lead_preference: tuple[str, ...] = ("II",)
    tolerated_flags: tuple[str, ...] = ()
    refuse_borderline_lead: bool = True

    def __post_init__(self) -> None:
        preference = self.lead_preference
        if type(preference) is not tuple or not preference:
            raise InvalidArgument("lead_preference must be a non-empty tuple")
        if any(lead not in STANDARD_LEADS for lead in preference) or len(set(preference)) != len(
            preference
        ):
            raise InputRefused("lead_preference must list distinct standard lead names")
        if type(self.tolerated_flags) is not tuple or any(
            flag not in ecg_quality.FLAGS for flag in self.tolerated_flags
        ):
            raise InputRefused("tolerated_flags must be a tuple of quality flags")
        if type(self.refuse_borderline_lead) is not bool:
            raise InvalidArgument("refuse_borderline_lead must be a bool")


#: Conservative: lead II only, and only when its quality is clean (no flag, nothing borderline).
CONFIG_A = IntervalConfig()
#: Permissive: falls back through other leads with a dominant R wave, tolerates
#: baseline wander and mains interference (filtered out) and borderline measures.
CONFIG_B = IntervalConfig(
    lead_preference=("II", "aVF", "I", "V5", "V6"),
    tolerated_flags=("baseline_wander", "mains_interference"),
    refuse_borderline_lead=False,
)


# -- signal conditioning --------------------------------------------------------


def _bandpass(
    data: npt.NDArray[np.float64], fs: float, low: float, high: float, order: int
) -> npt.NDArray[np.float64]:
    from scipy import signal

    sos = ecg_quality.butter_sos(order, (low, high), "bandpass", fs)
    filtered: npt.NDArray[np.float64] = signal.sosfiltfilt(sos, data, axis=-1)
    return filtered


def _notch(lead: npt.NDArray[np.float64], fs: float) -> npt.NDArray[np.float64]:
    from scipy import signal

    for line in (50.0, 60.0):
        if line < 0.45 * fs:
            b, a = signal.iirnotch(line, 30.0, fs=fs)
            lead = signal.filtfilt(b, a, lead)
    return lead


def _eligible(quality: ecg_quality.LeadQuality, config: IntervalConfig) -> bool:
    if any(flag not in config.tolerated_flags for flag in quality.flags):
        return False
    return not (config.refuse_borderline_lead and quality.borderline)


# -- R peaks --------------------------------------------------------------------


def _velocity(leads: npt.NDArray[np.float64], fs: float) -> npt.NDArray[np.float64]:
    """Spatial velocity: the sum over leads of |slope| (per second), over 10 ms.

    High only in the QRS, whatever the ST level or a lead's baseline offset.
    """
    from scipy import ndimage

    velocity: npt.NDArray[np.float64] = ndimage.uniform_filter1d(
        np.abs(np.gradient(leads, axis=-1)).sum(axis=0) * fs, size=max(1, round(0.01 * fs))
    )
    return velocity


def _qrs_span(
    velocity: npt.NDArray[np.float64], floor: float, peak: int, fs: float, limit: int
) -> tuple[int, int] | None:
    """Where the QRS around the velocity ``peak`` begins and ends (samples), or ``None``.

    It ends, on either side of ``peak``, where the velocity has stayed within
    7 % of its peak above ``floor`` for 20 ms; searched up to ``limit`` samples away.
    """
    below = velocity <= floor + _QRS_VELOCITY_FRACTION * (float(velocity[peak]) - floor)
    run = max(2, round(0.02 * fs))
    onset = _quiet_run(below, peak - 1, max(-1, peak - limit), run)
    offset = _quiet_run(below, peak + 1, min(below.shape[0], peak + limit), run)
    if onset is None or offset is None:
        return None
    return onset, offset


def _r_peaks(
    peaks: npt.NDArray[np.int64],
    clean: npt.NDArray[np.float64],
    row: int,
    fs: float,
    stimuli: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    """R peaks: beats found on all delineation leads together, moved to the analysis lead's R.

    ``peaks`` are :func:`.ecg_quality.beat_times` of the delineation leads,
    ``clean`` the delineation leads filtered, ``row`` the analysis lead's.  A beat
    small on the analysis lead (an ectopic beat, a lead near the axis'
    perpendicular) is still found on the others.  The R wave is sought within
    80 ms of the beat *and inside its QRS* (where the spatial velocity of all
    leads is high, :func:`_qrs_span`), never on a pacing stimulus (±20 ms): in a
    wide QRS the window reaches past the complex, and a discordant ST segment or a
    stimulus can stand higher than a small r wave.
    """
    if peaks.size == 0:
        return np.zeros(0, dtype=np.int64)
    reach = round(0.08 * fs)
    lead = clean[row]
    velocity = _velocity(clean, fs)
    floor = float(np.quantile(velocity, 0.2))
    allowed = np.ones(lead.shape[0], dtype=bool)
    blank = round(_STIMULUS_BLANK_S * fs)
    for stimulus in stimuli:
        allowed[max(0, int(stimulus) - blank) : int(stimulus) + blank + 1] = False
    velocity = np.where(allowed, velocity, floor)
    spans = []
    for p in peaks:
        start, stop = max(0, int(p) - reach), min(lead.shape[0], int(p) + reach + 1)
        peak = start + int(np.argmax(velocity[start:stop]))
        span = _qrs_span(velocity, floor, peak, fs, round(0.25 * fs))
        if span is not None and max(start, span[0]) < min(stop, span[1] + 1):
            start, stop = max(start, span[0]), min(stop, span[1] + 1)
        spans.append((start, stop))
    windows = [np.where(allowed[a:b], lead[a:b], np.nan) for a, b in spans]
    windows = [
        w if np.isfinite(w).any() else lead[a:b] for w, (a, b) in zip(windows, spans, strict=True)
    ]
    # The R wave is the positive deflection; only a lead whose QRS is essentially
    # negative (a QS complex) is followed on its negative peak instead.
    positive = float(np.median([np.nanmax(w) for w in windows]))
    negative = float(np.median([-np.nanmin(w) for w in windows]))
    polarity = 1.0 if positive >= 0.2 * negative else -1.0
    refined = [
        a + int(np.nanargmax(polarity * w)) for w, (a, _b) in zip(windows, spans, strict=True)
    ]
    unique = np.unique(np.asarray(refined, dtype=np.int64))
    # Two detections refined onto nearby samples: keep the larger deflection.
    kept: list[int] = []
    for index in unique:
        if kept and index - kept[-1] < round(_REFRACTORY_S * fs):
            if polarity * lead[index] > polarity * lead[kept[-1]]:
                kept[-1] = int(index)
            continue
        kept.append(int(index))
    return np.asarray(kept, dtype=np.int64)


# -- delineation ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Template:
    """Median beats (leads × samples) with the R peak at index ``r``, and the beats themselves.

    ``each`` holds every aligned beat (leads × beats × samples), for checking
    that a wave of the median beat is present beat by beat; ``earlier`` the
    median beats of II, III, aVF and V1 reaching ``reach`` samples further back
    (one flutter cycle), over the beats that have them (``None``: one of those
    leads is not delineated, or fewer than three beats have them), and
    ``atrial_rows`` those leads' rows in ``beats`` and ``each``.
    """

    beats: npt.NDArray[np.float64]
    r: int
    fs: float
    each: npt.NDArray[np.float64]
    earlier: npt.NDArray[np.float64] | None = None
    reach: int = 0
    atrial_rows: tuple[int, ...] = ()


def _template(
    leads: npt.NDArray[np.float64],
    peaks: npt.NDArray[np.int64],
    rr_s: float,
    fs: float,
    flutter_rows: tuple[int, ...] | None = None,
) -> _Template | None:
    pre = round(min(0.40, 0.6 * rr_s) * fs)
    post = round(min(0.70, 0.9 * rr_s) * fs)
    usable = peaks[(peaks - pre >= 0) & (peaks + post < leads.shape[1])]
    if usable.size < _MIN_BEATS:
        return None
    index = usable[:, None] + np.arange(-pre, post + 1)[None, :]
    each = leads[:, index]
    reach = math.ceil(_FLUTTER_CYCLE_S[1] * fs)
    room = usable[usable - pre - reach >= 0]
    earlier = None
    if flutter_rows is not None and room.size >= _MIN_BEATS:
        back = room[:, None] + np.arange(-pre - reach, post + 1)[None, :]
        earlier = np.median(leads[list(flutter_rows)][:, back], axis=1)
    return _Template(
        beats=np.median(each, axis=1),
        r=pre,
        fs=fs,
        each=each,
        earlier=earlier,
        reach=reach,
        atrial_rows=() if earlier is None or flutter_rows is None else flutter_rows,
    )


def _lead_t_end(
    lead: npt.NDArray[np.float64], j: int, t_from: int, t_to: int, last: int, fs: float
) -> tuple[float, float] | None:
    """One lead's T offset (trapezium-area method) and its T amplitude, or ``None``.

    The T peak is the largest deviation within ``[t_from, t_to]`` from the
    straight line joining the lead's level at the J point ``j`` (QRS offset) to
    its level at ``t_to`` (so an ST segment above or below the baseline is not
    taken for the T wave); the steepest point of the T wave's return after it
    is found within 150 ms and by ``t_to`` (so the next P wave's descent is
    not taken for it); the T offset is where the trapezium between that
    point, the signal and a point 150 ms further has the largest area (Vázquez-
    Seisdedos et al. 2011) -- where the return flattens, whatever the level it
    returns to.
    """
    if t_to - t_from < 2 or t_from <= j:
        return None
    segment = lead[j : t_to + 1]
    line = np.linspace(float(segment[0]), float(segment[-1]), segment.shape[0])
    deviation = (segment - line)[t_from - j :]
    peak_at = int(np.argmax(np.abs(deviation)))
    amplitude = float(abs(deviation[peak_at]))
    polarity = 1.0 if deviation[peak_at] > 0 else -1.0
    peak = t_from + peak_at
    reach = round(_T_RETURN_S * fs)
    stop = min(t_to, peak + reach)
    if stop - peak < 3:
        return None
    fall = -polarity * np.gradient(lead[peak : stop + 1])
    steepest = peak + int(np.argmax(fall))
    if fall[steepest - peak] <= 0.0:
        return None
    right = min(last, steepest + reach)
    if right - steepest < 2:
        return None
    xi = np.arange(steepest, right + 1)
    area = polarity * (lead[steepest] - lead[xi]) * (2 * right - xi - steepest)
    return float(steepest + int(np.argmax(area))), amplitude


def _t_end(
    beats: npt.NDArray[np.float64],
    qrs: tuple[float, float],
    t_from: int,
    t_to: int,
    fs: float,
) -> tuple[float | None, str | None]:
    """T offset of the median beats: the median of the leads' own T offsets, or why there is none.

    Each lead whose T wave stands at least a tenth of its QRS height off the
    ST-to-TP line gives its T offset (:func:`_lead_t_end`); the median of those
    is robust to the few leads whose T wave ends early or late (a U wave, a lead
    near the T axis' perpendicular).  No such lead: ``wave_too_small`` when T
    waves were seen but all are flat, else ``not_found``.
    """
    if t_to - t_from < round(0.04 * fs):
        return None, "not_found"
    qrs_on, qrs_off = math.floor(qrs[0]), math.ceil(qrs[1])
    last = beats.shape[1] - 1
    ends: list[float] = []
    seen = False
    for lead in beats:
        found = _lead_t_end(lead, qrs_off, t_from, t_to, last, fs)
        if found is None:
            continue
        seen = True
        if found[1] >= _T_MIN_OF_QRS * float(np.ptp(lead[qrs_on : qrs_off + 1])):
            ends.append(found[0])
    if not ends:
        return None, ("wave_too_small" if seen else "not_found")
    return float(np.median(ends)), None


def _quiet_run(below: npt.NDArray[np.bool_], start: int, stop: int, run: int) -> int | None:
    """First index from ``start`` towards ``stop`` (exclusive) that begins ``run`` quiet samples.

    "Begins" is in the direction of the search: scanning backwards, the run
    extends backwards from the index returned.
    """
    step = 1 if stop > start else -1
    for index in range(start, stop, step):
        end = index + step * (run - 1)
        if not 0 <= end < below.shape[0]:
            return None
        low, high = min(index, end), max(index, end)
        if below[low : high + 1].all():
            return index
    return None


def _qrs_bounds(
    beats: npt.NDArray[np.float64], r: int, fs: float, stimulus: int | None = None
) -> tuple[float, float] | None:
    """QRS onset and offset (samples) on the spatial velocity of the median beats.

    The spatial velocity (the sum over leads of |slope|, over 10 ms) is high only
    in the QRS, whatever the ST level or a lead's baseline offset: the QRS ends,
    on either side of its fastest point near R, where the velocity has stayed
    within 7 % of its QRS peak above the recording's quiet level (the template's
    20th percentile) for 20 ms.  Searched up to 250 ms either side of R.  A
    pacing stimulus at index ``stimulus`` is no part of the QRS (readers start a
    paced QRS after it): the velocity within 20 ms of it counts as quiet.
    """
    velocity = _velocity(beats, fs)
    floor = float(np.quantile(velocity, 0.2))
    if stimulus is not None:
        blank = round(_STIMULUS_BLANK_S * fs)
        velocity[max(0, stimulus - blank) : max(0, stimulus + blank + 1)] = floor
    reach = round(0.06 * fs)
    low = max(0, r - reach)
    peak = low + int(np.argmax(velocity[low : r + reach + 1]))
    below = velocity <= floor + _QRS_VELOCITY_FRACTION * (float(velocity[peak]) - floor)
    run = max(2, round(0.02 * fs))
    span = round(0.25 * fs)
    onset = _quiet_run(below, peak - 1, max(-1, r - span), run)
    offset = _quiet_run(below, peak + 1, min(below.shape[0], r + span), run)
    if onset is None or offset is None:
        return None
    return float(onset), float(offset)


def _p_onset(template: _Template, start: int, qrs_on: int, qrs_height: float) -> float | None:
    """P onset (fractional sample) in ``[start, qrs_on)``, or ``None`` when there is no P wave.

    Each lead's baseline is the straight line from its level at ``start`` (after
    the previous T wave) to its level at QRS onset, so a PR segment standing
    apart from the TP segment moves no boundary.  The P wave is the largest
    deflection from that line ending 20 ms before the QRS; its onset is where it
    falls to half its height, moved along the tangent there to its floor.  It
    is a P wave only if it stands 3 % of the QRS height above its floor, falls
    back under half its height before the QRS within 120 ms of rising above it
    (a wave, not a step or a drift), stands alone (the stretch before it stays
    under half its height: flutter waves do not), rises from at least 10 ms of
    quiet baseline (in 2:1 flutter the wave locked to the QRS rises straight
    out of the T wave), is there beat by beat (the median correlation of each
    beat's P stretch with the median one is at least 0.5: fibrillation waves
    are not) and keeps a fixed relation to the QRS (:func:`_fixed_beat_by_beat`).
    """
    fs, beats = template.fs, template.beats
    width = max(1, round(0.01 * fs))
    stop = qrs_on - round(0.02 * fs)
    if stop - start < round(0.04 * fs) or start + width > qrs_on or qrs_on - width < 0:
        return None
    before = beats[:, start : start + width].mean(axis=1)
    after = beats[:, qrs_on - width : qrs_on].mean(axis=1)
    ramp = np.linspace(0.0, 1.0, qrs_on - start)
    baseline = before[:, None] + (after - before)[:, None] * ramp[None, :]
    envelope = np.abs(beats[:, start:qrs_on] - baseline).sum(axis=0)
    peak = int(np.argmax(envelope[: stop - start]))
    floor = float(envelope[: peak + 1].min())
    height = float(envelope[peak]) - floor
    if height <= 0.0 or height < _P_MIN_OF_QRS * qrs_height:
        return None
    if float(envelope[peak:].min()) - floor > 0.5 * height:
        return None  # no return towards the baseline before the QRS: not a wave
    half = envelope <= floor + 0.5 * height
    crossing = peak - int(np.argmax(half[: peak + 1][::-1]))
    if peak + int(np.argmax(half[peak:])) - crossing > round(_P_MAX_HALF_WIDTH_S * fs):
        return None  # wider at half height than any P wave: a drift, not a wave
    lead_in = crossing - round(0.04 * fs)
    if lead_in > 0 and float(envelope[:lead_in].max()) - floor >= 0.5 * height:
        return None  # atrial activity before the P wave too: no single P wave
    half_width = max(peak - crossing, 1)
    wave = (start + max(0, crossing - half_width), start + min(stop - start, peak + half_width))
    if not _present_beat_by_beat(template, *wave):
        return None
    if not _fixed_beat_by_beat(template, start, qrs_on, stop, start + peak):
        return None
    h = max(1, round(0.01 * fs))
    onset = float(crossing)
    if h <= crossing < envelope.shape[0] - h:
        slope = float(envelope[crossing + h] - envelope[crossing - h]) / (2 * h)
        if slope > 0.0:
            onset -= min((float(envelope[crossing]) - floor) / slope, 0.06 * fs)
    if onset < _P_LEAD_IN_S * fs:
        return None  # no quiet baseline before it: it goes on from the T wave (flutter)
    return start + onset


def _fixed_beat_by_beat(template: _Template, start: int, qrs_on: int, stop: int, peak: int) -> bool:
    """Whether each beat's own largest atrial deflection lies where the median beat's P peaks.

    A P wave conducted to the ventricles keeps a fixed relation to each QRS; the
    largest deflection of fibrillation waves before each QRS wanders from beat
    to beat.  Each beat's deflection is measured from its own straight baseline
    like the median beat's; half the beats or more must peak within 30 ms of
    the median beat's P peak (a broad P wave's top jitters by a few tens of ms).
    """
    fs = template.fs
    width = max(1, round(0.01 * fs))
    each = template.each[:, :, start:qrs_on]
    before = each[:, :, :width].mean(axis=2)
    after = each[:, :, -width:].mean(axis=2)
    ramp = np.linspace(0.0, 1.0, qrs_on - start)
    baseline = before[:, :, None] + (after - before)[:, :, None] * ramp[None, None, :]
    envelope = np.abs(each - baseline).sum(axis=0)[:, : stop - start]
    peaks = start + np.argmax(envelope, axis=1)
    return float(np.median(np.abs(peaks - peak))) <= _P_JITTER_S * fs


def _present_beat_by_beat(template: _Template, first: int, last: int) -> bool:
    """Whether the median beat's wave in ``[first, last)`` is seen in the beats themselves.

    A conducted P wave precedes every QRS, with the same shape and size: a beat
    shows it when its stretch correlates with the median one at least 0.5 and
    its least-squares size is within half to twice the median wave's.  Four
    beats of five must (one may be ectopic or noisy); a deflection recurring
    before some of the QRS complexes only (atrial fibrillation waves falling
    there by chance) is no P wave.
    """
    if last - first < 3:
        return False
    median = template.beats[:, first:last]
    median = median - median.mean(axis=1, keepdims=True)
    each = template.each[:, :, first:last]
    each = each - each.mean(axis=2, keepdims=True)
    energy = float((median**2).sum())
    norms = np.sqrt((each**2).sum(axis=(0, 2))) * math.sqrt(energy)
    if not np.all(norms > 0.0):
        return False
    projection = np.einsum("lbs,ls->b", each, median)
    correlation, size = projection / norms, projection / energy
    low, high = _P_SIZE_RANGE
    present = (correlation >= _P_CONSISTENCY) & (size >= low) & (size <= high)
    return float(present.mean()) >= _P_PRESENT_SHARE


def _flutter_waves(
    template: _Template, qrs_on: float, t_end: float, rr_s: float, previous: bool = True
) -> bool:
    """Whether the stretch from the T wave's end to the QRS repeats itself one flutter cycle on.

    In sinus rhythm that stretch is isoelectric but for one P wave.  In atrial
    flutter the atria depolarise continuously at 240–350 /min, and with a fixed
    conduction ratio (2:1 to 4:1) every flutter wave is locked to the QRS, so
    the median beat keeps them all: the stretch then holds the same wave, at
    the same size, again one atrial cycle (RR / ratio) later, and the wave
    before the QRS passes every P wave rule.  Samples one cycle apart, both in
    that stretch (after this beat's T wave or, with ``previous``, the previous
    beat's), are compared over all leads: a correlation of at least 0.9 with
    sizes within 0.8 of each other is flutter.
    """
    fs, beats = template.fs, template.beats
    rr = rr_s * fs
    on, end = qrs_on - 0.01 * fs, t_end + 0.02 * fs
    index = np.arange(beats.shape[1])
    diastole = (index > end) & (index < on + rr)
    if previous:
        diastole |= (index > end - rr) & (index < on)
    low, high = _FLUTTER_CYCLE_S
    for ratio in _FLUTTER_RATIOS:
        lag = round(rr / ratio)
        if not low * fs <= lag <= high * fs:
            continue
        pairs = diastole[:-lag] & diastole[lag:]
        if pairs.sum() < _FLUTTER_MIN_COMPARED_S * fs:
            continue
        first, later = beats[:, :-lag][:, pairs], beats[:, lag:][:, pairs]
        first = first - first.mean(axis=1, keepdims=True)
        later = later - later.mean(axis=1, keepdims=True)
        sizes = math.sqrt(float((first**2).sum())), math.sqrt(float((later**2).sum()))
        if min(sizes) <= 0.0:
            continue
        similarity = float((first * later).sum()) / (sizes[0] * sizes[1])
        if similarity >= _FLUTTER_SIMILARITY and min(sizes) >= _FLUTTER_SIZE * max(sizes):
            return True
    return False


def _flutter_wave_in_t(
    template: _Template, p_on: float, qrs: tuple[float, float], rr_s: float
) -> bool:
    """Whether the P wave recurs, at its size, one flutter cycle earlier inside the T wave.

    With a fixed conduction ratio and a diastole shorter than one flutter cycle
    (3:1 with a long QT, 2:1 at fast rates) the flutter wave before the one
    that precedes the QRS lies in the T wave, so :func:`_flutter_waves` has no
    diastole to compare.  The T wave is smooth over a P wave's span, where a
    flutter wave's fast phase is not: in each of II, III, aVF and V1
    (``template.earlier``) the stretch one cycle (RR / 2, 3 or 4, ±5 %, within
    171–250 ms) before the P wave's first 80 ms is fitted by least squares on
    that P stretch and a cubic in time.  A partial correlation of at least 0.4 with a coefficient
    of half to twice (the same wave, the same size) in every one of those leads
    is continuous atrial activity.  A sinus P wave's shape one cycle earlier,
    in the same leads and at its size, is not found in the T wave.

    Only the T wave is smooth: a stretch reaching back into the previous QRS
    (before its offset, ``qrs[1]`` − RR) is not compared, since no cubic
    absorbs the end of a QRS and what is left of it resembles any wave.  V1
    votes only where its P stretch is measurable (:func:`_measurable`): flutter
    waves drawn nearly perpendicular to V1 leave nothing there but noise, and a
    fit of noise says nothing either way; II, III and aVF always vote.
    """
    earlier, fs = template.earlier, template.fs
    if earlier is None:
        return False
    qrs_on, qrs_off = qrs
    start = round(p_on)
    first = start + template.reach
    last = min(math.floor(qrs_on - 0.01 * fs), round(p_on + _FLUTTER_FIT_S * fs)) + template.reach
    if last - first < round(0.04 * fs):
        return False
    voting = [True] * (len(_FLUTTER_LEADS) - 1)
    voting.append(_measurable(template, template.atrial_rows[-1], start, math.floor(qrs_on)))
    earlier = earlier[voting]
    basis, _ = np.linalg.qr(
        np.vander(np.linspace(-1.0, 1.0, last - first), _FLUTTER_FIT_DEGREE + 1)
    )
    wave = earlier[:, first:last]
    wave = wave - (wave @ basis) @ basis.T
    own = (wave**2).sum(axis=1)
    if not np.all(own > 0.0):
        return False
    low, high = _FLUTTER_CYCLE_S
    lags = {
        lag
        for ratio in _FLUTTER_RATIOS
        for lag in range(
            round(rr_s / ratio * (1.0 - _FLUTTER_LAG_TOLERANCE) * fs),
            round(rr_s / ratio * (1.0 + _FLUTTER_LAG_TOLERANCE) * fs) + 1,
        )
        if low * fs <= lag <= high * fs
    }
    previous_qrs_off = qrs_off - rr_s * fs
    for lag in sorted(lags):
        if start - lag < previous_qrs_off:
            continue  # the stretch reaches back into the previous QRS
        stretch = earlier[:, first - lag : last - lag]
        stretch = stretch - (stretch @ basis) @ basis.T
        shared = (wave * stretch).sum(axis=1)
        spread = np.sqrt(own * (stretch**2).sum(axis=1))
        if not np.all(spread > 0.0):
            continue
        partial, size = shared / spread, shared / own
        same = (
            (partial >= _FLUTTER_PARTIAL) & (size >= _P_SIZE_RANGE[0]) & (size <= _P_SIZE_RANGE[1])
        )
        if bool(same.all()):
            return True
    return False


def _flutter_wave_hidden(p_on: float, qrs_off: float, rr_s: float, fs: float) -> bool:
    """Whether a flutter wave one cycle before the P wave would lie in the previous QRS.

    A regular tachycardia (RRs not varying by whole flutter cycles: where they
    do, the previous QRS has no fixed place and :func:`_longest_rr_beats`
    applies) with one P-like wave per QRS is, in the median beat,
    sinus rhythm or atrial flutter conducted at a fixed ratio whose other waves
    fall where nothing can be seen ("2:1 flutter until proven otherwise"): for a
    ratio (2, 3 or 4) whose cycle RR / ratio is a flutter cycle (171–250 ms),
    the stretch one cycle before the P wave's onset begins before the previous
    QRS's offset (``qrs_off`` − RR), which :func:`_flutter_wave_in_t` cannot
    compare.  That flutter is then neither seen nor excluded.
    """
    low, high = _FLUTTER_CYCLE_S
    previous_qrs_off = qrs_off - rr_s * fs
    return any(
        low <= rr_s / ratio <= high and p_on - rr_s / ratio * fs < previous_qrs_off
        for ratio in _FLUTTER_RATIOS
    )


def _measurable(template: _Template, row: int, first: int, last: int) -> bool:
    """Whether lead ``row``'s median beat holds a wave in ``[first, last)`` above its noise.

    The stretch's deviation from its least-squares straight line (RMS) against
    the median beat's noise there: the beats' spread about the median, each
    beat's own straight line removed (1.4826 × the median absolute deviation),
    shrunk as the median of that many beats is (1.2533 / √beats).  At least 3
    times that noise: a wave is seen.
    """
    if last - first < 3:
        return False
    basis, _ = np.linalg.qr(np.vander(np.linspace(-1.0, 1.0, last - first), 2))
    median = template.beats[row, first:last]
    wave = median - basis @ (basis.T @ median)
    spread = template.each[row, :, first:last] - median[None, :]
    spread = spread - (spread @ basis) @ basis.T
    noise = 1.2533 * 1.4826 * float(np.median(np.abs(spread))) / math.sqrt(spread.shape[0])
    return float(np.sqrt(np.mean(wave**2))) >= _FLUTTER_MEASURABLE * noise


def _rr_varies(rr: npt.NDArray[np.float64]) -> bool:
    """Whether the RRs vary by whole flutter cycles: the third longest at least 1.2 × the third
    shortest (a steady rhythm, sinus or flutter at a fixed ratio, varies less)."""
    if rr.size < _MIN_BEATS:
        return False
    ordered = np.sort(rr)
    return float(ordered[-_MIN_BEATS]) >= _VARIABLE_RR * float(ordered[_MIN_BEATS - 1])


def _longest_rr_beats(
    leads: npt.NDArray[np.float64],
    peaks: npt.NDArray[np.int64],
    rr: npt.NDArray[np.float64],
    seen: npt.NDArray[np.bool_],
    fs: float,
) -> tuple[_Template, float] | None:
    """The median beat of the beats followed by the longest RRs, and their RR (s), or ``None``.

    With a variable conduction ratio (2:1 to 4:1 beat to beat) the RRs are
    whole numbers of flutter cycles: the typical RR need not be one of them
    (the median may fall between 3 and 4 cycles), and the previous beat's T
    wave moves about in the median beat.  The beats followed by the longest RRs
    (within 5 % of the third longest) have a long diastole after their T wave,
    where the flutter waves, locked to their QRS, repeat one cycle on
    (:func:`_flutter_waves`, after the T wave only: the RR before those beats
    varies).  ``None`` where the third longest RR is under 1.2 × the third
    shortest (a steady rhythm: the median beat already shows it).
    """
    usable = rr[seen]
    if not _rr_varies(usable):
        return None
    longest = float(np.sort(usable)[-_MIN_BEATS])
    chosen = seen & (rr >= (1.0 - _FLUTTER_LAG_TOLERANCE) * longest)
    long_rr = float(np.median(rr[chosen]))
    template = _template(leads, peaks[:-1][chosen], long_rr, fs)
    return None if template is None else (template, long_rr)


def _paced(stimuli: npt.NDArray[np.int64], peaks: npt.NDArray[np.int64], fs: float) -> int | None:
    """How many samples before R a ventricular pacing stimulus lies, or ``None`` (not paced).

    The last stimulus (:func:`.ecg_quality.stimulus_times`) within 250 ms before
    each R peak; the beats are paced when half of them or more have one, at a
    place fixed within 10 ms (the pacemaker's stimulus-to-QRS delay is fixed).
    """
    if stimuli.size == 0 or peaks.size == 0:
        return None
    reach = round(_STIMULUS_REACH_S * fs)
    before = []
    for peak in peaks:
        near = stimuli[(stimuli <= peak) & (stimuli >= peak - reach)]
        if near.size:
            before.append(int(peak - near[-1]))
    if 2 * len(before) < peaks.size:
        return None
    delay = float(np.median(before))
    jitter = float(np.median(np.abs(np.asarray(before) - delay)))
    return round(delay) if jitter <= _STIMULUS_JITTER_S * fs else None


def _delineate(
    template: _Template,
    rr_s: float,
    stimulus: int | None = None,
    longest: tuple[_Template, float] | None = None,
    regular: bool = True,
) -> tuple[dict[str, float | None], dict[str, str]]:
    """PR / QRS / QT candidates (ms) of the median beats, and why a missing one is missing.

    ``regular``: the RRs do not vary by whole flutter cycles (:func:`_rr_varies`).
    """
    fs, r, beats = template.fs, template.r, template.beats
    none: tuple[dict[str, float | None], dict[str, str]] = (
        {"pr_ms": None, "qrs_ms": None, "qt_ms": None},
        {},
    )
    width = max(2, round(0.02 * fs))
    iso_from, iso_to = max(0, r - round(0.16 * fs)), r - round(0.03 * fs)
    if iso_to - iso_from <= width:
        return none
    # Isoelectric level per lead: the flattest 20 ms shortly before the R peak (PR segment).
    slope = np.abs(np.gradient(beats[:, iso_from:iso_to], axis=1)).sum(axis=0)
    iso_start = iso_from + int(np.argmin(np.convolve(slope, np.ones(width), mode="valid")))
    iso = beats[:, iso_start : iso_start + width].mean(axis=1)
    envelope = np.abs(beats - iso[:, None]).sum(axis=0)
    last = envelope.shape[0] - 1

    reach = round(0.04 * fs)
    qrs_peak = max(0, r - reach) + int(np.argmax(envelope[max(0, r - reach) : r + reach + 1]))
    bounds = _qrs_bounds(beats, r, fs, None if stimulus is None else r - stimulus)
    if bounds is None:
        return none
    qrs_on, qrs_off = bounds
    ms = 1000.0 / fs

    t_from = math.ceil(qrs_off) + round(0.04 * fs)
    t_to = min(last, r + round((0.85 * rr_s - 0.1) * fs))
    t_end, t_reason = _t_end(beats, (qrs_on, qrs_off), t_from, t_to, fs)

    p_from = max(0, math.floor(qrs_on) - round(0.30 * fs))
    if t_end is not None:
        p_from = max(p_from, round(t_end - rr_s * fs + 0.02 * fs))
    p_on = _p_onset(template, p_from, math.floor(qrs_on), float(envelope[qrs_peak]))
    if p_on is not None and t_end is not None and _flutter_waves(template, qrs_on, t_end, rr_s):
        p_on = None  # locked flutter waves: the wave before the QRS is one of them
    if p_on is not None and _flutter_wave_in_t(template, p_on, (qrs_on, qrs_off), rr_s):
        p_on = None  # the same wave one flutter cycle earlier, inside the T wave
    if p_on is not None and t_end is not None and longest is not None:
        long_template, long_rr = longest
        shift = long_template.r - r
        if _flutter_waves(long_template, qrs_on + shift, t_end + shift, long_rr, previous=False):
            p_on = None  # variable conduction: the long diastoles repeat themselves
    reasons: dict[str, str] = {"qt_ms": t_reason} if t_reason else {}
    if p_on is not None and regular and _flutter_wave_hidden(p_on, qrs_off, rr_s, fs):
        p_on = None  # sinus rhythm or flutter whose other wave lies in the previous QRS
        reasons["pr_ms"] = "atrial_rhythm_undetermined"
    found = {
        "pr_ms": None if p_on is None else (qrs_on - p_on) * ms,
        "qrs_ms": (qrs_off - qrs_on) * ms,
        "qt_ms": None if t_end is None else (t_end - qrs_on) * ms,
    }
    return found, reasons


# -- the component --------------------------------------------------------------


def _empty(lead: str | None, fs: float) -> dict[str, Any]:
    return {
        "analysis_lead": lead,
        "sampling_rate_hz": round(fs, 3),
        "r_peaks": [],
        "rr_ms": [],
        "heart_rate_bpm": None,
        "candidates": {"pr_ms": None, "qrs_ms": None, "qt_ms": None},
        "null_reasons": {"pr_ms": None, "qrs_ms": None, "qt_ms": None},
        "delineation_leads": [],
        "candidate_leads": {"pr_ms": 0, "qrs_ms": 0, "qt_ms": 0},
    }


def _abstain(reason: str, lead: str | None, fs: float) -> ComponentOutput:
    return ComponentOutput(output=_empty(lead, fs), abstained=True, abstain_reason=reason)


def _checked(
    found: Mapping[str, float | None], rr_ms: float, missing: Mapping[str, str] | None = None
) -> tuple[dict[str, float | None], dict[str, str | None]]:
    """Null every candidate that is not physiologically possible, saying why.

    A consistency check, never a clamp: a value outside its documented range is
    ``out_of_range``; a QT reaching 0.9 × the typical RR, or a PR + QT reaching
    the RR (the P wave would start before the previous T wave ends), is
    ``inconsistent_with_rr``; PR and QT are both measured from the QRS onset, so
    when the QRS is not possible they are ``depends_on_qrs``.  A candidate that
    was not measured is ``not_found`` unless ``missing`` says why (``wave_too_small``).
    """
    values: dict[str, float | None] = {}
    reasons: dict[str, str | None] = {}
    for name in _INTERVALS:
        value = found[name]
        low, high = PLAUSIBLE_MS[name]
        if value is None or not math.isfinite(value):
            values[name], reasons[name] = None, (missing or {}).get(name, "not_found")
        elif not low <= value <= high:
            values[name], reasons[name] = None, "out_of_range"
        else:
            values[name], reasons[name] = value, None
    if values["qrs_ms"] is None:
        for name in ("pr_ms", "qt_ms"):
            if values[name] is not None:
                values[name], reasons[name] = None, "depends_on_qrs"
    qt, pr = values["qt_ms"], values["pr_ms"]
    if qt is not None and qt >= MAX_QT_OF_RR * rr_ms:
        values["qt_ms"], reasons["qt_ms"] = None, "inconsistent_with_rr"
    elif qt is not None and pr is not None and pr + qt >= rr_ms:
        values["pr_ms"], reasons["pr_ms"] = None, "inconsistent_with_rr"
    rounded = {k: (None if v is None else round(v, _DECIMALS)) for k, v in values.items()}
    return rounded, reasons


def analyse_waveform(waveform: Waveform, config: IntervalConfig = CONFIG_A) -> ComponentOutput:
    """The component on an already decoded recording."""
    fs = waveform.sampling_rate_hz
    if fs < ecg_quality.MIN_SAMPLING_RATE_HZ:
        return _abstain("sampling_rate_too_low", None, fs)
    if waveform.duration_s < ecg_quality.MIN_DURATION_S:
        return _abstain("recording_too_short", None, fs)
    quality: Mapping[str, ecg_quality.LeadQuality] = ecg_quality.assess_leads(waveform)
    eligible = [name for name in waveform.lead_names if _eligible(quality[name], config)]
    lead = next((name for name in config.lead_preference if name in eligible), None)
    if lead is None:
        return _abstain("no_usable_analysis_lead", None, fs)
    # Delineation uses the analysis lead and every lead without any flag.
    used = [name for name in eligible if name == lead or not quality[name].flags]
    rows = [waveform.lead_names.index(name) for name in used]
    clean = _bandpass(waveform.samples[rows], fs, 0.5, 40.0, 2)
    mains_borderline = ecg_quality.CONFIG_A.band("mains_interference")[0]
    for position, name in enumerate(used):
        if quality[name].measures["mains_interference"] >= mains_borderline:
            clean[position] = _notch(clean[position], fs)
    # A beat inside a dropout of the analysis lead has no R peak on it: it is not
    # listed, and an interval spanning a dropout may hide beats: it is listed,
    # but the heart rate is taken over the intervals that span none.
    beats = ecg_quality.beat_times(waveform.samples, fs)
    flat = ecg_quality.dropout_mask(waveform.samples, waveform.lead_names.index(lead), fs, beats)
    fused = beats if len(used) == len(waveform.lead_names) else None
    if fused is None:
        fused = ecg_quality.beat_times(waveform.samples[rows], fs)
    stimuli = ecg_quality.stimulus_times(waveform.samples[rows], fs)
    peaks = _r_peaks(fused, clean, used.index(lead), fs, stimuli)
    peaks = peaks[~flat[peaks]]
    if peaks.size < _MIN_BEATS:
        return _abstain("too_few_beats", lead, fs)
    rr = np.diff(peaks) / fs
    flat_before = np.concatenate(([0], np.cumsum(flat)))
    seen = flat_before[peaks[1:]] == flat_before[peaks[:-1]]
    if int(seen.sum()) < _MIN_BEATS - 1:
        return _abstain("too_few_beats", lead, fs)
    rate = 60.0 / float(rr[seen].mean())
    if not _RATE_RANGE_BPM[0] <= rate <= _RATE_RANGE_BPM[1]:
        return _abstain("rate_out_of_range", lead, fs)
    typical_rr = float(np.median(rr[seen]))
    atrial = tuple(used.index(name) for name in _FLUTTER_LEADS if name in used)
    flutter_rows = atrial if len(atrial) == len(_FLUTTER_LEADS) else None
    template = _template(clean, peaks, typical_rr, fs, flutter_rows)
    found: dict[str, float | None] = {"pr_ms": None, "qrs_ms": None, "qt_ms": None}
    missing: dict[str, str] = {}
    if template is not None:
        longest = _longest_rr_beats(clean, peaks, rr, seen, fs)
        regular = not _rr_varies(rr[seen])
        found, missing = _delineate(
            template, typical_rr, _paced(stimuli, peaks, fs), longest, regular
        )
    candidates, reasons = _checked(found, typical_rr * 1000.0, missing)
    output = {
        "analysis_lead": lead,
        "sampling_rate_hz": round(fs, 3),
        "r_peaks": [int(p) for p in peaks],
        "rr_ms": [round(float(v) * 1000.0, _DECIMALS) for v in rr],
        "heart_rate_bpm": round(rate, _DECIMALS),
        "candidates": candidates,
        "null_reasons": reasons,
        "delineation_leads": used,
        # Every candidate rests on the median beat of all delineation leads.
        "candidate_leads": {k: (0 if v is None else len(used)) for k, v in candidates.items()},
    }
    return ComponentOutput(output=output)


def run(asset: bytes, config: IntervalConfig = CONFIG_A) -> ComponentOutput:
    """Detect beats and interval candidates on one ECG carrier (JSON waveform or DICOM ECG)."""
    check_asset(asset)
    if type(config) is not IntervalConfig:
        raise InvalidArgument("config must be an IntervalConfig")
    return analyse_waveform(read_waveform(asset), config)
