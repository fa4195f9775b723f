"""The synthetic 12-lead ECG generator: exact truth, realistic lead relations, seeded bytes."""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest

from pytest_openmed.carriers.ecg import STANDARD_LEADS
from pytest_openmed.components.ecg_quality import CONFIG_A
from pytest_openmed.development.sources import SLICES
from pytest_openmed.development.sources.ecg import (
    ARTEFACT_KINDS,
    DICOM_MEDIA_TYPE,
    JSON_MEDIA_TYPE,
    Artefact,
    SyntheticECG,
    _add_hann,
    _add_t_wave,
    generate_ecg_intervals,
    generate_ecg_quality,
    synthesise_ecg,
    waveform_dicom,
    waveform_json,
    window_excursion,
)
from tests.components._dicom_files import clean_dataset


@pytest.fixture(scope="module")
def adverse() -> list[SyntheticECG]:
    return [synthesise_ecg(seed, "adverse_acquisition") for seed in range(30)]


@pytest.fixture(scope="module")
def ambiguous() -> list[SyntheticECG]:
    return [synthesise_ecg(seed, "ambiguity_conflict") for seed in range(30)]


# -- determinism ------------------------------------------------------------------------


@pytest.mark.parametrize("slice_name", SLICES)
def test_same_seed_gives_identical_bytes_and_truth(slice_name: str) -> None:
    for carrier in ("json", "dicom"):
        first = generate_ecg_quality(4, slice_name, carrier=carrier)
        second = generate_ecg_quality(4, slice_name, carrier=carrier)
        assert first.asset == second.asset
        assert dict(first.truth) == dict(second.truth)
        assert generate_ecg_quality(5, slice_name, carrier=carrier).asset != first.asset
    assert first.media_type == DICOM_MEDIA_TYPE and first.slice == slice_name
    assert generate_ecg_quality(4, slice_name).media_type == JSON_MEDIA_TYPE


def test_truth_is_json_able_and_repr_shows_no_values() -> None:
    source = generate_ecg_intervals(6, "adverse_acquisition")
    json.dumps(dict(source.truth), allow_nan=False)
    recording = synthesise_ecg(6, "nominal")
    assert "0." not in repr(recording)


# -- beat truth ---------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [40.0, 75.0, 120.0, 180.0])
def test_beat_truth_is_consistent(rate: float) -> None:
    recording = synthesise_ecg(12, "nominal", heart_rate_bpm=rate)
    truth = recording.truth
    fs = truth["sampling_rate_hz"]
    peaks = truth["r_peaks"]
    assert peaks == sorted(peaks)
    assert peaks[0] >= 0.12 * fs and peaks[-1] <= truth["n_samples"] - 0.12 * fs
    assert abs(truth["heart_rate_bpm"] - rate) <= 0.03 * rate
    assert abs(truth["heart_rate_bpm"] - 60000.0 / np.mean(truth["rr_ms"])) < 0.01
    assert np.allclose(np.diff(peaks) * 1000.0 / fs, truth["rr_ms"], atol=2000.0 / fs)
    beats = truth["beats"]
    assert [b["r_peak"] for b in beats] == peaks
    for beat in beats:
        assert beat["p_onset"] < beat["qrs_onset"] < beat["r_peak"] < beat["qrs_offset"]
        assert beat["qrs_offset"] < beat["t_offset"]
        ms = 1000.0 / fs
        assert (beat["qrs_onset"] - beat["p_onset"]) * ms == pytest.approx(truth["pr_ms"], abs=0.01)
        assert (beat["qrs_offset"] - beat["qrs_onset"]) * ms == pytest.approx(
            truth["qrs_ms"], abs=0.01
        )
        assert (beat["t_offset"] - beat["qrs_onset"]) * ms == pytest.approx(
            truth["qt_ms"], abs=0.01
        )
    for before, after in itertools.pairwise(beats):
        assert after["p_onset"] - before["t_offset"] >= 0.025 * fs - 1e-6  # a TP segment
    assert 90.0 <= truth["pr_ms"] <= 180.0
    assert 80.0 <= truth["qrs_ms"] <= 100.0
    assert 150.0 <= truth["qt_ms"] <= 530.0


