"""Regression against a previous gate report for claims gates.

A claims gate regresses when this run's bootstrap interval lies entirely
above the baseline's (``lower > baseline upper``): a statistically visible
increase of the unsupported rate, not noise.  The baseline is a report
written earlier by ``--openmed-report``; gates are matched by node id and part.

A baseline must compare something: entries that are malformed, or that name
no collected gate, are counted (never listed: node ids may carry names) and a
baseline that matches no collected gate at all is refused by the plugin.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_openmed._jsonread import POLICY_REFUSALS, loads, read_limited
from pytest_openmed.contract import GateResult, GateStatus
from pytest_openmed.errors import InputRefused
from pytest_openmed.report.load import INCOMPLETE_KEY

__all__ = [
    "REGRESSED",
    "REGRESSION_REASON",
    "Baseline",
    "BaselineError",
    "load_baseline",
    "regressed",
]

#: Metric carried by every matched claims verdict: did its interval lie above the baseline's?
REGRESSED = "baseline_regressed"
#: Reason of a verdict that passed its thresholds but regressed against the baseline.
REGRESSION_REASON = "baseline_regression"

_MAX_BASELINE_BYTES = 64 * 1024 * 1024
_TOO_LARGE = f"the baseline report exceeds {_MAX_BASELINE_BYTES // 2**20} MiB"
#: Report schema versions a baseline may have (1.1 and 1.2 only added run metadata and counts).
_READABLE_VERSIONS = ("1.0", "1.1", "1.2")


class BaselineError(InputRefused):
    """The baseline report is unreadable or not a gate report; name a report this plugin wrote."""


@dataclass(frozen=True, slots=True)
class Baseline:
    """Per (node id, part): the baseline interval of a claims gate.

    ``malformed`` counts gate entries that could not be read (not an object,
    or a claims entry with a mistyped node id, part, metrics or interval).
    """

    intervals: Mapping[tuple[str, str | None], tuple[float, float, float]]
    malformed: int = 0
    #: Which run this is (shown in the reports): the stored run's name under
    #: ``--openmed-compare``, and the baseline report's own UTC start and commit.
    stored_run: str | None = None
    started: str | None = None
    commit: str | None = None

    def comparison(self) -> dict[str, str | None]:
        """The ``run.comparison`` block of the gate report: what this run was compared against."""
        return {"stored_run": self.stored_run, "started": self.started, "commit": self.commit}

    def unmatched(self, nodeids: Iterable[str]) -> int:
        """How many usable entries name none of ``nodeids`` (the collected gates)."""
        known = set(nodeids)
        return sum(1 for nodeid, _ in self.intervals if nodeid not in known)

    def compare(self, nodeid: str, part: str | None, result: GateResult) -> GateResult:
        """``result`` with its baseline; a passing verdict that regressed becomes ``threshold``.

        Every matched claims verdict, failing or not, carries the baseline's
        interval and ``baseline_regressed`` (plus ``rate_increase`` when it
        regressed): a verdict that breaks its threshold *and* regressed must
        still show the regression (docs/ci.md).
        """
        if result.kind != "claims":
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
        regressed = lower > baseline_upper
        metrics[REGRESSED] = regressed
        if regressed:
            metrics["rate_increase"] = round(rate - baseline_rate, 6)
        if not regressed or not result.passed:
            # A verdict that already fails keeps its own status and rule.
            return GateResult(result.kind, result.status, result.reason, metrics)
        return GateResult(result.kind, GateStatus.THRESHOLD, REGRESSION_REASON, metrics)


def load_baseline(path: Path) -> Baseline:
    raw = read_limited(
        path,
        _MAX_BASELINE_BYTES,
        too_large=lambda: BaselineError(_TOO_LARGE),
        unreadable=lambda: BaselineError("the baseline report could not be read"),
    )
    document = loads(
        raw,
        lambda: BaselineError(f"the baseline report is not strict UTF-8 JSON ({POLICY_REFUSALS})"),
    )
    if not isinstance(document, dict) or document.get("schema_version") not in _READABLE_VERSIONS:
        raise BaselineError("the baseline is not a pytest-openmed gate report (schema 1.x)")
    if document.get(INCOMPLETE_KEY) is True:
        raise BaselineError(
            "the baseline report is of a run that never finished (OPENMED-REPORT-INCOMPLETE)"
        )
    gates = document.get("gates")
    if not isinstance(gates, list):
        raise BaselineError("the baseline report has no gate list")
    intervals: dict[tuple[str, str | None], tuple[float, float, float]] = {}
    malformed = 0
    for entry in gates:
        if not isinstance(entry, dict):
            malformed += 1
            continue
        if entry.get("kind") != "claims":
            continue
        nodeid, part, metrics = entry.get("nodeid"), entry.get("part"), entry.get("metrics")
        if (
            type(nodeid) is not str
            or not (part is None or type(part) is str)
            or not isinstance(metrics, Mapping)
        ):
            malformed += 1
            continue
        interval = _interval(metrics)
        if interval is not None:
            intervals[(nodeid, part)] = interval
        elif any(name in metrics for name in _INTERVAL_NAMES):
            malformed += 1  # an interval, but not a valid one (a refused gate has none)
    started, commit = _provenance(document.get("run"))
    return Baseline(MappingProxyType(intervals), malformed, started=started, commit=commit)


_STARTED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_COMMIT = re.compile(r"[0-9a-f]{7,64}")


def _provenance(run: object) -> tuple[str | None, str | None]:
    """The baseline's UTC start and commit, when it records them in their exact shapes."""
    if not isinstance(run, Mapping):
        return None, None
    timing, environment = run.get("timing"), run.get("environment")
    started = timing.get("started") if isinstance(timing, Mapping) else None
    commit = environment.get("commit") if isinstance(environment, Mapping) else None
    return (
        started if type(started) is str and _STARTED.fullmatch(started) else None,
        commit if type(commit) is str and _COMMIT.fullmatch(commit) else None,
    )


_INTERVAL_NAMES = ("lower", "unsupported_rate", "upper")


def _interval(metrics: Mapping[str, Any]) -> tuple[float, float, float] | None:
    values = [metrics.get(name) for name in _INTERVAL_NAMES]
    # Range-check before float(): a 400-digit integer would overflow it.
    if all(type(value) in (int, float) and 0 <= value <= 1 for value in values):  # type: ignore[operator]
        lower, rate, upper = (float(value) for value in values)  # type: ignore[arg-type]
        if lower <= rate <= upper:
            return lower, rate, upper
    return None


def regressed(entry: Mapping[str, Any]) -> bool:
    """Did this report entry regress against its baseline (passing or already failing)?"""
    metrics = entry.get("metrics")
    return entry.get("reason") == REGRESSION_REASON or (
        isinstance(metrics, Mapping) and metrics.get(REGRESSED) is True
    )
