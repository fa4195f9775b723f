"""Compact, value-free Markdown summary of a gate report (CI step summaries).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import groupby
from typing import Any

__all__ = ["KEY_METRICS", "render_markdown", "summary_line", "terminal_lines"]

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
    "task_completion",
    "units",
    "reviews",
    "adjudications",
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


def summary_line(entry: Mapping[str, Any]) -> str:
    """One terminal line: outcome, status, gate, rule and key counts."""
    status = entry["status"] or ("-" if entry["outcome"] != "error" else "refused")
    detail = "" if entry["reason"] in (None, "ok") else f" ({entry['reason']})"
    if entry["expected"] not in (None, "passed"):
        detail += f", expected {entry['expected']}"
    metrics = _metric_text(entry["metrics"])
    line = f"{str(entry['outcome']).upper():7} {status:9} {_name(entry)}{detail}"
    return f"{line}: {metrics}" if metrics and entry["outcome"] != "passed" else line


def _item_label(entry: Mapping[str, Any]) -> str:
    return str(entry["part"] or str(entry["nodeid"]).rpartition("::")[2])


def terminal_lines(entries: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, str]]:
    """(line, colour) pairs: one line for a gate whose items all passed, one per item otherwise.

    ``entries`` are sorted verdict records carrying ``group`` (the gate's or
    test's node id).  A control whose engine reached its expected failing
    status on purpose says so on its line.
    """
    for group, grouped in groupby(entries, key=lambda entry: entry["group"]):
        items = list(grouped)
        if all(entry["outcome"] == "passed" for entry in items):
            reached = [
                f"{_item_label(entry)} {entry['status']} ({entry['reason']})"
                for entry in items
                if entry["status"] not in (None, "passed")
            ]
            count = f"{len(items)} verdict" + ("s" if len(items) != 1 else "")
            line = f"PASSED  {group} ({count})"
            outcomes = {(entry["status"], entry["reason"]) for entry in items}
            if reached and len(reached) == len(items) and len(outcomes) == 1:
                status, reason = outcomes.pop()
                line += f"; expected status reached: {status} ({reason}) on all {len(items)}"
            elif reached:
                line += "; expected statuses reached: " + ", ".join(reached)
            yield line, "green"
        else:
            for entry in items:
                colour = "green" if entry["outcome"] == "passed" else "red"
                yield summary_line(entry), colour if entry["outcome"] != "skipped" else "yellow"


def _md_code(text: str) -> str:
    """Inline code safe inside a Markdown table cell (``|`` would end the cell)."""
    return "`" + text.replace("`", "'").replace("|", "\\|") + "`"


def render_markdown(report: Mapping[str, Any]) -> str:
    """The gate report in short: one row per gate (its worst verdict), failures beneath.

    The full per-verdict table stays in the JSON and HTML reports.
    """
    from pytest_openmed.report.rules import gate_group, rule_text, verdict_label, worst_entry

    summary = report["summary"]
    outcomes = summary["outcomes"]
    waived = {w["gate"] for w in report.get("waivers", []) if w["applied"]}
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for entry in report["gates"]:
        groups.setdefault(gate_group(entry), []).append(entry)
    lines = [
        "## openmed gates",
        "",
        f"{summary['gates']} gate verdicts: "
        + ", ".join(f"{count} {name}" for name, count in sorted(outcomes.items()) if count),
        "",
        "| gate | kind | worst verdict | status | verdicts | failing |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    failures: list[str] = []
    for group, entries in groups.items():
        worst = worst_entry(entries)
        failing = [e for e in entries if e["outcome"] in ("failed", "error")]
        lines.append(
            f"| {_md_code(group)} | {entries[0]['kind']} "
            f"| {verdict_label(worst, worst['nodeid'] in waived)} | {worst['status'] or '-'} "
            f"| {len(entries)} | {len(failing)} |"
        )
        failures += [
            f"- {_md_code(_name(entry))}: {verdict_label(entry)} "
            f"{entry['status'] or '-'}: {rule_text(entry)}"
            for entry in failing
        ]
    if failures:
        lines += ["", "Failures (the rule that failed):", "", *failures]
    waivers = report.get("waivers", [])
    if any(waiver["applied"] for waiver in waivers):
        lines += ["", "Waivers applied:", ""]
        lines += [
            f"- {_md_code(waiver['gate'])} until {waiver['expires']} (ref {waiver['reference']})"
            for waiver in waivers
            if waiver["applied"]
        ]
    lines += ["", "_Non-diagnostic evaluation evidence; no clinical validity is claimed._", ""]
    return "\n".join(lines)
