"""The ECG generator's wide QRS forms and rhythms without P waves (issue 27)."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_openmed.development.sources.ecg import (
    QRS_FORMS,
    RHYTHMS,
    generate_ecg_intervals,
    generate_ecg_quality,
    synthesise_ecg,
)
from pytest_openmed.errors import InputRefused


@pytest.mark.parametrize("form", QRS_FORMS[1:])
def test_wide_forms_have_a_wide_qrs(form: str) -> None:
    for seed in range(4):
        truth = synthesise_ecg(seed, "nominal", qrs_form=form, artefacts=()).truth
        assert truth["qrs_form"] == form and truth["rhythm"] == "sinus"
        assert truth["qrs_ms"] >= 100.0 if form == "infarct_qs" else truth["qrs_ms"] >= 120.0
        assert truth["pr_ms"] is not None


def test_a_paced_recording_carries_one_stimulus_spike_before_each_qrs() -> None:
    recording = synthesise_ecg(3, "nominal", qrs_form="paced", sampling_rate_hz=500.0, artefacts=())
    lead = recording.samples[1]
    for beat in recording.truth["beats"]:
        onset = int(beat["qrs_onset"])
        assert np.ptp(lead[onset - 3 : onset + 1]) > 1.0


@pytest.mark.parametrize("rhythm", RHYTHMS[1:])
def test_rhythms_without_p_waves_have_no_pr_and_no_sinus_timing(rhythm: str) -> None:
    for seed in range(4):
        truth = synthesise_ecg(seed, "nominal", rhythm=rhythm, artefacts=()).truth
        assert truth["pr_ms"] is None
        assert all(beat["p_onset"] is None for beat in truth["beats"])
        assert truth["r_peaks"] and all(
            0.12 * truth["sampling_rate_hz"]
            <= r
            <= truth["n_samples"] - 0.12 * truth["sampling_rate_hz"]
            for r in truth["r_peaks"]
        )
    fibrillation = synthesise_ecg(1, "nominal", rhythm="fibrillation", artefacts=()).truth
    rr = np.asarray(fibrillation["rr_ms"])
    assert rr.std() / rr.mean() > 0.1  # irregularly irregular


def test_the_interval_adverse_slice_draws_every_form_and_rhythm() -> None:
    drawn = set()
    rates = set()
    for seed in range(80):
        truth = generate_ecg_intervals(seed, "adverse_acquisition").truth
        if truth["qrs_form"] != "narrow" or truth["rhythm"] != "sinus":
            drawn.add((truth["qrs_form"], truth["rhythm"]))
            rates.add(truth["sampling_rate_hz"])
            assert truth["artefacts"] == []
    assert {f for f, _ in drawn} == set(QRS_FORMS) and {r for _, r in drawn} == set(RHYTHMS)
    assert rates <= {250.0, 360.0, 500.0, 1000.0} and len(rates) >= 3


def test_plain_recordings_are_unchanged_by_the_forms() -> None:
    """The forms draw from their own stream: the quality task and narrow sinus sources do not
    move (their truth keeps its values; only the new keys are added)."""
    source = generate_ecg_quality(0, "adverse_acquisition")
    assert source.truth["qrs_form"] == "narrow" and source.truth["rhythm"] == "sinus"
    again = synthesise_ecg(0, "nominal", qrs_form="narrow", rhythm="sinus")
    assert np.array_equal(again.samples, synthesise_ecg(0, "nominal").samples)


def test_unknown_forms_are_refused() -> None:
    with pytest.raises(InputRefused):
        synthesise_ecg(0, "nominal", qrs_form="wide")
    with pytest.raises(InputRefused):
        synthesise_ecg(0, "nominal", rhythm="torsade")
