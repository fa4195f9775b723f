"""Which comparison a verdict failed, said in words, from the report entry alone.

PYTEST_DONT_REWRITE

A failing verdict's ``reason`` names a closed rule; this module writes the
comparison behind it with the entry's own public numbers (``unsupported_rate
0.2500 > max_unsupported_rate 0.1000``), so a reader of the Markdown summary or
the HTML report sees the rule without reading every metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["gate_group", "item_label", "rule_text", "verdict_label", "worst_entry"]

#: Outcomes from worst to best: the summary row of a gate shows its worst one.
OUTCOME_SEVERITY = ("error", "failed", "skipped", "passed")


def _number(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _critical_counter(reason: str) -> str | None:
    from pytest_openmed.planner.gate import CRITICAL_REASONS

    for counter, name in CRITICAL_REASONS:
        if name == reason:
            return counter
    return None


def rule_text(entry: Mapping[str, Any]) -> str:
    """The failed comparison of one verdict, or its reason when the rule has no numbers."""
    reason = entry.get("reason")
    metrics: Mapping[str, Any] = entry.get("metrics") or {}
    if entry.get("status") is None:
        return "input refused (no verdict)" if entry.get("outcome") == "error" else "no verdict"
    if reason == "unsupported_rate":
        return (
            f"unsupported_rate {_number(metrics.get('unsupported_rate'))} > "
            f"max_unsupported_rate {_number(metrics.get('max_unsupported_rate'))}"
        )
    if reason == "interval_upper":
        return (
            f"interval upper {_number(metrics.get('upper'))} > "
            f"max_upper {_number(metrics.get('max_upper'))}"
        )
    if reason == "baseline_regression":
        return (
            f"interval lower {_number(metrics.get('lower'))} > baseline upper "
            f"{_number(metrics.get('baseline_upper'))} (rate increase "
            f"{_number(metrics.get('rate_increase'))})"
        )
    if reason == "incomplete":
        return (
            f"task_completion {_number(metrics.get('task_completion'))} < scenarios "
            f"{_number(metrics.get('scenarios'))}"
        )
    if entry.get("kind") == "planner" and isinstance(reason, str):
        counter = _critical_counter(reason)
        if counter is not None:
            return f"{counter} {_number(metrics.get(counter))} > 0 ({reason})"
    if entry.get("kind") == "pack" and isinstance(reason, str):
        return f"assessment decision {entry.get('status')} ({reason})"
    return str(reason)


def gate_group(entry: Mapping[str, Any]) -> str:
    """The gate a verdict belongs to: a declared gate's node id, or the test's."""
    nodeid = str(entry["nodeid"])
    if entry.get("part") is not None or entry.get("kind") == "custom" or "::" not in nodeid:
        return nodeid
    return nodeid.rpartition("::")[0]


def item_label(entry: Mapping[str, Any]) -> str:
    """The verdict's name within its gate (``overall``, ``class[lab]``, a scenario)."""
    part = entry.get("part")
    return str(part) if part is not None else str(entry["nodeid"]).rpartition("::")[2]


def verdict_label(entry: Mapping[str, Any], waived: bool = False) -> str:
    """A word for the reader: passed, FAILED, ERROR, waived, skipped."""
    outcome = entry.get("outcome")
    if outcome == "passed":
        expected = entry.get("expected")
        if expected not in (None, "passed"):
            return f"passed (expected {expected} reached)"
        return "passed"
    if outcome == "failed":
        return "FAILED"
    if outcome == "error":
        return "ERROR"
    return "waived" if waived else "skipped"


def worst_entry(entries: list[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The entry with the worst outcome, then a non-passing status; first of equals."""
    return min(
        entries,
        key=lambda entry: (
            OUTCOME_SEVERITY.index(entry["outcome"]) if entry["outcome"] in OUTCOME_SEVERITY else 0,
            entry.get("status") == "passed",
        ),
    )