def test_waves_have_exact_compact_support() -> None:
    fs = 500.0
    pulse = np.zeros(200)
    _add_hann(pulse, fs, 0.1003, 0.08, 1.0)
    inside = np.flatnonzero(pulse)
    assert inside[0] == np.ceil(0.1003 * fs) and inside[-1] == np.floor(0.1803 * fs)
    assert pulse.max() == pytest.approx(1.0, abs=1e-3)
    wave = np.zeros(400)
    _add_t_wave(wave, fs, 0.2, 0.3, 0.5)
    inside = np.flatnonzero(wave)
    assert inside[0] == 0.2 * fs + 1 and inside[-1] <= 0.5 * fs  # zero at the onset itself
    assert np.argmax(wave) == round(0.38 * fs)  # the peak at 60 % of the T wave


def test_limb_leads_obey_einthoven_and_goldberger() -> None:
    recording = synthesise_ecg(13, "nominal", heart_rate_bpm=70.0)
    lead = dict(zip(STANDARD_LEADS, recording.samples, strict=True))
    from scipy import signal

    sos = signal.butter(2, 1.0, btype="highpass", fs=500.0, output="sos")

    def residual(values: Any) -> float:  # wander and noise are per lead; the ECG is not
        return float(np.sqrt(np.mean(signal.sosfiltfilt(sos, values) ** 2)))

    assert residual(lead["III"] - (lead["II"] - lead["I"])) < 0.03
    assert residual(lead["aVR"] + (lead["I"] + lead["II"]) / 2) < 0.03
    assert residual(lead["aVF"] - (lead["II"] - lead["I"] / 2)) < 0.03
    assert np.ptp(lead["II"]) > 0.8  # a real QRS, far above those residuals


# -- artefacts --------------------------------------------------------------------------


def test_nominal_recordings_have_no_artefact() -> None:
    truth = synthesise_ecg(14, "nominal").truth
    assert truth["artefacts"] == [] and truth["flagged_leads"] == {}


def test_adverse_artefacts_lie_above_the_flag_level(adverse: list[SyntheticECG]) -> None:
    seen = set()
    for recording in adverse:
        artefacts = recording.truth["artefacts"]
        assert artefacts
        flat = {a["lead"] for a in artefacts if a["kind"] == "flatline"}
        for artefact in artefacts:
            seen.add(artefact["kind"])
            assert artefact["severity"] >= 1.4 * CONFIG_A.band(artefact["kind"])[1] or (
                artefact["kind"] == "flatline" and artefact["severity"] >= 0.15
            )
            if artefact["kind"] != "flatline":
                assert artefact["lead"] not in flat  # a flat lead carries nothing else
    assert seen == set(ARTEFACT_KINDS)


def test_ambiguous_artefacts_lie_inside_the_borderline_band(
    ambiguous: list[SyntheticECG],
) -> None:
    for recording in ambiguous:
        artefacts = recording.truth["artefacts"]
        assert 1 <= len(artefacts) <= 2 and len({a["kind"] for a in artefacts}) == 1
        for artefact in artefacts:
            low, high = CONFIG_A.band(artefact["kind"])
            assert low <= artefact["severity"] < high
        assert not recording.truth["flagged_leads"]


def test_recorded_severities_match_the_samples(adverse: list[SyntheticECG]) -> None:
    fs = 500.0
    for recording in adverse:
        lead = dict(zip(STANDARD_LEADS, recording.samples, strict=True))
        for artefact in recording.truth["artefacts"]:
            values = lead[artefact["lead"]]
            if artefact.get("form") == "disconnected":
                assert artefact["severity"] == 1.0
                assert 0.008 <= float(np.std(values)) <= 0.012  # amplifier noise only
            elif artefact["kind"] == "flatline":
                start, stop = artefact["span"]
                assert np.ptp(values[start:stop]) == 0.0
                assert (stop - start) / values.shape[0] == pytest.approx(artefact["severity"])
                beats = recording.truth["r_peaks"]
                assert any(start <= r < stop for r in beats)  # a dropout hides a beat
            elif artefact["kind"] == "clipping":
                assert _rail_fraction(values, fs) == pytest.approx(artefact["severity"], abs=1e-6)
            elif artefact["kind"] == "mains_interference":
                spectrum = np.abs(np.fft.rfft(values)) * 2.0 / values.shape[0]
                freqs = np.fft.rfftfreq(values.shape[0], 1.0 / fs)
                line = spectrum[(freqs == 50.0) | (freqs == 60.0)].max()
                assert line == pytest.approx(artefact["severity"], rel=0.15)


