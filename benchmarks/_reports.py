"""Synthetic gate reports for the report benchmarks: the current schema's envelope around verdicts.

``html_report.py`` renders one and ``sharding.py`` merges many; both time the
package on reports of a realistic size and shape, with no data behind them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["synthetic_report"]

_STATUSES = ("passed", "threshold", "critical", "blocked", "hold")
_ITEMS = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def synthetic_report(entries: Sequence[Mapping[str, Any]], **run: Any) -> dict[str, Any]:
    """A schema 1.2 report of ``entries``, all passed; ``run`` adds to or overrides the run block."""
    statuses = {status: len(entries) if status == "passed" else 0 for status in _STATUSES}
    return {
        "schema_version": "1.2",
        "generator": {"name": "pytest-openmed", "version": "0.1.0"},
        "non_diagnostic": True,
        "run": {
            "exit_status": 0,
            "partial_selection": False,
            "keyword_selection": False,
            "marker_selection": False,
            "last_failed": False,
            "deselected": 0,
            "stopped_early": False,
            "seed": 0,
            "resamples": 1000,
            "timing": {"started": "2026-12-01T12:00:00.000000Z", "duration": 2.0, "gates": {}},
            "environment": {
                "python": "3.11.7",
                "pytest": "9.0.3",
                "platform": "Linux-x86_64",
                "commit": None,
            },
            **run,
        },
        "summary": {
            "gates": len(entries),
            "outcomes": {"passed": len(entries), "failed": 0, "error": 0, "skipped": 0},
            "statuses": statuses,
            "items": {item: len(entries) if item == "passed" else 0 for item in _ITEMS},
        },
        "gates": list(entries),
        "waivers": [],
        "extensions": {},
    }
