"""Which comparison a verdict failed, said in words, from the report entry alone.

A failing verdict's ``reason`` names a closed rule; :meth:`GateResult.rule_text`
words the comparison behind it with the entry's own public numbers, so a reader
of the Markdown summary or the HTML report sees the rule without reading every
metric.  This module also groups verdicts by gate and ranks their outcomes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_openmed.contract import MISSING_DEPENDENCY

__all__ = [
    "gate_group",
    "is_failing",
    "item_label",
    "rule_text",
    "verdict_label",
    "verdict_outcome",
    "worst_entry",
]

#: Outcomes from worst to best: the summary row of a gate shows its worst one.
OUTCOME_SEVERITY = ("error", "failed", "skipped", "passed")


def rule_text(entry: Mapping[str, Any]) -> str:
    """The failed comparison of one verdict (:meth:`GateResult.rule_text`, the one wording)."""
    from pytest_openmed.contract import GateResult, GateStatus

    if entry.get("status") is None:
        if entry.get("reason") == MISSING_DEPENDENCY:
            # An uninstalled extra is not refused input: say what it is.
            return "missing dependency (no verdict)"
        return "input refused (no verdict)" if entry.get("outcome") == "error" else "no verdict"
    try:
        result = GateResult(
            entry["kind"], GateStatus(entry["status"]), entry["reason"], entry["metrics"]
        )
    except (KeyError, TypeError, ValueError):
        return f"{entry.get('status')} ({entry.get('reason')})"
    return result.rule_text()


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


def verdict_outcome(entry: Mapping[str, Any]) -> str:
    """This verdict's own outcome: ``passed``, ``failed``, ``error`` or ``skipped``.

    A test that scores several verdicts (``claim_scorer``) has one pytest
    outcome; each verdict is judged by its own status against the status it
    was expected to reach, so a class inside its threshold is never shown as
    failed because a sibling verdict failed the test.  A record without a
    status (refused input, a custom gate) takes the test's outcome.
    """
    outcome = str(entry.get("outcome"))
    status = entry.get("status")
    if outcome == "skipped" or status is None:
        return outcome
    expected = entry.get("expected") or "passed"
    if status == expected:
        return "passed"
    return "error" if outcome == "error" else "failed"


def is_failing(entry: Mapping[str, Any]) -> bool:
    """Does this verdict fail or error on its own (:func:`verdict_outcome`)?"""
    return verdict_outcome(entry) in ("failed", "error")


def verdict_label(entry: Mapping[str, Any], waived: bool = False) -> str:
    """A word for the reader, from the verdict's own status: passed, FAILED, ERROR, waived…"""
    outcome = verdict_outcome(entry)
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
    """The entry with the worst outcome of its own, then a non-passing status; first of equals."""
    return min(
        entries,
        key=lambda entry: (
            OUTCOME_SEVERITY.index(outcome)
            if (outcome := verdict_outcome(entry)) in OUTCOME_SEVERITY
            else 0,
            entry.get("status") == "passed",
        ),
    )