def test_wander_severity_is_the_drifts_largest_move_within_one_second() -> None:
    """The truth of ``baseline_wander`` is the injected drift's largest peak-to-peak within
    any 1 s window (one beat), computed exactly on the drift, not its swing over 10 s."""
    fs = 500.0
    for seed, severity in ((31, 0.7), (32, 1.6), (33, 3.5)):
        clean = synthesise_ecg(seed, "nominal", artefacts=[])
        drifted = synthesise_ecg(
            seed, "nominal", artefacts=[Artefact("baseline_wander", "V2", severity)]
        )
        assert drifted.truth["artefacts"] == [
            {"kind": "baseline_wander", "lead": "V2", "severity": severity}
        ]
        drift = drifted.samples[7] - clean.samples[7]
        assert window_excursion(drift, fs) == pytest.approx(severity, abs=3e-4)
        assert np.ptp(drift) > 1.2 * severity  # a slow drift swings further over 10 s


def test_window_excursion_follows_the_analytic_drift() -> None:
    fs = 500.0
    t = np.arange(5000) / fs
    window = 499 / fs  # 500 samples span 0.998 s
    ramp = 0.3 * t
    assert window_excursion(ramp, fs) == pytest.approx(0.3 * window)
    for frequency in (0.05, 0.2, 0.35):
        wave = np.sin(2.0 * np.pi * frequency * (t - 5.0))  # steepest at 5 s
        expected = 2.0 * np.sin(np.pi * frequency * window)
        assert window_excursion(wave, fs) == pytest.approx(expected, rel=1e-4)


def _rail_fraction(values: Any, fs: float) -> float:
    """Largest share of samples held at either extreme, as ecg_quality documents it: runs of
    at least 4 ms when there are at least three of them, else runs of at least 50 ms."""
    fractions = []
    for rail in (values.max(), values.min()):
        held = np.concatenate(([0], (values == rail).astype(int), [0]))
        edges = np.flatnonzero(np.diff(held))
        runs = edges[1::2] - edges[::2]
        short = max(2, np.ceil(0.004 * fs))
        shortest = short if np.count_nonzero(runs >= short) >= 3 else np.ceil(0.050 * fs)
        fractions.append(runs[runs >= shortest].sum() / values.shape[0])
    return float(max(fractions))


def test_the_adverse_slice_draws_disconnected_leads(adverse: list[SyntheticECG]) -> None:
    forms = [a.get("form") for r in adverse for a in r.truth["artefacts"]]
    assert "disconnected" in forms


@pytest.mark.parametrize("seed", [1024, 1039])
def test_dicom_carrier_truth_holds_for_its_decoded_samples(seed: int) -> None:
    """The DICOM carrier holds 1 µV steps: on these borderline seeds near-rail samples rounded
    onto the clipping rail, so a clipping severity realised at 0.1 µV no longer held."""
    source = generate_ecg_quality(seed, "ambiguity_conflict", carrier="dicom")
    samples = clean_dataset(source.asset).waveform_array(0).T
    clipped = [a for a in source.truth["artefacts"] if a["kind"] == "clipping"]
    assert clipped
    for artefact in clipped:
        values = samples[STANDARD_LEADS.index(artefact["lead"])]
        assert _rail_fraction(values, 500.0) == pytest.approx(artefact["severity"], abs=1e-6)


def test_explicit_artefacts_and_focus_lead() -> None:
    artefacts = [Artefact("noise", "V3", 0.2)]
    truth = synthesise_ecg(15, "adverse_acquisition", artefacts=artefacts).truth
    assert truth["artefacts"] == [{"kind": "noise", "lead": "V3", "severity": 0.2}]
    assert truth["flagged_leads"] == {"V3": ["noise"]}
    for seed in range(6):
        for slice_name in ("adverse_acquisition", "ambiguity_conflict"):
            truth = generate_ecg_intervals(seed, slice_name).truth
            if truth["qrs_form"] != "narrow" or truth["rhythm"] != "sinus":
                assert truth["artefacts"] == []  # the heart's adversity, not the recorder's
                continue
            assert any(a["lead"] == "II" for a in truth["artefacts"])


