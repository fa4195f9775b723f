"""ecg_intervals reports a PR only when a P wave precedes (nearly) every QRS.

Issue 27: on held-out atrial fibrillation a deflection recurring before most,
not all, of the QRS complexes, at a nearly fixed place, passed every P-wave
rule (the correlation with the median beat was checked on the median over the
beats), and a PR was reported.  A conducted P wave precedes every QRS with the
same shape and size (an ectopic or noisy beat may lack it), so it must now be
seen, correlated and of the median wave's size, in four beats of five.
Fibrillation waves are generated from their physics; the deflection is a
P-shaped wave added before a chosen share of the QRS complexes.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from pytest_openmed.components import ecg_intervals
from pytest_openmed.development.sources.ecg import generate_ecg_intervals

CONFIGS = {"A": ecg_intervals.CONFIG_A, "B": ecg_intervals.CONFIG_B}
#: The added wave: 100 ms wide, 0.15 mV, ending 60 ms before the QRS onset (PR 160 ms).
WAVE_S, WAVE_MV, GAP_S = 0.1, 0.15, 0.06


def _with_p_waves(seed: int, every: tuple[int, ...]) -> tuple[bytes, float]:
    """A generated fibrillation recording with a P-shaped wave before beats ``k % 5 in every``;
    also the PR (ms) the wave gives."""
    source = generate_ecg_intervals(seed, "nominal", rhythm="fibrillation", sampling_rate_hz=500.0)
    document: dict[str, Any] = json.loads(source.asset)
    fs = float(document["sampling_rate_hz"])
    width = round(WAVE_S * fs)
    shape = WAVE_MV * np.hanning(width)
    for lead in document["leads"]:
        samples = np.asarray(lead["samples"], dtype=np.float64)
        for k, beat in enumerate(source.truth["beats"]):
            start = round(float(beat["qrs_onset"]) - (GAP_S + WAVE_S) * fs)
            if k % 5 in every and start >= 0:
                samples[start : start + width] += shape
        lead["samples"] = np.round(samples, 4).tolist()
    return json.dumps(document).encode(), (GAP_S + WAVE_S) * 1000.0


@pytest.mark.parametrize("seed", [0, 7, 12])
@pytest.mark.parametrize("config", CONFIGS)
def test_a_wave_before_three_beats_of_five_is_no_p_wave(seed: int, config: str) -> None:
    asset, _pr = _with_p_waves(seed, every=(0, 1, 2))
    result = ecg_intervals.run(asset, CONFIGS[config])
    assert not result.abstained
    assert result.output["candidates"]["pr_ms"] is None
    assert result.output["null_reasons"]["pr_ms"] == "not_found"


@pytest.mark.parametrize("seed", [0, 7, 12])
@pytest.mark.parametrize("config", CONFIGS)
def test_the_same_wave_before_every_beat_is_a_p_wave(seed: int, config: str) -> None:
    """The rule refuses a wave that is missing from beats, not a P wave beside fibrillation."""
    asset, pr = _with_p_waves(seed, every=(0, 1, 2, 3, 4))
    result = ecg_intervals.run(asset, CONFIGS[config])
    assert not result.abstained
    value = result.output["candidates"]["pr_ms"]
    assert value is not None and abs(value - pr) <= 20.0
