"""ecg_intervals on wide QRS complexes: every R mark lies inside its QRS.

Issue 27: on a wide QRS the ±80 ms search for the R wave reaches past the
complex; a pacing stimulus, or a discordant ST segment, standing higher than a
small r wave took the mark, and the intervals measured from it still looked
plausible. The R is now sought inside the QRS (the spatial velocity of all
leads) and never on a stimulus; at 1000 Hz a stimulus two samples wide is one
stimulus (it was dropped as noise).
"""

from __future__ import annotations

import pytest

from pytest_openmed.components import ecg_intervals, ecg_quality
from pytest_openmed.development.sources.ecg import (
    QRS_FORMS,
    generate_ecg_intervals,
    synthesise_ecg,
)

CONFIGS = {"A": ecg_intervals.CONFIG_A, "B": ecg_intervals.CONFIG_B}


def _marks_inside_their_qrs(source_truth: dict[str, object], marks: list[int]) -> bool:
    beats = source_truth["beats"]
    assert isinstance(beats, list)
    for mark in marks:
        if not any(b["qrs_onset"] <= mark <= b["qrs_offset"] for b in beats):
            return False
    return len(marks) == len(beats)


@pytest.mark.parametrize("fs", [250.0, 1000.0])
@pytest.mark.parametrize("seed", [2, 15])
def test_paced_r_marks_lie_inside_the_qrs_not_on_the_stimulus(seed: int, fs: float) -> None:
    source = generate_ecg_intervals(seed, "nominal", qrs_form="paced", sampling_rate_hz=fs)
    output = ecg_intervals.run(source.asset, ecg_intervals.CONFIG_B)
    assert not output.abstained
    assert _marks_inside_their_qrs(dict(source.truth), output.output["r_peaks"])


@pytest.mark.parametrize("form", QRS_FORMS[1:])
@pytest.mark.parametrize("fs", [250.0, 500.0, 1000.0])
def test_wide_complexes_keep_every_mark_inside_the_qrs(form: str, fs: float) -> None:
    for seed in range(3):
        source = generate_ecg_intervals(seed, "nominal", qrs_form=form, sampling_rate_hz=fs)
        for config in CONFIGS.values():
            output = ecg_intervals.run(source.asset, config)
            if output.abstained:
                continue
            assert _marks_inside_their_qrs(dict(source.truth), output.output["r_peaks"])


def test_a_two_sample_stimulus_at_1000_hz_is_one_stimulus_per_beat() -> None:
    recording = synthesise_ecg(
        2, "nominal", qrs_form="paced", sampling_rate_hz=1000.0, artefacts=()
    )
    stimuli = ecg_quality.stimulus_times(recording.samples, 1000.0)
    assert len(stimuli) == len(recording.truth["beats"])
