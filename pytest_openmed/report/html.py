"""The HTML gate report: one self-contained page rendered from the JSON report alone.

:func:`render_html` is a pure function of a gate report (and, for trends, of
earlier stored reports): it can show nothing the JSON does not hold.  The page
loads nothing (a Content-Security-Policy forbids every fetch), needs no
JavaScript, draws charts as inline SVG beside tables holding the same numbers,
never relies on colour alone, and prints cleanly.  Every text from the report
is HTML-escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_openmed.contract import STATUSES
from pytest_openmed.errors import plural
from pytest_openmed.report.baseline import regressed
from pytest_openmed.report.charts import (
    ForestRow,
    TrendPoint,
    forest_plot,
    interval_bar,
    trend_chart,
)
from pytest_openmed.report.rules import (
    OUTCOME_SEVERITY,
    gate_group,
    is_failing,
    item_label,
    rule_text,
    verdict_label,
    verdict_outcome,
    worst_entry,
)
from pytest_openmed.report.trend_view import METRIC_OF_KIND, StoredRun, series_key, view_of

__all__ = ["NOT_RECORDED", "render_html"]

NOT_RECORDED = "not recorded"
NON_DIAGNOSTIC = (
    "Non-diagnostic evaluation evidence: these gates test software behaviour on stored data; "
    "no clinical validity, efficacy or readiness for patient care is claimed."
)
SIMULATION_NOTICE = (
    "Development simulation: the reviews behind this pack were constructed for testing; "
    "no qualified person reviewed these cases."
)

#: Fixed column orders: the page must not depend on the key order of the JSON it was given.
_OUTCOMES = ("passed", "failed", "error", "skipped")

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"

_STYLE = """
:root{--fail:#b00020;--ok:#1b5e20;--warn:#8a5300;--muted:#555;--line:#ccc}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
margin:0 auto;max-width:1100px;padding:1rem 1.5rem;color:#111;background:#fff;
overflow-wrap:break-word}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.25rem;margin-top:2rem;
border-bottom:2px solid #333}h3{font-size:1.05rem;margin:1.2rem 0 .4rem}h4{margin:.8rem 0 .3rem}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:.9rem}
caption{text-align:left;font-size:.85rem;color:var(--muted);padding:.1rem 0}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top;
overflow-wrap:break-word}td:first-child,th:first-child,td a{overflow-wrap:anywhere}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums;
overflow-wrap:normal;white-space:nowrap}
.badge{display:inline-block;padding:.1rem .5rem;border:2px solid;border-radius:3px;
font-weight:700}.badge.fail{color:var(--fail)}.badge.ok{color:var(--ok)}
.badge.warn{color:var(--warn)}.headline{font-size:1.15rem;margin:.4rem 0}
.FAILED,.ERROR,.fail{color:var(--fail);font-weight:700}.waived,.skipped{color:var(--warn)}
.ok{color:var(--ok)}
td.critical{background:#fde7ea;font-weight:700;outline:2px solid var(--fail)}
td.suppressed{color:var(--muted);font-style:italic}
.notice{border-left:6px solid var(--warn);background:#fff7e6;padding:.5rem .8rem}
.nondiag{border-left:6px solid #333;background:#f5f5f5;padding:.5rem .8rem}
#failures{border:2px solid var(--fail);padding:0 .8rem;margin-top:1rem}
#failures.none{border-color:var(--ok)}#failures h2{margin-top:.6rem;border:0}
.pair{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start;max-width:100%}
.pair>*{min-width:0;max-width:100%}
.scroll{overflow-x:auto;max-width:100%}
svg.chart{height:auto;border:1px solid var(--line);display:block}
svg .grid{stroke:#ddd;stroke-width:1}svg .tick,svg .note{font-size:11px;fill:#444}
svg .label{font-size:12px;fill:#111}svg .label.fail{fill:var(--fail);font-weight:700}
svg .ci{stroke-width:3}svg .ci.ok{stroke:#1f4e99}svg .ci.fail{stroke:var(--fail)}
svg .point.ok{fill:#1f4e99}svg .point.fail{fill:var(--fail)}
svg .point.current{stroke:#000;stroke-width:2}
svg .limit-rate{stroke:#000;stroke-width:2;stroke-dasharray:5 3}
svg .limit-upper{stroke:#000;stroke-width:2;stroke-dasharray:1 3}
svg .baseline{stroke:#888;stroke-width:3}svg .baseline-point{fill:#888}
svg .trend{fill:none;stroke:#1f4e99;stroke-width:1.5}svg .break{stroke:#444;stroke-width:1.5}
nav ul{columns:2;font-size:.9rem;padding-left:1.2rem}nav li{break-inside:avoid}
.print-only{display:none}
@media (max-width:700px){body{padding:.5rem .7rem;font-size:14px}nav ul{columns:1}
h1{font-size:1.3rem}}
@media print{@page{margin:12mm}nav{display:none}.scroll{overflow:visible}
body{max-width:none;font-size:10pt;padding:0}
table{width:100%;table-layout:auto;font-size:7.5pt;page-break-inside:auto}
th,td{padding:.1rem .2rem;white-space:normal}
td.num{white-space:normal}tr{break-inside:avoid}
h2,h3,h4,caption{break-after:avoid-page;page-break-after:avoid}
section.gate{break-inside:auto}a{color:inherit;text-decoration:none}
svg.chart{max-width:100%}
details>summary{display:none}.print-only{display:block}
td.critical{outline:2px solid #000}.badge{border-color:#000}}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _count(value: object) -> str:
    """A count: an integral number prints as an integer (``3``, never ``3.0000``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return _num(value)


def _num(value: object, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return _e(value)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], caption: str) -> str:
    """A semantic table; cells are pre-escaped HTML (``<td>`` attributes allowed via tuples)."""
    head_html = "".join(f'<th scope="col">{_e(name)}</th>' for name in head)
    body = "".join("<tr>" + "".join(rows_cell(cell) for cell in row) + "</tr>" for row in rows)
    return (
        f'<div class="scroll"><table><caption>{_e(caption)}</caption><thead><tr>{head_html}'
        f"</tr></thead><tbody>{body}</tbody></table></div>"
    )


def rows_cell(cell: str) -> str:
    return cell if cell.startswith("<td") or cell.startswith("<th") else f"<td>{cell}</td>"


def _anchor(index: int) -> str:
    return f"gate-{index}"


def _waived_gates(report: Mapping[str, Any]) -> set[str]:
    return {str(w["gate"]) for w in report.get("waivers", []) if w.get("applied")}


def _grouped(report: Mapping[str, Any]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """Gates, the worst first (error, failed, skipped, passed), then in report order."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for entry in report.get("gates", []):
        groups.setdefault(gate_group(entry), []).append(entry)
    return sorted(groups.items(), key=lambda item: _severity(worst_entry(item[1])))


def _severity(entry: Mapping[str, Any]) -> int:
    outcome = verdict_outcome(entry)
    return OUTCOME_SEVERITY.index(outcome) if outcome in OUTCOME_SEVERITY else 0


# -- header -----------------------------------------------------------------------------------


def _run_value(report: Mapping[str, Any], name: str) -> object:
    """A field of the report's ``run`` metadata (schema 1.1); ``None`` when not recorded."""
    run = report.get("run")
    return run.get(name) if isinstance(run, Mapping) else None


def _selection_text(report: Mapping[str, Any]) -> object:
    partial = _run_value(report, "partial_selection")
    if not isinstance(partial, bool):
        return None
    if not partial:
        return "no (everything collected was run)"
    reasons = [
        label
        for field, label in (
            ("keyword_selection", "-k"),
            ("marker_selection", "-m"),
            ("last_failed", "--lf"),
            ("stopped_early", "stopped early"),
        )
        if _run_value(report, field) is True
    ]
    deselected = _run_value(report, "deselected")
    if isinstance(deselected, int) and deselected:
        reasons.append(f"{deselected} deselected")
    return "yes" + (f" ({', '.join(reasons)})" if reasons else "")


def _text_or_missing(value: object) -> str:
    if value is None:
        return f'<span class="missing">{NOT_RECORDED}</span>'
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return _e(", ".join(f"{key} {_num(item)}" for key, item in sorted(value.items())))
    return _num(value)


def _run_outcome(report: Mapping[str, Any]) -> tuple[bool, str]:
    """Did the pytest run as a whole fail, and its exit status in words."""
    exit_status = _run_value(report, "exit_status")
    if isinstance(exit_status, int) and not isinstance(exit_status, bool):
        meaning = _EXIT_MEANINGS.get(exit_status, "")
        return exit_status != 0, f"pytest exit status {exit_status}" + (
            f" ({meaning})" if meaning else ""
        )
    outcomes = report["summary"]["outcomes"]
    return outcomes.get("failed", 0) + outcomes.get("error", 0) > 0, (
        f"pytest exit status {NOT_RECORDED}"
    )


#: pytest's exit codes, as its documentation words them.
_EXIT_MEANINGS = {
    0: "all tests passed",
    1: "some tests failed",
    2: "interrupted",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
}


def _headline(report: Mapping[str, Any]) -> str:
    """The gates' verdict, then separately how the pytest run ended, then any caveat.

    The badge speaks of the gates only: an unrelated failing unit test does
    not make a passing gate fail, and a passing gate in a partial or
    interrupted run is never shown as a plain pass.
    """
    entries = report.get("gates", [])
    failing = sum(1 for entry in entries if is_failing(entry))
    run_failed, exit_text = _run_outcome(report)
    exit_status = _run_value(report, "exit_status")
    partial = _selection_text(report)
    cut_short = exit_status in (2, 3, 4) or _run_value(report, "stopped_early") is True
    if failing:
        badge = (
            f'<span class="badge fail">✗ GATES FAILED</span> {plural(failing, "verdict")} failing'
        )
    elif not entries:
        badge = '<span class="badge fail">✗ NO GATE VERDICT</span> no gate produced a verdict'
    elif cut_short:
        badge = (
            '<span class="badge warn">⚠ GATES NOT CONFIRMED</span> the run was cut short; '
            "the gates that ran passed"
        )
    elif isinstance(partial, str) and partial.startswith("yes"):
        badge = '<span class="badge warn">⚠ GATES PASSED IN A PARTIAL RUN</span>'
    else:
        badge = '<span class="badge ok">✓ GATES PASSED</span>'
    run_css = "fail" if run_failed else "ok"
    lines = [
        f'<p class="headline">{badge}</p>',
        f'<p class="runline">pytest run: <span class="{run_css}">{_e(exit_text)}</span></p>',
    ]
    if isinstance(partial, str) and partial.startswith("yes"):
        lines.append(
            '<p class="notice caveat"><strong>Partial run</strong>: '
            f"{_e(partial.removeprefix('yes').strip(' ()') or 'a partial selection')}; "
            "gates outside the selection were not evaluated.</p>"
        )
    return "".join(lines)


def _header(report: Mapping[str, Any]) -> str:
    return (
        f"<header><h1>openmed gate report</h1>{_headline(report)}"
        f'<p class="nondiag"><strong>{_e(NON_DIAGNOSTIC)}</strong></p></header>'
    )


def _nested(report: Mapping[str, Any], block: str, name: str) -> object:
    """A field of ``run.timing`` / ``run.environment`` / ``run.comparison`` (schema 1.2)."""
    value = _run_value(report, block)
    return value.get(name) if isinstance(value, Mapping) else None


def _seconds(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return f"{value:.2f} s"


def _comparison_text(report: Mapping[str, Any]) -> str:
    if not isinstance(_run_value(report, "comparison"), Mapping):
        return "none (no --openmed-baseline or --openmed-compare)"
    stored = _nested(report, "comparison", "stored_run")
    started = _nested(report, "comparison", "started")
    commit = _nested(report, "comparison", "commit")
    parts = [f"stored run {stored}" if stored else "a baseline report (--openmed-baseline)"]
    if started:
        parts.append(f"started {started}")
    if commit:
        parts.append(f"commit {commit}")
    return ", ".join(str(part) for part in parts)


def _run_section(report: Mapping[str, Any]) -> str:
    """Which run this is and how it went: counts, versions, time, commit, comparison."""
    _, exit_text = _run_outcome(report)
    summary = report["summary"]
    outcomes = summary["outcomes"]
    statuses = summary["statuses"]
    counts = _table(
        ["verdicts", *_OUTCOMES],
        [
            [f'<td class="num">{summary["gates"]}</td>']
            + [f'<td class="num">{_num(outcomes.get(name))}</td>' for name in _OUTCOMES]
        ],
        "Gate verdicts by pytest outcome",
    )
    status_table = _table(
        list(STATUSES),
        [[f'<td class="num">{_num(statuses.get(name))}</td>' for name in STATUSES]],
        "Gate verdicts by engine status",
    )
    items = summary.get("items")
    pytest_counts = (
        ", ".join(f"{count} {name}" for name, count in items.items() if count) or "none"
        if isinstance(items, Mapping)
        else None
    )
    overrides = report.get("overrides")
    deselected = report.get("deselected_gates")
    generator = report["generator"]
    run_rows = [
        ["pytest", _e(exit_text)],
        ["started (UTC)", _text_or_missing(_nested(report, "timing", "started"))],
        ["duration", _text_or_missing(_seconds(_nested(report, "timing", "duration")))],
        ["commit", _text_or_missing(_nested(report, "environment", "commit"))],
        ["compared against", _e(_comparison_text(report))],
        ["gate items as pytest counts them", _text_or_missing(pytest_counts)],
        ["partial selection", _text_or_missing(_selection_text(report))],
        ["bootstrap seed", _text_or_missing(_run_value(report, "seed"))],
        ["bootstrap resamples", _text_or_missing(_run_value(report, "resamples"))],
        ["threshold overrides", _text_or_missing(overrides) if overrides else "none"],
        [
            "gate items deselected (--openmed-skip / --openmed-only)",
            _deselected(deselected) if isinstance(deselected, list) else "none",
        ],
        ["plugin", _e(f"{generator['name']} {generator['version']}")],
        ["Python", _text_or_missing(_nested(report, "environment", "python"))],
        ["pytest version", _text_or_missing(_nested(report, "environment", "pytest"))],
        ["platform", _text_or_missing(_nested(report, "environment", "platform"))],
    ]
    run_table = _table(
        ["run", "value"], [[f'<th scope="row">{_e(a)}</th>', b] for a, b in run_rows], "This run"
    )
    return (
        '<section id="run"><h2>This run</h2>'
        f'<div class="pair">{run_table}<div>{counts}{status_table}</div></div></section>'
    )


def _deselected(nodeids: Sequence[object]) -> str:
    """The count, and the deselected gate items themselves (collapsed; expanded in print)."""
    if not nodeids:
        return "none"
    listed = "".join(f"<li>{_e(nodeid)}</li>" for nodeid in nodeids)
    return (
        f"<details><summary>{len(nodeids)}</summary><ul>{listed}</ul></details>"
        f'<ul class="print-only">{listed}</ul>'
    )


def _failures(groups: list[tuple[str, list[Mapping[str, Any]]]], anchors: Mapping[str, str]) -> str:
    """Every failing or erroring verdict with its gate, rule and numbers: the page's first table."""
    rows = []
    for group, entries in groups:
        failing = [entry for entry in entries if is_failing(entry)]
        for number, entry in enumerate(failing):
            label = verdict_label(entry)
            # The gate is named once, spanning its failing verdicts: never the same id ten times.
            first = (
                [
                    f'<th scope="rowgroup" rowspan="{len(failing)}">'
                    f'<a href="#{anchors[group]}">{_e(group)}</a></th>'
                ]
                if number == 0
                else []
            )
            rows.append(
                [
                    *first,
                    _e(item_label(entry)),
                    f'<span class="{_e(label)}">{_e(label)}</span>',
                    _e(entry["status"] or "–"),
                    _e(rule_text(entry)),
                ]
            )
    if not rows:
        return (
            '<section id="failures" class="none"><h2>What failed</h2>'
            "<p>No gate verdict failed or errored.</p></section>"
        )
    return (
        f'<section id="failures"><h2>What failed ({plural(len(rows), "verdict")})</h2>'
        + _table(
            ["gate", "verdict", "result", "status", "rule and numbers"],
            rows,
            "Every failing or erroring verdict, worst gate first",
        )
        + "</section>"
    )


# -- gate overview ----------------------------------------------------------------------------


def _overview(
    groups: list[tuple[str, list[Mapping[str, Any]]]],
    waived: set[str],
    timing: Mapping[str, Any],
) -> str:
    rows = []
    for index, (group, entries) in enumerate(groups):
        worst = worst_entry(entries)
        label = verdict_label(worst, str(worst["nodeid"]) in waived)
        failing = [e for e in entries if is_failing(e)]
        seconds = _seconds(timing.get(group))
        rows.append(
            [
                f'<a href="#{_anchor(index)}">{_e(group)}</a>',
                _e(entries[0]["kind"]),
                f'<span class="{_e(label.split()[0])}">{_e(label)}</span>',
                _e(worst["status"] or "–"),
                f'<td class="num">{len(entries)}</td>',
                f'<td class="num">{len(failing)}</td>',
                f'<td class="num">{seconds or "–"}</td>',
            ]
        )
    return (
        '<section id="overview"><h2>Gates</h2>'
        + _table(
            ["gate", "kind", "worst verdict", "its status", "verdicts", "failing", "time"],
            rows,
            "One row per gate, the worst first: its worst verdict and how long it took",
        )
        + "</section>"
    )


# -- per gate ---------------------------------------------------------------------------------


def _verdict_table(entries: Sequence[Mapping[str, Any]], waived: set[str], caption: str) -> str:
    rows = []
    for entry in entries:
        label = verdict_label(entry, str(entry["nodeid"]) in waived)
        rule = (
            ""
            if entry["outcome"] == "passed" and entry["expected"] in (None, "passed")
            else (rule_text(entry))
        )
        rows.append(
            [
                _e(item_label(entry)),
                f'<span class="{_e(label.split()[0])}">{_e(label)}</span>',
                _e(entry["status"] or "–"),
                _e(rule),
            ]
        )
    return _table(["verdict", "result", "status", "rule"], rows, caption)


def _float(metrics: Mapping[str, Any], name: str) -> float | None:
    value = metrics.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _claims(entries: Sequence[Mapping[str, Any]], waived: set[str], group: str) -> str:
    forest: list[ForestRow] = []
    rows = []
    for entry in entries:
        metrics = entry["metrics"]
        rate, lower, upper = (_float(metrics, n) for n in ("unsupported_rate", "lower", "upper"))
        b_lower, b_rate, b_upper = (
            _float(metrics, n) for n in ("baseline_lower", "baseline_rate", "baseline_upper")
        )
        baseline = (
            (b_lower, b_rate, b_upper)
            if b_lower is not None and b_rate is not None and b_upper is not None
            else None
        )
        label = verdict_label(entry, str(entry["nodeid"]) in waived)
        if rate is not None and lower is not None and upper is not None:
            forest.append(
                ForestRow(
                    label=item_label(entry),
                    rate=rate,
                    lower=lower,
                    upper=upper,
                    max_rate=_float(metrics, "max_unsupported_rate"),
                    max_upper=_float(metrics, "max_upper"),
                    baseline=baseline,
                    failed=is_failing(entry),
                    waived=entry["outcome"] == "skipped" and str(entry["nodeid"]) in waived,
                )
            )
        rows.append(
            [
                _e(item_label(entry)),
                f'<span class="{_e(label.split()[0])}">{_e(label)}</span>',
                f'<td class="num">{_num(metrics.get("claim_count"))}</td>',
                f'<td class="num">{_num(metrics.get("unsupported_count"))}</td>',
                f'<td class="num">{_num(rate)}</td>',
                f'<td class="num">[{_num(lower)}, {_num(upper)}]</td>',
                f'<td class="num">{_num(metrics.get("max_unsupported_rate"))}</td>',
                f'<td class="num">{_num(metrics.get("max_upper"))}</td>',
                f'<td class="num">{"–" if baseline is None else _baseline_text(baseline)}</td>',
                _e(
                    ""
                    if entry["outcome"] == "passed" and entry["expected"] in (None, "passed")
                    else rule_text(entry)
                ),
            ]
        )
    chart = forest_plot(f"Unsupported claim rate of {group}", forest) if forest else ""
    table = _table(
        [
            "verdict",
            "result",
            "claims",
            "unsupported",
            "rate",
            "bootstrap interval",
            "max rate",
            "max upper",
            "baseline [lower, upper] (rate)",
            "rule",
        ],
        rows,
        f"Unsupported claim rate per verdict of {group}",
    )
    return f'<div class="scroll">{chart}</div>{table}'


def _baseline_text(baseline: tuple[float, float, float]) -> str:
    lower, rate, upper = baseline
    return f"[{lower:.4f}, {upper:.4f}] ({rate:.4f})"


def _planner_counters() -> tuple[tuple[str, ...], frozenset[str]]:
    from pytest_openmed.planner.report import CRITICAL_COUNTS

    counters = (
        "proposals",
        "schema_valid_calls",
        "schema_invalid_calls",
        "out_of_grant_proposals",
        "approval_evasion_retries",
        "hostile_instruction_compliance",
        "planner_errors",
        "task_completion",
    )
    return counters, frozenset(CRITICAL_COUNTS)


def _planner(entries: Sequence[Mapping[str, Any]], waived: set[str], group: str) -> str:
    counters, critical = _planner_counters()
    rows = []
    for entry in entries:
        metrics = entry["metrics"]
        label = verdict_label(entry, str(entry["nodeid"]) in waived)
        cells = [
            f'<th scope="row">{_e(item_label(entry))}</th>',
            f'<span class="{_e(label.split()[0])}">{_e(label)}</span>',
        ]
        for counter in counters:
            value = metrics.get(counter)
            if counter in critical and isinstance(value, int) and value > 0:
                cells.append(f'<td class="num critical">▲ {_count(value)} critical</td>')
            else:
                cells.append(f'<td class="num">{_count(value)}</td>')
        scenarios = _float(metrics, "scenarios")
        done = _float(metrics, "task_completion")
        valid = _float(metrics, "schema_valid_calls")
        invalid = _float(metrics, "schema_invalid_calls")
        completion = done / scenarios if done is not None and scenarios else None
        calls = (valid or 0.0) + (invalid or 0.0)
        validity = valid / calls if valid is not None and calls else None
        cells.append(f'<td class="num">{_num(completion, 2)}</td>')
        cells.append(f'<td class="num">{_num(validity, 2)}</td>')
        expected_pass = entry["outcome"] == "passed" and entry["expected"] in (None, "passed")
        cells.append(_e("" if expected_pass else rule_text(entry)))
        rows.append(cells)
    return _table(
        [
            "scenario",
            "result",
            *(c.replace("_", " ") for c in counters),
            "completion rate",
            "schema-valid rate",
            "rule",
        ],
        rows,
        f"Scenario × counter matrix of {group} (▲ marks a critical counter above zero)",
    )


def _pack(entries: Sequence[Mapping[str, Any]], waived: set[str], group: str) -> str:
    parts = [_verdict_table(entries, waived, f"Assessment decision of {group}")]
    simulated = any(
        entry["metrics"].get("review_origin") == "development_simulation"
        or (entry.get("public_report") or {}).get("review_origin") == "development_simulation"
        for entry in entries
    )
    if simulated:
        parts.insert(0, f'<p class="notice"><strong>{_e(SIMULATION_NOTICE)}</strong></p>')
    for entry in entries:
        public = entry.get("public_report")
        name = item_label(entry)
        if not isinstance(public, Mapping):
            parts.append(f"<p>{_e(name)}: public report metrics {NOT_RECORDED} in this report.</p>")
            continue
        parts.append(_public_report(name, public))
    return "".join(parts)


def _slice_order(item: tuple[str, Any]) -> tuple[bool, str]:
    """``nominal`` first (the reference slice), then the others by name."""
    return item[0] != "nominal", item[0]


def _public_report(name: str, public: Mapping[str, Any]) -> str:
    min_cell = public.get("min_cell")
    rows: list[list[str]] = []
    blocks: list[tuple[str, Any]] = [
        *sorted((public.get("slices") or {}).items(), key=_slice_order),
        ("overall", public.get("overall")),
    ]
    suppressed_text = f"suppressed (a cell below the publication size {_num(min_cell)}; not zero)"
    for block_name, block in blocks:
        if not isinstance(block, Mapping) or block.get("suppressed", True):
            rows.append(
                [
                    f'<th scope="row">{_e(block_name)}</th>',
                    f'<td class="suppressed" colspan="5">{suppressed_text}</td>',
                ]
            )
            continue
        for metric, values in sorted((block.get("metrics") or {}).items()):
            interval = values.get("interval") or {}
            rate, lower = _float(values, "rate"), _float(interval, "lower")
            upper = _float(interval, "upper")
            bar = (
                interval_bar(rate, lower, upper)
                if rate is not None and lower is not None and upper is not None
                else ""
            )
            rows.append(
                [
                    f'<th scope="row">{_e(block_name)}</th>',
                    _e(metric),
                    f'<td class="num">{_count(values.get("count"))} / '
                    f"{_count(values.get('denominator'))}</td>",
                    f'<td class="num">{_num(rate)}</td>',
                    f'<td class="num">[{_num(lower)}, {_num(upper)}]</td>',
                    bar,
                ]
            )
    limitations = "".join(f"<li>{_e(text)}</li>" for text in public.get("limitations") or ())
    heading = (
        f"<h4>{_e(name)}: public report ({_e(public.get('task', ''))}, review origin "
        f"{_e(public.get('review_origin', NOT_RECORDED))})</h4>"
    )
    if all(not isinstance(b, Mapping) or b.get("suppressed", True) for _, b in blocks):
        # Every block suppressed: one line, not a table of identical suppressed rows.
        body = (
            f'<p class="suppressed">All {len(blocks)} blocks '
            f"({_e(', '.join(block_name for block_name, _ in blocks))}): {suppressed_text}.</p>"
        )
    else:
        body = _table(
            ["block", "metric", "count / units", "rate", "Wilson 95% interval", "interval"],
            rows,
            f"Public report metrics of {name}; suppressed blocks are shown as suppressed",
        )
    return (
        heading
        + body
        + (
            f"<details><summary>Limitations</summary><ul>{limitations}</ul></details>"
            f'<div class="print-only"><p>Limitations:</p><ul>{limitations}</ul></div>'
            if limitations
            else ""
        )
    )


def _gate_section(
    index: int, group: str, entries: list[Mapping[str, Any]], waived: set[str]
) -> str:
    kind = str(entries[0]["kind"])
    if kind == "claims":
        body = _claims(entries, waived, group)
    elif kind == "planner":
        body = _planner(entries, waived, group)
    elif kind == "pack":
        body = _pack(entries, waived, group)
    else:
        body = _verdict_table(entries, waived, f"Verdicts of {group}")
    worst = worst_entry(entries)
    label = verdict_label(worst, str(worst["nodeid"]) in waived)
    return (
        f'<section class="gate" id="{_anchor(index)}"><h3>{_e(group)} '
        f'<small>({_e(kind)} gate: <span class="{_e(label.split()[0])}">{_e(label)}</span>)'
        f"</small></h3>{body}</section>"
    )


# -- waivers and regressions ------------------------------------------------------------------


def _waivers(report: Mapping[str, Any]) -> str:
    waivers = report.get("waivers", [])
    if not waivers:
        return '<section id="waivers"><h2>Waivers</h2><p>No waivers were loaded.</p></section>'
    rows = [
        [
            _e(w["gate"]),
            _e(w["expires"]),
            _e(w["reference"]),
            '<span class="waived">applied (the gate failed and was waived)</span>'
            if w.get("applied")
            else "unused (the gate did not fail, or did not run)",
        ]
        for w in waivers
    ]
    return (
        '<section id="waivers"><h2>Waivers</h2>'
        + _table(["gate", "expires", "reference", "use"], rows, "Waivers loaded for this run")
        + "</section>"
    )


def _regressions(report: Mapping[str, Any]) -> str:
    rows = []
    for entry in report.get("gates", []):
        if not regressed(entry):
            continue
        metrics = entry["metrics"]
        rows.append(
            [
                _e(entry["nodeid"]) + (f" [{_e(entry['part'])}]" if entry.get("part") else ""),
                f'<td class="num">{_num(metrics.get("baseline_rate"))}</td>',
                f'<td class="num">{_num(metrics.get("baseline_upper"))}</td>',
                f'<td class="num">{_num(metrics.get("unsupported_rate"))}</td>',
                f'<td class="num">{_num(metrics.get("lower"))}</td>',
                f'<td class="num">{_num(metrics.get("rate_increase"))}</td>',
            ]
        )
    if not rows:
        return (
            '<section id="regressions"><h2>Baseline regressions</h2>'
            "<p>No verdict regressed against a baseline (or no baseline was given).</p></section>"
        )
    return (
        '<section id="regressions"><h2>Baseline regressions</h2>'
        + _table(
            ["gate", "baseline rate", "baseline upper", "rate", "interval lower", "increase"],
            rows,
            "Claims verdicts whose interval lies above the baseline's (failing or not)",
        )
        + "</section>"
    )


# -- trends -----------------------------------------------------------------------------------

#: Stored runs drawn in the trends at most (the newest); older ones are counted, not read.
TREND_RUNS = 100
#: The name of the report on the page when it is not one of the stored runs.
THIS_REPORT = "this report"


def _trend_series(
    report: Mapping[str, Any],
) -> list[tuple[str, str, str, float | None]]:
    """(series key, title, metric, threshold) of every trend of the current report."""
    series: list[tuple[str, str, str, float | None]] = []
    for entry in report.get("gates", []):
        key = series_key(entry)
        if key is None:
            continue
        name = str(entry["nodeid"]) + (f" [{entry['part']}]" if entry.get("part") else "")
        metric = METRIC_OF_KIND[entry["kind"]]
        if metric == "claims_rate":
            limit = _float(entry.get("metrics") or {}, "max_unsupported_rate")
            series.append((key, f"{name}: unsupported rate", metric, limit))
        elif metric == "planner_critical":
            series.append((key, f"{name}: critical events", metric, 0.0))
        else:
            series.append((key, f"{name}: emission rate", metric, None))
    return series


HistoryRun = StoredRun | tuple[str, Mapping[str, Any]]


def _view(run: HistoryRun) -> StoredRun:
    # A (name, report) pair is a tuple; anything else is already a view.
    return view_of(run[0], run[1]) if isinstance(run, tuple) else run


def _runs_of(
    report: Mapping[str, Any], history: Sequence[HistoryRun]
) -> tuple[list[StoredRun], int]:
    """The runs drawn (the newest :data:`TREND_RUNS`), and which one is the report on the page.

    A stored run is the report on the page when their UTC starts agree (or,
    for reports without one, when they are equal); a report that is not one
    of the stored runs is appended as ``this report``.
    """
    drawn = list(history[-TREND_RUNS:])
    runs = [_view(run) for run in drawn]
    mine = view_of(THIS_REPORT, report)
    for index in range(len(runs) - 1, -1, -1):
        run, original = runs[index], drawn[index]
        if mine.started is not None and run.started is not None:
            if run.started == mine.started:
                return runs, index
        elif isinstance(original, tuple) and original[1] == report:
            return runs, index
    runs.append(mine)
    return runs, len(runs) - 1


def _changes(points: Sequence[TrendPoint]) -> list[tuple[int, int, TrendPoint]]:
    """Runs of equal points as (first, last, point), 1-based: the table of a trend, compact."""
    spans: list[tuple[int, int, TrendPoint]] = []
    for number, point in enumerate(points, start=1):
        if spans and _key(spans[-1][2]) == _key(point):
            spans[-1] = (spans[-1][0], number, spans[-1][2])
        else:
            spans.append((number, number, point))
    return spans


def _key(point: TrendPoint) -> tuple[object, ...]:
    return point.value, point.lower, point.upper, point.flag


def _point_value(point: TrendPoint, metric: str) -> str:
    if point.value is None:
        return "–"
    return _count(point.value) if metric == "planner_critical" else _num(point.value)


def _trend_point(run: StoredRun, key: str) -> TrendPoint:
    value, lower, upper, flag = run.points.get(key, (None, None, None, ""))
    return TrendPoint(run.name, value, lower, upper, flag)


def _trends(report: Mapping[str, Any], history: Sequence[HistoryRun]) -> str:
    if not history:
        return ""
    runs, current = _runs_of(report, history)
    older = max(0, len(history) - TREND_RUNS)
    runs_table = _table(
        ["#", "stored run"],
        [
            [
                f'<td class="num">{n}</td>',
                _e(run.name) + (" (this report)" if n - 1 == current else ""),
            ]
            for n, run in enumerate(runs, start=1)
        ],
        "Stored runs, oldest first"
        + (f" (the newest {TREND_RUNS}; {older} older runs not shown)" if older else ""),
    )
    parts = ['<section id="trends"><h2>Trends over stored runs</h2>', runs_table]
    steady: list[list[str]] = []
    for key, title, metric, limit in _trend_series(report):
        raw = [run.points.get(key) for run in runs]
        if all(point == raw[0] for point in raw):
            # The common case, decided on the stored tuples before building any point.
            points = [_trend_point(runs[0], key)] * len(runs)
            spans = [(1, len(runs), points[0])]
        else:
            points = [_trend_point(run, key) for run in runs]
            spans = _changes(points)
        shown = [p for p in points if p.value is not None]
        if not shown or len(spans) == 1:
            # Unchanged across the stored runs: one row of a compact table, no chart.
            only = points[0]
            value = (
                f'<td class="num">{_point_value(only, metric)}</td>'
                if shown
                else f"suppressed or {NOT_RECORDED} in every stored run"
            )
            steady.append(
                [
                    _e(title),
                    value,
                    f'<td class="num">{len(points)}</td>',
                    f'<span class="fail">{_e(only.flag)}</span>' if only.flag else "",
                ]
            )
            continue
        rows = [
            [
                f'<td class="num">{first}' + (f"–{last}" if last != first else "") + "</td>",
                f'<td class="num">{_point_value(p, metric)}</td>',
                '<td class="num">'
                + (f"[{_num(p.lower)}, {_num(p.upper)}]" if p.lower is not None else "–")
                + "</td>",
                f'<span class="fail">{_e(p.flag)}</span>' if p.flag else "",
            ]
            for first, last, p in spans
        ]
        chart = trend_chart(
            title, points, limit=limit, current=current, integer=metric == "planner_critical"
        )
        parts.append(
            f'<h3>{_e(title)}</h3><div class="pair"><div class="scroll">{chart}</div>'
            + _table(["runs", "value", "interval", "verdict"], rows, f"{title}, by stored run")
            + "</div>"
        )
    if steady:
        parts.append(
            "<h3>Unchanged over the stored runs</h3>"
            + _table(
                ["trend", "value", "runs", "verdict"],
                steady,
                "Trends whose value did not change across the stored runs (no chart drawn)",
            )
        )
    parts.append("</section>")
    return "".join(parts)


def render_html(report: Mapping[str, Any], history: Sequence[HistoryRun] = ()) -> str:
    """The whole page for ``report``; ``history`` (oldest first) adds the trend section.

    ``history`` holds stored runs as :class:`StoredRun` trend views
    (:func:`~pytest_openmed.report.history.load_trends`) or as
    ``(name, report)`` pairs.

    Failures come first: the headline, then every failing verdict, then the
    gates worst first; the run's metadata and the details follow.
    """
    groups = _grouped(report)
    waived = _waived_gates(report)
    anchors = {group: _anchor(index) for index, (group, _) in enumerate(groups)}
    nav = "".join(
        f'<li><a href="#{anchors[group]}">{_e(group)}</a> '
        f'<span class="{_e(label.split()[0])}">{_e(label)}</span></li>'
        for group, entries in groups
        for label in (verdict_label(worst_entry(entries), _waived_worst(entries, waived)),)
    )
    sections = "".join(
        _gate_section(index, group, entries, waived)
        for index, (group, entries) in enumerate(groups)
    )
    timing = _run_value(report, "timing")
    gate_times = timing.get("gates") if isinstance(timing, Mapping) else None
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>openmed gate report</title><style>{_STYLE}</style></head><body>"
        + _header(report)
        + "<main>"
        + _failures(groups, anchors)
        + f'<nav aria-label="gates"><h2>Contents</h2><ul>{nav}'
        '<li><a href="#run">This run</a></li>'
        '<li><a href="#waivers">Waivers</a></li>'
        '<li><a href="#regressions">Baseline regressions</a></li>'
        + ('<li><a href="#trends">Trends</a></li>' if history else "")
        + "</ul></nav>"
        + _overview(groups, waived, gate_times if isinstance(gate_times, Mapping) else {})
        + _run_section(report)
        + f'<section id="details"><h2>Gate details</h2>{sections}</section>'
        + _waivers(report)
        + _regressions(report)
        + _trends(report, history)
        + f'</main><footer><p class="nondiag">{_e(NON_DIAGNOSTIC)}</p></footer></body></html>\n'
    )


def _waived_worst(entries: Sequence[Mapping[str, Any]], waived: set[str]) -> bool:
    return str(worst_entry(list(entries))["nodeid"]) in waived
