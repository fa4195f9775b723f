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
"""

from __future__ import annotations

import pytest

from pytest_openmed.components import ecg_intervals
from pytest_openmed.development.sources.ecg import generate_ecg_intervals

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


@pytest.mark.parametrize(("seed", "rate", "ratio"), LOCKED_FLUTTER)
@pytest.mark.parametrize("config", CONFIGS)
def test_locked_flutter_waves_give_no_pr(seed: int, rate: float, ratio: int, config: str) -> None:
    source = generate_ecg_intervals(seed, "nominal", rhythm="flutter", sampling_rate_hz=rate)
    result = ecg_intervals.run(source.asset, CONFIGS[config])
    assert not result.abstained
    assert result.output["candidates"]["pr_ms"] is None
    assert result.output["null_reasons"]["pr_ms"] == "not_found"


@pytest.mark.parametrize("rate", [250.0, 360.0, 500.0, 1000.0])
def test_sinus_pr_is_still_found(rate: float) -> None:
    """Sinus rhythm at 40-180 bpm: one P wave on an isoelectric diastole, nothing periodic."""
    for seed, bpm in enumerate(range(40, 181, 20)):
        source = generate_ecg_intervals(
            seed, "nominal", heart_rate_bpm=float(bpm), sampling_rate_hz=rate
        )
        pr = ecg_intervals.run(source.asset).output["candidates"]["pr_ms"]
        assert pr is not None
        assert abs(pr - source.truth["pr_ms"]) <= 20.0
