"""Charts zoom to their data, keep labels apart from the plot, draw thresholds, count in integers."""

from __future__ import annotations

import re

from pytest_openmed.report.charts import ForestRow, TrendPoint, forest_plot, trend_chart
from pytest_openmed.report.html import render_html
from pytest_openmed.report.summary import render_markdown


def _row(label: str, rate: float, limit: float) -> ForestRow:
    return ForestRow(label, rate, rate / 2, rate + 0.02, limit, None, None, failed=rate > limit)


def test_a_small_rate_and_its_limit_are_drawn_apart_on_a_zoomed_axis() -> None:
    svg = forest_plot("t", [_row("overall", 0.075, 0.05)])
    point = float(re.search(r'<circle cx="([0-9.]+)"', svg).group(1))  # type: ignore[union-attr]
    limit = float(re.search(r'<line x1="([0-9.]+)"[^>]*class="limit-rate"', svg).group(1))  # type: ignore[union-attr]
    assert point - limit > 40  # on a 0-1 axis they sat 11 px apart
    assert "axis zoomed to 0–0.2 (of 0–1)" in svg and 'class="break"' in svg


def test_long_labels_get_their_own_column_and_are_cut() -> None:
    label = "class[" + "x" * 80 + "]"
    svg = forest_plot("t", [_row(label, 0.5, 0.6)])
    x = float(
        re.search(
            r'<line x1="([0-9.]+)" y1="[0-9.]+" x2="[0-9.]+" y2="[0-9.]+" class="grid"', svg
        ).group(1)
    )  # type: ignore[union-attr]
    shown = re.search(r'class="label ok">([^<]*)<title>', svg).group(1)  # type: ignore[union-attr]
    assert shown.endswith("…") and len(shown) * 7.2 <= x
    assert f"<title>{label}</title>" in svg  # the full label stays in the chart's text


def test_trends_draw_the_threshold_and_keep_flags_inside_the_plot() -> None:
    points = [
        TrendPoint("a", 0.3, flag="failed"),
        TrendPoint("b", 0.1),
        TrendPoint("c", 0.3, flag="failed"),
    ]
    svg = trend_chart("t", points, limit=0.2, current=2)
    assert 'class="limit-rate"' in svg and "threshold 0.2" in svg
    first, last = re.findall(
        r'<text x="([0-9.]+)"[^>]*text-anchor="(start|end)" class="label fail"', svg
    )
    assert first[1] == "start" and last[1] == "end"  # never past the chart's edges
    assert "▼ this report" in svg and 'class="point fail current"' in svg


def test_counts_are_integers() -> None:
    svg = trend_chart("t", [TrendPoint("a", 3.0), TrendPoint("b", 0.0)], limit=0.0, integer=True)
    assert ">4<" in svg and "3.0" not in svg


def _report(failing: int) -> dict[str, object]:
    gates = [
        {
            "nodeid": "g.openmed.toml::claims(x)",
            "part": f"class[c{n}]",
            "kind": "claims",
            "status": "threshold",
            "expected": "passed",
            "reason": "unsupported_rate",
            "metrics": {"unsupported_rate": 0.3, "max_unsupported_rate": 0.1},
            "outcome": "failed",
        }
        for n in range(failing)
    ]
    return {
        "schema_version": "1.2",
        "generator": {"name": "pytest-openmed", "version": "0"},
        "run": {
            "timing": {"started": "2026-12-01T12:00:00.000000Z", "duration": 1.5},
            "environment": {"commit": "abcdef1234"},
            "comparison": {
                "stored_run": "20261130T120000000000Z-nocommit",
                "started": None,
                "commit": None,
            },
        },
        "summary": {"gates": failing, "outcomes": {}, "statuses": {}},
        "gates": gates,
        "waivers": [],
    }


def test_what_failed_names_a_gate_once_for_all_its_failing_verdicts() -> None:
    page = render_html(_report(10))
    failures = page.partition('id="failures"')[2].partition("</section>")[0]
    assert failures.count("g.openmed.toml::claims(x)") == 1 and 'rowspan="10"' in failures


def test_the_markdown_summary_says_which_run_it_is() -> None:
    text = render_markdown(_report(1))
    assert (
        "Run: started 2026-12-01T12:00:00.000000Z, 1.50 s, commit abcdef1234, "
        "compared with stored run 20261130T120000000000Z-nocommit." in text
    )
