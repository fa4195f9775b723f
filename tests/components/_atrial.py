"""Where generated sinus rhythm is indistinguishable from flutter with a fixed conduction ratio.

A regular tachycardia with one P wave per QRS whose other atrial wave, one
flutter cycle (RR / 2, 3 or 4, within 171-250 ms) before it, would lie in the
previous QRS is, from the median beat, sinus rhythm or flutter: ``ecg_intervals``
then reports PR ``null`` (``atrial_rhythm_undetermined``).  Computed here from the
generator's exact truth, not from the component's output.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from pytest_openmed.components.ecg_intervals import _FLUTTER_CYCLE_S

__all__ = ["BOUNDARY_MS", "assert_sinus_pr", "hidden_wave_margin_ms"]


def hidden_wave_margin_ms(truth: Mapping[str, Any]) -> float | None:
    """How far (ms) after the previous QRS's offset the P wave's onset lies, one flutter
    cycle (RR / 2, 3 or 4) earlier, for the ratio that puts it furthest back (negative:
    inside that QRS); ``None`` when no RR / 2, 3 or 4 is a flutter cycle."""
    rr = statistics.median(truth["rr_ms"])
    # P onset to the previous QRS's offset: RR less the QRS and the PR.
    room = rr - truth["qrs_ms"] - truth["pr_ms"]
    low, high = (1000.0 * bound for bound in _FLUTTER_CYCLE_S)
    cycles = [rr / ratio for ratio in (2, 3, 4) if low <= rr / ratio <= high]
    return room - max(cycles) if cycles else None


#: The component's P onset and QRS offset lie within this (ms) of the truth's: closer to the
#: previous QRS than this, either answer is right.
BOUNDARY_MS = 10.0


def assert_sinus_pr(output: Mapping[str, Any], truth: Mapping[str, Any]) -> None:
    """Generated sinus rhythm: PR within 20 ms of the truth, or ``null`` with
    ``atrial_rhythm_undetermined`` where the stretch one flutter cycle before the P wave
    begins inside the previous QRS -- each where the truth says so (either within
    ``BOUNDARY_MS`` of that QRS's offset), and never ``not_found``."""
    pr, reason = output["candidates"]["pr_ms"], output["null_reasons"]["pr_ms"]
    undetermined = pr is None and reason == "atrial_rhythm_undetermined"
    on_target = pr is not None and abs(pr - truth["pr_ms"]) <= 20.0
    margin = hidden_wave_margin_ms(truth)
    if margin is not None and margin < -BOUNDARY_MS:
        assert undetermined, (margin, pr, reason)
    elif margin is None or margin > BOUNDARY_MS:
        assert on_target, (margin, pr, reason)
    else:
        assert on_target or undetermined, (margin, pr, reason)
