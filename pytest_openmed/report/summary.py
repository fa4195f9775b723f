"""Compact, value-free Markdown summary of a gate report (CI step summaries)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from itertools import groupby
from typing import Any

from pytest_openmed.contract import MISSING_DEPENDENCY
from pytest_openmed.errors import plural
from pytest_openmed.multimodal.vocabulary import ReportOrigin

__all__ = [
    "KEY_METRICS",
    "outcome_counts",
    "render_markdown",
    "terminal_lines",
    "verdict_breakdown",
    "verdict_text",
]

#: Metrics shown beside a verdict, in this order, when present.
KEY_METRICS = (
    "claim_count",
    "unsupported_count",
    "unsupported_rate",
    "lower",
    "upper",
    "rate_increase",
    "proposals",
    "schema_invalid_calls",
    "out_of_grant_proposals",
    "approval_evasion_retries",
    "hostile_instruction_compliance",
    "planner_errors",
    "planner_error_cause",
    "task_completion",
    "suite.compliance_rate",
    "suite.compliance_upper",
    "units",
    "reviews",
    "adjudications",
    "review_origin",
)


def _metric_text(metrics: Mapping[str, Any]) -> str:
    shown = []
    for name in KEY_METRICS:
        if name in metrics:
            value = metrics[name]
            shown.append(f"{name}={value:.4f}" if isinstance(value, float) else f"{name}={value}")
    return ", ".join(shown)


def _name(entry: Mapping[str, Any]) -> str:
    return str(entry["nodeid"]) + (f" [{entry['part']}]" if entry["part"] else "")


def verdict_text(entry: Mapping[str, Any]) -> str:
    """A verdict in words: ``passed``, or the status, the rule first, then key metrics."""
    if entry["status"] is None:
        if entry["reason"] == MISSING_DEPENDENCY:
            # An uninstalled extra is not refused input: say what it is.
            return "missing dependency"
        return "no engine verdict" if entry["kind"] == "custom" else "inputs refused"
    status = str(entry["status"])
    expected = entry["expected"]
    if status == "passed":
        return "passed"
    text = f"{status}: {_rule(entry)}"
    if expected not in (None, "passed"):
        text += f" (control expects {expected})"
    metrics = _metric_text(entry["metrics"])
    return f"{text}; {metrics}" if metrics else text


def _rule(entry: Mapping[str, Any]) -> str:
    from pytest_openmed.contract import GateResult, GateStatus

    try:
        result = GateResult(
            entry["kind"], GateStatus(entry["status"]), entry["reason"], entry["metrics"]
        )
    except (TypeError, ValueError):
        return f"({entry['reason']})"
    return result.rule_text()


#: Terminal labels of pytest's item outcomes (as ``-rA`` prints them).
_LABELS = {
    "passed": "PASSED",
    "failed": "FAILED",
    "error": "ERROR",
    "skipped": "SKIPPED",
    "xfailed": "XFAIL",
    "xpassed": "XPASS",
}


def outcome_counts(counts: Mapping[str, int]) -> str:
    """Item counts as pytest's final line words them (``1 failed, 2 passed, 2 errors``)."""
    shown = []
    for name, count in counts.items():
        if count:
            word = "errors" if name == "error" and count != 1 else name
            shown.append(f"{count} {word}")
    return ", ".join(shown) or "none"


def _item_label(entry: Mapping[str, Any]) -> str:
    return str(entry["part"] or str(entry["nodeid"]).rpartition("::")[2])


def terminal_lines(
    entries: Sequence[Mapping[str, Any]], items: Mapping[str, str]
) -> Iterator[tuple[str, str]]:
    """(line, colour) pairs: one line for a gate whose items all passed, else one per item.

    ``entries`` are sorted verdict records carrying ``group`` (the gate's or
    test's node id); ``items`` maps a node id to its pytest outcome.  An item
    line starts with that outcome, so it always agrees with pytest; a test
    with several verdicts lists them indented below its one outcome line.  A
    control whose engine reached its expected failing status on purpose says so.
    """
    for group, grouped in groupby(entries, key=lambda entry: entry["group"]):
        gate = list(grouped)
        if all(items.get(entry["nodeid"]) == "passed" for entry in gate):
            yield _passed_group(group, gate), "green"
            continue
        for nodeid, node in groupby(gate, key=lambda entry: entry["nodeid"]):
            verdicts = list(node)
            outcome = items.get(nodeid, "passed")
            label = f"{_LABELS[outcome]:7} {nodeid}"
            colour = {"passed": "green", "xpassed": "green", "xfailed": "yellow"}.get(
                outcome, "red" if outcome in ("failed", "error") else "yellow"
            )
            if len(verdicts) == 1 and verdicts[0]["part"] is None:
                yield f"{label}: {verdict_text(verdicts[0])}", colour
                continue
            yield label, colour
            for entry in verdicts:
                yield f"          {_item_label(entry)}: {verdict_text(entry)}", colour


def _passed_group(group: str, gate: Sequence[Mapping[str, Any]]) -> str:
    reached = [
        f"{_item_label(entry)} {entry['status'] or 'refused'} ({entry['reason']})"
        for entry in gate
        if entry["status"] not in (None, "passed")
        or (entry["status"] is None and entry["reason"] not in (None, MISSING_DEPENDENCY))
    ]
    count = f"{len(gate)} verdict" + ("s" if len(gate) != 1 else "")
    line = f"PASSED  {group} ({count})"
    outcomes = {(entry["status"], entry["reason"]) for entry in gate}
    if reached and len(reached) == len(gate) and len(outcomes) == 1:
        status, reason = outcomes.pop()
        line += f"; expected status reached: {status} ({reason}) on all {len(gate)}"
    elif reached:
        line += "; expected statuses reached: " + ", ".join(reached)
    if any(_simulated(entry) for entry in gate):  # said in every channel, passing or not
        line += f"; review_origin={SIMULATED_ORIGIN}"
    return line


