"""ecg_intervals reports no PR on atrial flutter conducted at a fixed ratio.

Issue 27: with 2:1 to 4:1 locked conduction every flutter wave keeps its place
relative to the QRS, so the median beat keeps them all, and the wave just
before the QRS passed every P-wave rule: PR was reported on 20 of 64 generated
flutter sources (seeds 100-163).  The atria of flutter depolarise continuously
at 240-350 /min, so the stretch from the T wave's end to the QRS holds the same
wave again one atrial cycle (RR / ratio) later, where sinus rhythm holds one P
wave on an isoelectric line.  Where it does, PR is ``null`` (``not_found``).
The sources below are those of the generator's flutter (a sawtooth at
250-350 /min) that reported a PR before the rule, one 3:1 and one 4:1 at each
sampling rate; at 2:1 the flutter wave before the QRS rises straight out of the
T wave, which the P wave's quiet lead-in already refuses.

Where the diastole is shorter than one flutter cycle (3:1 with a long QT, 2:1
at fast rates) the flutter wave one cycle before the one preceding the QRS
lies inside the T wave, and there was no diastole to compare: PR was reported.
The T wave is smooth over a P wave's span, a flutter wave is not: fitted with
a cubic for the T wave, the P wave recurs there at its size in II, III, aVF
and V1, and PR is ``null`` (``not_found``).  A sinus P wave does not recur in
the T wave, at any rate up to 180 bpm.

Where the generator draws the flutter waves nearly perpendicular to V1, V1
holds nothing but noise before the QRS, its fit could never match, and PR
was reported (2:1 at 250 Hz among them).  V1 now votes only where its P
stretch stands out of the median beat's noise; II, III and aVF always vote.
Without V1, the end of the previous QRS (which no cubic absorbs) matched a
fast sinus P wave in the inferior leads: the stretch one cycle earlier is
now compared only when it lies clear of the previous QRS.

Where that stretch lies in the previous QRS for a ratio whose cycle (RR / 2, 3
or 4) is a flutter cycle, nothing in the median beat tells flutter from sinus
rhythm: a locked 2:1 flutter at 152 bpm and 250 Hz reported a PR.  PR is then
``null`` with ``atrial_rhythm_undetermined``, for sinus tachycardia too (at
about 130-175 bpm); at slower rates sinus rhythm keeps its PR.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pytest

from pytest_openmed.components import ecg_intervals
from pytest_openmed.development.sources.ecg import (
    SyntheticECG,
    generate_ecg_intervals,
    synthesise_ecg,
    waveform_json,
)

from ._atrial import assert_sinus_pr

CONFIGS = {"A": ecg_intervals.CONFIG_A, "B": ecg_intervals.CONFIG_B}
#: (seed, sampling rate, conduction ratio) of generated flutter with a fixed conduction ratio.
LOCKED_FLUTTER = [
    (112, 250.0, 3),
    (104, 250.0, 4),
    (121, 360.0, 3),
    (157, 360.0, 4),
    (118, 500.0, 3),
    (146, 500.0, 4),
    (115, 1000.0, 3),
    (103, 1000.0, 4),
    (116, 250.0, 2),
    (153, 360.0, 2),
    (102, 500.0, 2),
]


#: (seed, sampling rate, conduction ratio) of generated locked flutter whose diastole is
#: shorter than one flutter cycle: every one reported a PR before the T-wave fit.
SHORT_DIASTOLE = [
    (0, 250.0, 3),
    (1115, 360.0, 3),
    (1078, 500.0, 3),
    (107, 1000.0, 3),
    (131, 1000.0, 3),
    (1091, 1000.0, 2),
]


#: (seed, sampling rate, conduction ratio) of generated locked flutter whose flutter waves are
#: drawn nearly perpendicular to V1 (nothing there above the noise): each reported a PR before
#: V1 was allowed to abstain from the T-wave fit.
FLUTTER_UNSEEN_IN_V1 = [
    (8, 250.0, 2),
    (144, 250.0, 3),
]


#: (seed, sampling rate, conduction ratios) of generated flutter whose conduction ratio varies
#: beat to beat: each reported a PR before the beats followed by the longest RRs were
#: compared on their own.
VARIABLE_CONDUCTION = [
    (437, 360.0, (2, 3, 4)),
    (455, 1000.0, (2, 3, 4)),
    (561, 360.0, (3, 4)),
    (1076, 250.0, (2, 3, 4)),
    (3190, 500.0, (2, 3, 4)),
]


#: (seed, sampling rate, conduction ratio) of generated locked flutter whose flutter wave one
#: cycle before the one preceding the QRS lies on the end of the previous QRS: each reported a
#: PR before PR was left undetermined there.
EARLIER_WAVE_IN_THE_QRS = [
    (12, 250.0, 2),
]


@pytest.mark.parametrize(("seed", "rate", "ratio"), LOCKED_FLUTTER)
@pytest.mark.parametrize("config", CONFIGS)
def test_locked_flutter_waves_give_no_pr(seed: int, rate: float, ratio: int, config: str) -> None:
    source = generate_ecg_intervals(seed, "nominal", rhythm="flutter", sampling_rate_hz=rate)
    assert_no_pr(source.asset, config)


@pytest.mark.parametrize("rate", [250.0, 360.0, 500.0, 1000.0])
def test_sinus_pr_is_still_found(rate: float) -> None:
    """Sinus rhythm at 40-180 bpm: one P wave on an isoelectric diastole, nothing periodic
    (at 160 bpm, where the wave one flutter cycle earlier would lie in the previous QRS,
    PR is undetermined)."""
    assert_sinus_pr_found(enumerate(range(40, 181, 20)), rate)


@pytest.mark.parametrize("rate", [250.0, 360.0, 500.0, 1000.0])
def test_sinus_pr_is_kept_at_slow_and_normal_rates(rate: float) -> None:
    """At 40-120 bpm the P wave lies more than one flutter cycle after the previous QRS (or
    no RR / 2, 3 or 4 is a flutter cycle): PR is reported, never left undetermined."""
    for seed, bpm in enumerate((40, 60, 80, 100, 110, 120), start=60):
        source = generate_ecg_intervals(
            seed, "nominal", heart_rate_bpm=float(bpm), sampling_rate_hz=rate
        )
        pr = ecg_intervals.run(source.asset).output["candidates"]["pr_ms"]
        assert pr is not None
        assert abs(pr - source.truth["pr_ms"]) <= 20.0


@pytest.mark.parametrize(("seed", "rate", "ratio"), SHORT_DIASTOLE)
@pytest.mark.parametrize("config", CONFIGS)
def test_a_flutter_wave_inside_the_t_wave_gives_no_pr(
    seed: int, rate: float, ratio: int, config: str
) -> None:
    source = generate_ecg_intervals(seed, "nominal", rhythm="flutter", sampling_rate_hz=rate)
    peaks = [beat["r_peak"] for beat in source.truth["beats"]]
    rr = np.diff(peaks)
    assert np.ptp(rr) <= 1  # locked: one RR, to the sample
    assert_no_pr(source.asset, config)


@pytest.mark.parametrize("rate", [250.0, 360.0, 500.0, 1000.0])
def test_sinus_pr_is_still_found_at_fast_rates(rate: float) -> None:
    """At 120-180 bpm the P wave sits next to the T wave, one flutter cycle from it; where
    that cycle reaches back into the previous QRS, PR is undetermined instead."""
    assert_sinus_pr_found(enumerate(range(120, 181, 10), start=40), rate)


@pytest.mark.parametrize(("seed", "rate", "ratio"), FLUTTER_UNSEEN_IN_V1)
@pytest.mark.parametrize("config", CONFIGS)
def test_flutter_unseen_in_v1_gives_no_pr(seed: int, rate: float, ratio: int, config: str) -> None:
    source = generate_ecg_intervals(seed, "nominal", rhythm="flutter", sampling_rate_hz=rate)
    peaks = [beat["r_peak"] for beat in source.truth["beats"]]
    assert np.ptp(np.diff(peaks)) <= 1  # locked: one RR, to the sample
    assert_no_pr(source.asset, config)


@pytest.mark.parametrize("config", CONFIGS)
def test_a_sinus_p_wave_is_not_sought_in_the_previous_qrs(config: str) -> None:
    """Sinus at 175 bpm and 250 Hz, V1's P wave too small to vote: one flutter cycle before
    the P wave lies the end of the previous QRS, which matched it in II, III and aVF (PR
    ``not_found``, as if flutter were seen).  Nothing can be compared there: PR is left
    undetermined, the rhythm neither called flutter nor sinus."""
    source = generate_ecg_intervals(5144, "nominal", heart_rate_bpm=175.0, sampling_rate_hz=250.0)
    assert_undetermined(source.asset, config)


@pytest.mark.parametrize(("seed", "rate", "ratio"), EARLIER_WAVE_IN_THE_QRS)
@pytest.mark.parametrize("config", CONFIGS)
def test_flutter_whose_earlier_wave_lies_in_the_previous_qrs_is_undetermined(
    seed: int, rate: float, ratio: int, config: str
) -> None:
    """Locked 2:1 flutter at 152 bpm: the flutter wave before the QRS passes every P wave
    rule, and the one a cycle earlier lies on the end of the previous QRS, where the T-wave
    fit compares nothing.  Sinus tachycardia would look the same: PR is undetermined."""
    source = generate_ecg_intervals(seed, "nominal", rhythm="flutter", sampling_rate_hz=rate)
    peaks = [beat["r_peak"] for beat in source.truth["beats"]]
    assert np.ptp(np.diff(peaks)) <= 1  # locked: one RR, to the sample
    assert_undetermined(source.asset, config)


@pytest.mark.parametrize(("seed", "rate", "ratios"), VARIABLE_CONDUCTION)
@pytest.mark.parametrize("config", CONFIGS)
def test_flutter_with_variable_conduction_gives_no_pr(
    seed: int, rate: float, ratios: tuple[int, ...], config: str
) -> None:
    source = generate_ecg_intervals(seed, "nominal", rhythm="flutter", sampling_rate_hz=rate)
    peaks = [beat["r_peak"] for beat in source.truth["beats"]]
    rr = np.diff(peaks)
    assert rr.max() >= 1.3 * rr.min()  # variable: RRs of whole flutter cycles, 2 to 4
    assert_no_pr(source.asset, config)


@pytest.mark.parametrize("rate", [250.0, 1000.0])
@pytest.mark.parametrize("bpm", [100.0, 120.0, 140.0, 160.0])
def test_sinus_pr_is_still_found_across_sinus_pauses(bpm: float, rate: float) -> None:
    """Every fourth beat dropped (sinoatrial exit block): RRs of one and two sinus cycles, so the
    beats before a pause are compared on their own (at 120-160 bpm a quarter of the pause is
    one flutter cycle); their long diastole holds one P wave on an isoelectric line."""
    recording = synthesise_ecg(7, "nominal", heart_rate_bpm=bpm, sampling_rate_hz=rate)
    samples = np.array(recording.samples)
    beats = recording.truth["beats"]
    for index in range(1, len(beats) - 1, 4):
        # From the previous T wave's end to the next P wave's onset, a straight line.
        first = math.ceil(beats[index - 1]["t_offset"])
        last = math.floor(beats[index + 1]["p_onset"])
        ramp = np.linspace(0.0, 1.0, last - first + 1)
        samples[:, first : last + 1] = samples[:, [first]] + ramp * (
            samples[:, [last]] - samples[:, [first]]
        )
    paused = SyntheticECG(rate, recording.lead_names, samples, recording.truth)
    result = ecg_intervals.run(waveform_json(paused))
    rr = result.output["rr_ms"]
    assert max(rr) >= 1.8 * min(rr)
    pr = result.output["candidates"]["pr_ms"]
    assert pr is not None
    assert abs(pr - recording.truth["pr_ms"]) <= 20.0


def assert_no_pr(asset: bytes, config: str) -> None:
    """The recording is analysed and its PR is ``null`` for want of a P wave."""
    result = ecg_intervals.run(asset, CONFIGS[config])
    assert not result.abstained
    assert result.output["candidates"]["pr_ms"] is None
    assert result.output["null_reasons"]["pr_ms"] == "not_found"


def assert_undetermined(asset: bytes, config: str) -> None:
    """The recording is analysed and its PR is ``null``: sinus rhythm or flutter, undecided."""
    result = ecg_intervals.run(asset, CONFIGS[config])
    assert not result.abstained
    assert result.output["candidates"]["pr_ms"] is None
    assert result.output["null_reasons"]["pr_ms"] == "atrial_rhythm_undetermined"
    assert result.output["candidates"]["qrs_ms"] is not None


def assert_sinus_pr_found(seeds_and_rates: Iterable[tuple[int, int]], rate: float) -> None:
    """Generated sinus rhythm at each (seed, bpm): PR reported within 20 ms of the truth, or
    undetermined where the wave one flutter cycle earlier would lie in the previous QRS."""
    for seed, bpm in seeds_and_rates:
        source = generate_ecg_intervals(
            seed, "nominal", heart_rate_bpm=float(bpm), sampling_rate_hz=rate
        )
        assert_sinus_pr(ecg_intervals.run(source.asset).output, source.truth)
