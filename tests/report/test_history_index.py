"""The history's index: a page reads the few numbers its trends draw, never trusting more.

Storing a run adds its trend points to ``.openmed-index.json``; a page drawn
from the index is the page drawn from the whole stored reports, a run the
index lacks is read whole, and a damaged index costs speed, never a wrong
or unsafe page.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from pytest_openmed.report.history import INDEX_NAME, load_history, load_trends, store_run
from pytest_openmed.report.html import render_html

from .test_history_store import WHEN, report_with


def started(report: dict[str, Any], minute: int) -> dict[str, Any]:
    """``report`` with a UTC start (schema 1.2's run.timing.started) of minute ``minute``."""
    stamp = (WHEN + datetime.timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return {**report, "run": {"timing": {"started": stamp}}}


def store(history: Path, rates: list[float]) -> list[dict[str, Any]]:
    reports = []
    for minute, rate in enumerate(rates):
        report = started(report_with(rate=rate, lower=rate / 2, upper=rate + 0.1), minute)
        store_run(
            history,
            json.dumps(report),
            keep=50,
            now=WHEN + datetime.timedelta(minutes=minute),
            environ={},
        )
        reports.append(report)
    return reports


def test_the_page_from_the_index_is_the_page_from_the_whole_runs(tmp_path: Path) -> None:
    history = tmp_path / "hist"
    reports = store(history, [0.1, 0.2, 0.1])
    assert (history / INDEX_NAME).is_file()
    from_index, unreadable = load_trends(history, 100)
    assert unreadable == 0
    whole, _ = load_history(history)
    assert render_html(reports[-1], from_index) == render_html(reports[-1], whole)


def test_a_run_the_index_lacks_is_read_whole_and_a_damaged_index_is_ignored(
    tmp_path: Path,
) -> None:
    history = tmp_path / "hist"
    reports = store(history, [0.1, 0.2, 0.3])
    whole, _ = load_history(history)
    expected = render_html(reports[-1], whole)
    index = json.loads((history / INDEX_NAME).read_text())
    del index["runs"][1]
    (history / INDEX_NAME).write_text(json.dumps(index))
    assert render_html(reports[-1], load_trends(history, 100)[0]) == expected
    for damaged in ("not json", "[]", '{"version": 2, "keys": 1}', "NaN"):
        (history / INDEX_NAME).write_text(damaged)
        assert render_html(reports[-1], load_trends(history, 100)[0]) == expected


def test_index_values_that_are_not_finite_numbers_are_never_drawn(tmp_path: Path) -> None:
    history = tmp_path / "hist"
    reports = store(history, [0.1, 0.2])
    text = (history / INDEX_NAME).read_text()
    index = json.loads(text)
    index["runs"][0]["points"][0] = ["<script>", 10**400, 1e308, ""]
    raw = json.dumps(index).replace("1e+308", "1e999")
    (history / INDEX_NAME).write_text(raw)
    page = render_html(reports[-1], load_trends(history, 100)[0])
    assert "<script>" not in page and "inf" not in page.lower().replace("info", "")


def test_this_report_is_marked_among_the_stored_runs(tmp_path: Path) -> None:
    history = tmp_path / "hist"
    reports = store(history, [0.1, 0.3, 0.2])
    runs, _ = load_trends(history, 100)
    page = render_html(reports[1], runs)  # openmed-report html <the second run> --history
    names = [run.name for run in runs]
    assert f"{names[1]} (this report)" in page
    assert page.count("(this report)") == 1 and "▼ this report" in page
    outside = render_html(started(reports[0], 99), runs)
    assert f"{len(runs) + 1}</td><td>this report (this report)" in outside


def test_a_trend_is_drawn_only_where_the_value_changed(tmp_path: Path) -> None:
    history = tmp_path / "hist"
    reports = store(history, [0.1, 0.1, 0.1])
    page = render_html(reports[-1], load_trends(history, 100)[0])
    trends = page.partition('id="trends"')[2]
    assert "<svg" not in trends and "Unchanged over the stored runs" in trends
    reports = store(tmp_path / "moving", [0.1, 0.1, 0.4])
    trends = render_html(reports[-1], load_trends(tmp_path / "moving", 100)[0])
    assert (
        '<svg xmlns="http://www.w3.org/2000/svg" class="chart"'
        in trends.partition('id="trends"')[2]
    )
