"""Gate reports built in memory for the report tests, in the shape the schema gives them.

The envelope (generator, summary, waivers, extensions) is the same for every
report a test builds; only the verdicts, the schema version and the run block
differ, so the summary is counted from the verdicts rather than written out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["ENVIRONMENT", "RUN", "gate_report"]

OUTCOMES = ("passed", "failed", "error", "skipped")
STATUSES = ("passed", "threshold", "critical", "blocked", "hold")
ITEMS = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")

#: A full run that selected everything (schema 1.1); 1.2 adds ``timing`` and ``environment``.
RUN: Mapping[str, Any] = {
    "exit_status": 0,
    "partial_selection": False,
    "keyword_selection": False,
    "marker_selection": False,
    "last_failed": False,
    "deselected": 0,
    "stopped_early": False,
    "seed": 0,
    "resamples": 1000,
}
ENVIRONMENT: Mapping[str, Any] = {
    "python": "3.11.7",
    "pytest": "9.0.3",
    "platform": "Linux-x86_64",
    "commit": None,
}


def _counts(names: Sequence[str], values: Iterable[object]) -> dict[str, int]:
    counts = dict.fromkeys(names, 0)
    for value in values:
        if value is not None:
            counts[str(value)] += 1
    return counts


def gate_report(
    gates: Sequence[Mapping[str, Any]],
    *,
    version: str = "1.0",
    run: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A report of ``gates`` (one verdict per gate item), its summary counted from them.

    Without ``run`` it is a 1.0 report, which had neither a run block nor item counts.
    """
    summary: dict[str, Any] = {
        "gates": len(gates),
        "outcomes": _counts(OUTCOMES, (entry["outcome"] for entry in gates)),
        "statuses": _counts(STATUSES, (entry["status"] for entry in gates)),
    }
    report: dict[str, Any] = {
        "schema_version": version,
        "generator": {"name": "pytest-openmed", "version": "0.1.0"},
        "non_diagnostic": True,
    }
    if run is not None:
        report["run"] = dict(run)
        summary["items"] = _counts(ITEMS, (entry["outcome"] for entry in gates))
    return {**report, "summary": summary, "gates": list(gates), "waivers": [], "extensions": {}}