#: The ``review_origin`` of a pack verdict over simulated reviews (docs/multimodal.md).
SIMULATED_ORIGIN = ReportOrigin.DEVELOPMENT_SIMULATION.value


def _simulated(entry: Mapping[str, Any]) -> bool:
    metrics = entry.get("metrics")
    return isinstance(metrics, Mapping) and metrics.get("review_origin") == SIMULATED_ORIGIN


def _cell(text: str) -> str:
    """Table-cell text: ``|`` would end the cell even inside a code span (GFM)."""
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    """``text`` as one literal code span, whatever backticks it holds (CommonMark 6.1).

    The fence is one backtick longer than the longest run inside, so a
    backtick in a test id cannot end the span and let the rest (raw HTML such
    as ``<img src=…>``) through; a space pads text that starts or ends with a
    backtick.  A line break would end the table row: it becomes a space.
    """
    text = _cell(" ".join(text.splitlines()))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def verdict_breakdown(report: Mapping[str, Any]) -> dict[str, int]:
    """Verdicts by status, then gate records without a verdict: refused or missing a dependency.

    The terminal summary and the Markdown summary both count with this, so they agree.
    """
    verdicts = dict(report["summary"]["statuses"])
    unjudged = [entry for entry in report["gates"] if entry["status"] is None]
    missing = sum(1 for entry in unjudged if entry["reason"] == MISSING_DEPENDENCY)
    # Refused: an error, or a closed refusal reason the run expected (a control's
    # underpowered class passes as expected, yet its engine still refused it).
    refused = sum(
        1
        for entry in unjudged
        if entry["reason"] != MISSING_DEPENDENCY
        and (entry.get("outcome") == "error" or entry["reason"] is not None)
    )
    verdicts["refused"] = refused
    verdicts["missing dependency"] = missing
    # A tagged test that carried no engine verdict and no refusal (a custom gate).
    verdicts["no engine verdict"] = len(unjudged) - missing - refused
    return verdicts


def _counts_line(report: Mapping[str, Any]) -> str:
    summary = report["summary"]
    verdicts = f"{plural(summary['gates'], 'verdict')}: " + ", ".join(
        f"{count} {name}" for name, count in verdict_breakdown(report).items() if count
    )
    items = summary.get("items")  # absent from schema 1.0 reports (stored history)
    if not isinstance(items, Mapping):
        return verdicts
    return f"{plural(sum(items.values()), 'gate item')}: {outcome_counts(items)}; {verdicts}"


def _run_lines(report: Mapping[str, Any]) -> list[str]:
    """Which run this is (schema 1.2): UTC start, duration, commit, what it was compared with.

    Only values of fixed shapes (a timestamp, seconds, a hexadecimal commit, a
    stored run's name) are shown; a report without them adds nothing.
    """
    run = report.get("run")
    if not isinstance(run, Mapping):
        return []
    timing, environment = run.get("timing"), run.get("environment")
    comparison = run.get("comparison")
    parts = []
    if isinstance(timing, Mapping) and isinstance(timing.get("started"), str):
        parts.append(f"started {timing['started']}")
        duration = timing.get("duration")
        if isinstance(duration, int | float) and not isinstance(duration, bool):
            parts.append(f"{duration:.2f} s")
    if isinstance(environment, Mapping) and isinstance(environment.get("commit"), str):
        parts.append(f"commit {environment['commit']}")
    if isinstance(comparison, Mapping):
        stored = comparison.get("stored_run")
        parts.append(
            f"compared with stored run {stored}"
            if isinstance(stored, str)
            else "compared with a baseline"
        )
    return [f"Run: {', '.join(parts)}.", ""] if parts else []


def render_markdown(report: Mapping[str, Any]) -> str:
    """The gate report in short: one row per gate (its worst verdict), failures beneath.

    The full per-verdict table stays in the JSON and HTML reports.
    """
    from pytest_openmed.report.rules import (
        gate_group,
        is_failing,
        rule_text,
        verdict_label,
        worst_entry,
    )

    waived = {w["gate"] for w in report.get("waivers", []) if w["applied"]}
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for entry in report["gates"]:
        groups.setdefault(gate_group(entry), []).append(entry)
    lines = [
        "## openmed gates",
        "",
        _counts_line(report),
        "",
        *_run_lines(report),
        "| gate | kind | worst verdict | status | verdicts | failing |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    failures: list[str] = []
    for group, entries in groups.items():
        worst = worst_entry(entries)
        failing = [e for e in entries if is_failing(e)]
        lines.append(
            f"| {_code(group)} | {entries[0]['kind']} "
            f"| {verdict_label(worst, worst['nodeid'] in waived)} | {worst['status'] or '-'} "
            f"| {len(entries)} | {len(failing)} |"
        )
        failures += [
            f"- {_code(_name(entry))}: {verdict_label(entry)} "
            f"{entry['status'] or '-'}: {rule_text(entry)}"
            for entry in failing
        ]
    if failures:
        lines += ["", "Failures (the rule that failed):", "", *failures]
    waivers = report.get("waivers", [])
    if any(waiver["applied"] for waiver in waivers):
        lines += ["", "Waivers applied:", ""]
        lines += [
            f"- {_code(waiver['gate'])} until {waiver['expires']} (ref {waiver['reference']})"
            for waiver in waivers
            if waiver["applied"]
        ]
    lines += ["", "_Non-diagnostic evaluation evidence; no clinical validity is claimed._", ""]
    return "\n".join(lines)
