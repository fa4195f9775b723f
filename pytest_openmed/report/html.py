"""The HTML gate report: one self-contained page rendered from the JSON report alone.

PYTEST_DONT_REWRITE

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
from pytest_openmed.report.baseline import regressed
from pytest_openmed.report.charts import (
    ForestRow,
    TrendPoint,
    forest_plot,
    interval_bar,
    trend_chart,
)
from pytest_openmed.report.rules import (
    gate_group,
    is_failing,
    item_label,
    rule_text,
    verdict_label,
    worst_entry,
)

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
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
margin:0 auto;max-width:1100px;padding:1rem 1.5rem;color:#111;background:#fff}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.25rem;margin-top:2rem;
border-bottom:2px solid #333}h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:.9rem}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.1rem .5rem;border:2px solid;border-radius:3px;
font-weight:700}.badge.fail{color:var(--fail)}.badge.ok{color:var(--ok)}
.badge.warn{color:var(--warn)}
.FAILED,.ERROR,.fail{color:var(--fail);font-weight:700}.waived,.skipped{color:var(--warn)}
td.critical{background:#fde7ea;font-weight:700;outline:2px solid var(--fail)}
td.suppressed{color:var(--muted);font-style:italic}
.notice{border-left:6px solid var(--warn);background:#fff7e6;padding:.5rem .8rem}
.nondiag{border-left:6px solid #333;background:#f5f5f5;padding:.5rem .8rem}
.pair{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
svg.chart{max-width:100%;height:auto;border:1px solid var(--line)}
svg .grid{stroke:#ddd;stroke-width:1}svg .tick,svg .note{font-size:11px;fill:#444}
svg .label{font-size:12px;fill:#111}svg .label.fail{fill:var(--fail);font-weight:700}
svg .ci{stroke-width:3}svg .ci.ok{stroke:#1f4e99}svg .ci.fail{stroke:var(--fail)}
svg .point.ok{fill:#1f4e99}svg .point.fail{fill:var(--fail)}
svg .limit-rate{stroke:#000;stroke-width:2;stroke-dasharray:5 3}
svg .limit-upper{stroke:#000;stroke-width:2;stroke-dasharray:1 3}
svg .baseline{stroke:#888;stroke-width:3}svg .baseline-point{fill:#888}
svg .trend{fill:none;stroke:#1f4e99;stroke-width:1.5}
nav ul{columns:2;font-size:.9rem}.scroll{overflow-x:auto}
@media print{nav{display:none}.scroll{overflow:visible}body{max-width:none;font-size:11pt}
section.gate{break-inside:avoid-page}a{color:inherit;text-decoration:none}
td.critical{outline:2px solid #000}.badge{border-color:#000}}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


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
        f"<table><caption>{_e(caption)}</caption><thead><tr>{head_html}</tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def rows_cell(cell: str) -> str:
    return cell if cell.startswith("<td") or cell.startswith("<th") else f"<td>{cell}</td>"


def _anchor(index: int) -> str:
    return f"gate-{index}"


def _waived_gates(report: Mapping[str, Any]) -> set[str]:
    return {str(w["gate"]) for w in report.get("waivers", []) if w.get("applied")}


def _grouped(report: Mapping[str, Any]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for entry in report.get("gates", []):
        groups.setdefault(gate_group(entry), []).append(entry)
    return list(groups.items())


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
            f'<span class="badge fail">✗ GATES FAILED</span> {_plural(failing, "verdict")} failing'
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


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _header(report: Mapping[str, Any]) -> str:
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
    selection = _selection_text(report)
    overrides = report.get("overrides")
    deselected = report.get("deselected_gates")
    run_rows = [
        ["pytest", exit_text],
        ["gate items as pytest counts them", _text_or_missing(pytest_counts)],
        ["partial selection", _text_or_missing(selection)],
        ["bootstrap seed", _text_or_missing(_run_value(report, "seed"))],
        [
            "bootstrap resamples",
            _text_or_missing(_run_value(report, "resamples")),
        ],
        [
            "threshold overrides",
            _text_or_missing(overrides) if overrides else "none",
        ],
        [
            "gate items deselected (--openmed-skip / --openmed-only)",
            _num(len(deselected)) if isinstance(deselected, list) else "none",
        ],
        [
            "generator",
            _e(f"{report['generator']['name']} {report['generator']['version']}"),
        ],
    ]
    run_table = _table(
        ["run", "value"], [[f'<th scope="row">{_e(a)}</th>', b] for a, b in run_rows], "This run"
    )
    return (
        f"<header><h1>openmed gate report</h1>{_headline(report)}"
        f'<p class="nondiag"><strong>{_e(NON_DIAGNOSTIC)}</strong></p>'
        f'<div class="pair">{counts}{status_table}{run_table}</div></header>'
    )


# -- gate overview ----------------------------------------------------------------------------


def _overview(groups: list[tuple[str, list[Mapping[str, Any]]]], waived: set[str]) -> str:
    rows = []
    for index, (group, entries) in enumerate(groups):
        worst = worst_entry(entries)
        label = verdict_label(worst, str(worst["nodeid"]) in waived)
        failing = [e for e in entries if is_failing(e)]
        rows.append(
            [
                f'<a href="#{_anchor(index)}">{_e(group)}</a>',
                _e(entries[0]["kind"]),
                f'<span class="{_e(label.split()[0])}">{_e(label)}</span>',
                _e(worst["status"] or "–"),
                f'<td class="num">{len(entries)}</td>',
                f'<td class="num">{len(failing)}</td>',
            ]
        )
    return (
        '<section id="overview"><h2>Gates</h2>'
        + _table(
            ["gate", "kind", "worst verdict", "its status", "verdicts", "failing"],
            rows,
            "One row per gate: its worst verdict",
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
        "Unsupported claim rate per verdict",
    )
    return f'<div class="pair">{chart}</div>{table}'


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


def _planner(entries: Sequence[Mapping[str, Any]], waived: set[str]) -> str:
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
                cells.append(f'<td class="num critical">▲ {_num(value)} critical</td>')
            else:
                cells.append(f'<td class="num">{_num(value)}</td>')
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
    return (
        '<div class="scroll">'
        + _table(
            [
                "scenario",
                "result",
                *(c.replace("_", " ") for c in counters),
                "completion rate",
                "schema-valid rate",
                "rule",
            ],
            rows,
            "Scenario × counter matrix (▲ marks a critical counter above zero)",
        )
        + "</div>"
    )


def _pack(entries: Sequence[Mapping[str, Any]], waived: set[str]) -> str:
    parts = [_verdict_table(entries, waived, "Assessment decision per candidate")]
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


def _public_report(name: str, public: Mapping[str, Any]) -> str:
    min_cell = public.get("min_cell")
    rows: list[list[str]] = []
    blocks: list[tuple[str, Any]] = [
        *sorted((public.get("slices") or {}).items()),
        ("overall", public.get("overall")),
    ]
    for block_name, block in blocks:
        if not isinstance(block, Mapping) or block.get("suppressed", True):
            rows.append(
                [
                    f'<th scope="row">{_e(block_name)}</th>',
                    f'<td class="suppressed" colspan="5">suppressed (a cell below the '
                    f"publication size {_num(min_cell)}; not zero)</td>",
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
                    f'<td class="num">{_num(values.get("count"))} / '
                    f"{_num(values.get('denominator'))}</td>",
                    f'<td class="num">{_num(rate)}</td>',
                    f'<td class="num">[{_num(lower)}, {_num(upper)}]</td>',
                    bar,
                ]
            )
    limitations = "".join(f"<li>{_e(text)}</li>" for text in public.get("limitations") or ())
    return (
        f"<h3>{_e(name)}: public report ({_e(public.get('task', ''))}, review origin "
        f"{_e(public.get('review_origin', NOT_RECORDED))})</h3>"
        + _table(
            ["block", "metric", "count / units", "rate", "Wilson 95% interval", "interval"],
            rows,
            f"Public report metrics of {name}; suppressed blocks are shown as suppressed",
        )
        + (
            f"<details><summary>Limitations</summary><ul>{limitations}</ul></details>"
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
        body = _planner(entries, waived)
    elif kind == "pack":
        body = _pack(entries, waived)
    else:
        body = _verdict_table(entries, waived, "Verdicts")
    return (
        f'<section class="gate" id="{_anchor(index)}"><h3>{_e(group)} '
        f"<small>({_e(kind)} gate)</small></h3>{body}</section>"
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


def _trend_series(
    report: Mapping[str, Any],
) -> list[tuple[tuple[str, str | None], str, str, float]]:
    """(gate key, title, metric, scale) of every trend drawn for the current report."""
    series: list[tuple[tuple[str, str | None], str, str, float]] = []
    for entry in report.get("gates", []):
        key = (str(entry["nodeid"]), entry.get("part"))
        name = str(entry["nodeid"]) + (f" [{entry['part']}]" if entry.get("part") else "")
        if entry["kind"] == "claims":
            series.append((key, f"{name}: unsupported rate", "claims_rate", 1.0))
        elif entry["kind"] == "planner" and item_label(entry) == "qualification":
            series.append((key, f"{name}: critical events", "planner_critical", 0.0))
        elif entry["kind"] == "pack":
            series.append((key, f"{name}: emission rate", "pack_emission", 1.0))
    return series


def _trend_flag(entry: Mapping[str, Any]) -> str:
    if regressed(entry):
        return "regressed"
    return "failed" if is_failing(entry) else ""


def _trend_point(run: str, entry: Mapping[str, Any] | None, metric: str) -> TrendPoint:
    if entry is None:
        return TrendPoint(run, None)
    metrics = entry["metrics"]
    flag = _trend_flag(entry)
    if metric == "claims_rate":
        return TrendPoint(
            run,
            _float(metrics, "unsupported_rate"),
            _float(metrics, "lower"),
            _float(metrics, "upper"),
            flag,
        )
    if metric == "planner_critical":
        _, critical = _planner_counters()
        values = [metrics.get(name) for name in sorted(critical)]
        if not all(isinstance(v, int) for v in values):
            return TrendPoint(run, None)
        return TrendPoint(run, float(sum(v for v in values if isinstance(v, int))), flag=flag)
    public = entry.get("public_report")
    overall = public.get("overall") if isinstance(public, Mapping) else None
    if not isinstance(overall, Mapping) or overall.get("suppressed", True):
        return TrendPoint(run, None)
    emission = (overall.get("metrics") or {}).get("emission") or {}
    interval = emission.get("interval") or {}
    return TrendPoint(
        run, _float(emission, "rate"), _float(interval, "lower"), _float(interval, "upper"), flag
    )


def _trends(report: Mapping[str, Any], history: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    if not history:
        return ""
    indexed = [
        (run, {(str(e["nodeid"]), e.get("part")): e for e in stored.get("gates", [])})
        for run, stored in history
    ]
    runs = _table(
        ["#", "stored run"],
        [[f'<td class="num">{n}</td>', _e(run)] for n, (run, _) in enumerate(history, start=1)],
        "Stored runs, oldest first",
    )
    parts = [
        '<section id="trends"><h2>Trends over stored runs</h2>',
        runs,
    ]
    for key, title, metric, scale in _trend_series(report):
        points = [_trend_point(run, gates.get(key), metric) for run, gates in indexed]
        shown = [p for p in points if p.value is not None]
        if not shown:
            parts.append(
                f"<h3>{_e(title)}</h3><p>suppressed or {NOT_RECORDED} in every stored run.</p>"
            )
            continue
        top = scale or max(1.0, max(p.value or 0.0 for p in shown))
        rows = [
            [
                f'<td class="num">{n}</td>',
                _e(p.run),
                f'<td class="num">{_num(p.value) if p.value is not None else "–"}</td>',
                '<td class="num">'
                + (f"[{_num(p.lower)}, {_num(p.upper)}]" if p.lower is not None else "–")
                + "</td>",
                f'<span class="fail">{_e(p.flag)}</span>' if p.flag else "",
            ]
            for n, p in enumerate(points, start=1)
        ]
        parts.append(
            f'<h3>{_e(title)}</h3><div class="pair">'
            + trend_chart(title, points, scale_max=top)
            + _table(["#", "run", "value", "interval", "verdict"], rows, title)
            + "</div>"
        )
    parts.append("</section>")
    return "".join(parts)


def render_html(
    report: Mapping[str, Any], history: Sequence[tuple[str, Mapping[str, Any]]] = ()
) -> str:
    """The whole page for ``report``; ``history`` (oldest first) adds the trend section."""
    groups = _grouped(report)
    waived = _waived_gates(report)
    nav = "".join(
        f'<li><a href="#{_anchor(i)}">{_e(group)}</a></li>' for i, (group, _) in enumerate(groups)
    )
    sections = "".join(
        _gate_section(index, group, entries, waived)
        for index, (group, entries) in enumerate(groups)
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>openmed gate report</title><style>{_STYLE}</style></head><body>"
        + _header(report)
        + f'<nav aria-label="gates"><h2>Contents</h2><ul>{nav}'
        '<li><a href="#waivers">Waivers</a></li>'
        '<li><a href="#regressions">Baseline regressions</a></li>'
        + ('<li><a href="#trends">Trends</a></li>' if history else "")
        + "</ul></nav><main>"
        + _overview(groups, waived)
        + f'<section id="details"><h2>Gate details</h2>{sections}</section>'
        + _waivers(report)
        + _regressions(report)
        + _trends(report, history)
        + f'</main><footer><p class="nondiag">{_e(NON_DIAGNOSTIC)}</p></footer></body></html>\n'
    )
