"""Regression against a previous gate report for claims gates.

PYTEST_DONT_REWRITE

A claims gate regresses when this run's bootstrap interval lies entirely
above the baseline's (``lower > baseline upper``): a statistically visible
increase of the unsupported rate, not noise.  The baseline is a report
written earlier by ``--openmed-report``; gates are matched by node id and part.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_openmed.gates import GateResult, GateStatus

__all__ = ["Baseline", "BaselineError", "load_baseline"]

_MAX_BASELINE_BYTES = 64 * 1024 * 1024


class BaselineError(ValueError):
    """The baseline report is unreadable or not a gate report."""


@dataclass(frozen=True, slots=True)
class Baseline:
    """Per (node id, part): the baseline interval of a claims gate."""

    intervals: Mapping[tuple[str, str | None], tuple[float, float, float]]

    def compare(self, nodeid: str, part: str | None, result: GateResult) -> GateResult:
        """``result``, or a ``threshold`` verdict when it regressed against the baseline."""
        if result.kind != "claims" or not result.passed:
            return result
        previous = self.intervals.get((nodeid, part))
        current = _interval(result.metrics)
        if previous is None or current is None:
            return result
        lower, rate, _ = current
        baseline_lower, baseline_rate, baseline_upper = previous
        metrics = dict(result.metrics)
        # The baseline's interval travels with every matched verdict: the HTML report draws it.
        metrics["baseline_lower"] = baseline_lower
        metrics["baseline_rate"] = baseline_rate
        metrics["baseline_upper"] = baseline_upper
        if lower <= baseline_upper:
            return GateResult(result.kind, result.status, result.reason, metrics)
        metrics["rate_increase"] = round(rate - baseline_rate, 6)
        return GateResult(result.kind, GateStatus.THRESHOLD, "baseline_regression", metrics)


def load_baseline(path: Path) -> Baseline:
    try:
        raw = path.read_bytes()
    except OSError:
        raise BaselineError("the baseline report could not be read") from None
    if len(raw) > _MAX_BASELINE_BYTES:
        raise BaselineError("the baseline report exceeds 64 MiB")
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise BaselineError("the baseline report is not JSON") from None
    if not isinstance(document, dict) or document.get("schema_version") != "1.0":
        raise BaselineError("the baseline is not a pytest-openmed gate report (schema 1.0)")
    gates = document.get("gates")
    if not isinstance(gates, list):
        raise BaselineError("the baseline report has no gate list")
    intervals: dict[tuple[str, str | None], tuple[float, float, float]] = {}
    for entry in gates:
        if not isinstance(entry, dict) or entry.get("kind") != "claims":
            continue
        nodeid, part, metrics = entry.get("nodeid"), entry.get("part"), entry.get("metrics")
        if type(nodeid) is not str or not (part is None or type(part) is str):
            raise BaselineError("the baseline report has a malformed gate entry")
        interval = _interval(metrics) if isinstance(metrics, Mapping) else None
        if interval is not None:
            intervals[(nodeid, part)] = interval
    return Baseline(MappingProxyType(intervals))


def _interval(metrics: Mapping[str, Any]) -> tuple[float, float, float] | None:
    values = [metrics.get(name) for name in ("lower", "unsupported_rate", "upper")]
    if all(type(value) in (int, float) for value in values):
        lower, rate, upper = (float(value) for value in values)  # type: ignore[arg-type]
        if 0.0 <= lower <= rate <= upper <= 1.0:
            return lower, rate, upper
    return None