@pytest.mark.parametrize(
    ("kind", "lead", "severity"),
    [
        ("tremor", "II", 0.1),
        ("noise", "V7", 0.1),
        ("noise", "II", 0.0),
        ("noise", "II", float("nan")),
        ("clipping", "II", 2.0),
    ],
)
def test_invalid_artefacts_are_refused(kind: str, lead: str, severity: float) -> None:
    with pytest.raises(ValueError):
        Artefact(kind, lead, severity)


@pytest.mark.parametrize(
    "arguments",
    [
        {"slice_name": "everything"},
        {"seed": -1},
        {"heart_rate_bpm": 250.0},
        {"sampling_rate_hz": 50.0},
        {"duration_s": 2.0},
    ],
)
def test_invalid_generator_arguments_are_refused(arguments: dict[str, Any]) -> None:
    call: dict[str, Any] = {"seed": 1, "slice_name": "nominal", **arguments}
    with pytest.raises(ValueError):
        synthesise_ecg(call.pop("seed"), call.pop("slice_name"), **call)


def test_unknown_carrier_is_refused() -> None:
    with pytest.raises(ValueError):
        generate_ecg_quality(1, "nominal", carrier="scp")


# -- carriers --------------------------------------------------------------------------------


def test_json_carrier_holds_the_samples_at_0_1_microvolt() -> None:
    recording = synthesise_ecg(16, "nominal", duration_s=5.0)
    document = json.loads(waveform_json(recording))
    assert document["format"] == "openmed.waveform.v1" and document["units"] == "mV"
    assert document["sampling_rate_hz"] == 500
    assert [lead["name"] for lead in document["leads"]] == list(STANDARD_LEADS)
    np.testing.assert_array_equal(
        np.array([lead["samples"] for lead in document["leads"]]), recording.samples
    )
    micro = json.loads(waveform_json(recording, units="uV"))
    np.testing.assert_allclose(
        np.array([lead["samples"] for lead in micro["leads"]]) / 1000.0,
        recording.samples,
        atol=1e-9,
    )
    with pytest.raises(ValueError):
        waveform_json(recording, units="V")


def test_dicom_carrier_is_a_synthetic_twelve_lead_ecg() -> None:
    recording = synthesise_ecg(17, "nominal", duration_s=5.0)
    dataset = clean_dataset(waveform_dicom(recording, seed=17))
    assert dataset.SOPClassUID == "1.2.840.10008.5.1.4.1.1.9.1.1"
    assert dataset.file_meta.TransferSyntaxUID == "1.2.840.10008.1.2.1"
    assert str(dataset.PatientName) == "SYNTHETIC^ECG" and dataset.PatientID == "SYN-000017"
    assert (
        dataset.SOPInstanceUID == clean_dataset(waveform_dicom(recording, seed=17)).SOPInstanceUID
    )
    group = dataset.WaveformSequence[0]
    assert group.NumberOfWaveformChannels == 12 and float(group.SamplingFrequency) == 500.0
    meanings = [c.ChannelSourceSequence[0].CodeMeaning for c in group.ChannelDefinitionSequence]
    assert meanings == [f"Lead {name}" for name in STANDARD_LEADS]
    values = dataset.waveform_array(0).T / 1000.0  # microvolts to millivolts
    np.testing.assert_allclose(values, recording.samples, atol=0.0005 + 1e-12)
    other = clean_dataset(waveform_dicom(recording, seed=18))
    assert other.SOPInstanceUID != dataset.SOPInstanceUID


def test_dicom_writer_refuses_what_16_bits_cannot_hold() -> None:
    recording = synthesise_ecg(19, "nominal", duration_s=5.0)
    with pytest.raises(ValueError):
        waveform_dicom(recording, seed=19, sensitivity=0.01)
    with pytest.raises(ValueError):
        waveform_dicom(recording, seed=19, units="V")
    general = synthesise_ecg(19, "nominal", duration_s=5.0, sampling_rate_hz=2000.0)
    assert clean_dataset(waveform_dicom(general, seed=19)).SOPClassUID.endswith(".9.1.2")


@pytest.mark.parametrize(
    ("kind", "severity", "form"),
    [("flatline", 0.5, "disconnected"), ("noise", 0.1, "disconnected"), ("flatline", 1.0, "loose")],
)
def test_invalid_artefact_forms_are_refused(kind: str, severity: float, form: str) -> None:
    with pytest.raises(ValueError):
        Artefact(kind, "II", severity, form)
