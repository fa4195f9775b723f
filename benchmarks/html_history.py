"""The HTML report of a 1,000-verdict run with 50 stored runs: time and page size (issue 25).

Run: ``python benchmarks/html_history.py [--verdicts 1000] [--stored 50]``.
Measures what an ``--openmed-html`` run does after its tests, serially, in
this process, against a temporary directory:

* without history: write the JSON report, render the page, write it;
* with history (``--openmed-history DIR --openmed-html``): the same, plus
  storing this run (pruning to the default keep of 50), reading the stored
  runs back and drawing their trends.

The stored runs are the same synthetic report (claims, planner and pack
verdicts in equal parts; the report's shape, no data) with one claims verdict
in ten moving from run to run, so trends are drawn where values change.
Target: with history under 2x the time without, and a page under 3 MB.
Exit 1 when a target fails.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from _timing import median_ms
from html_report import synthetic_report

from pytest_openmed._canonical import atomic_write_text
from pytest_openmed.report.history import DEFAULT_KEEP, load_trends, store_run
from pytest_openmed.report.html import TREND_RUNS, render_html

TARGET_RATIO = 2.0
TARGET_BYTES = 3_000_000
WHEN = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.UTC)


def varied(report: dict[str, Any], run: int) -> dict[str, Any]:
    """``report`` as stored run ``run``: one claims verdict in ten has another rate."""
    copy: dict[str, Any] = json.loads(json.dumps(report))
    for index, entry in enumerate(copy["gates"]):
        if entry["kind"] == "claims" and index % 30 == 0:
            rate = round(0.05 + 0.01 * (run % 7), 4)
            entry["metrics"].update(unsupported_rate=rate, lower=rate / 2, upper=rate + 0.1)
    copy["run"]["timing"]["started"] = (WHEN + datetime.timedelta(minutes=run)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )
    return copy


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--verdicts", type=int, default=1000)
    parser.add_argument("--stored", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    report = synthetic_report(options.verdicts)
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        history = root / "history"
        for run in range(options.stored):
            stored = varied(report, run)
            store_run(
                history,
                json.dumps(stored, indent=2, sort_keys=True) + "\n",
                keep=DEFAULT_KEEP,
                now=WHEN + datetime.timedelta(minutes=run),
                environ={},
                report=stored,
            )
        current = varied(report, options.stored)
        clock = [options.stored + 1]

        def without_history() -> None:
            atomic_write_text(root / "r.json", json.dumps(current, indent=2, sort_keys=True))
            atomic_write_text(root / "r.html", render_html(current))

        def with_history() -> None:
            text = json.dumps(current, indent=2, sort_keys=True)
            atomic_write_text(root / "r.json", text)
            clock[0] += 1
            store_run(
                history,
                text + "\n",
                keep=DEFAULT_KEEP,
                now=WHEN + datetime.timedelta(minutes=clock[0]),
                environ={},
                report=current,
            )
            stored, _ = load_trends(history, TREND_RUNS)
            atomic_write_text(root / "h.html", render_html(current, stored))

        plain = median_ms(without_history, options.repeat)
        trended = median_ms(with_history, options.repeat)
        size = (root / "h.html").stat().st_size
        plain_size = (root / "r.html").stat().st_size
    ratio = trended / plain
    print(f"verdicts: {options.verdicts}, stored runs: {options.stored} (keep {DEFAULT_KEEP})")
    print(f"report stage without history: {plain:9.1f} ms, page {plain_size / 1e6:5.2f} MB")
    print(f"report stage with history:    {trended:9.1f} ms, page {size / 1e6:5.2f} MB")
    ok_time = ratio < TARGET_RATIO
    ok_size = size < TARGET_BYTES
    print(f"{'holds' if ok_time else 'FAILS'}: with/without history {ratio:.2f}x < {TARGET_RATIO}x")
    print(f"{'holds' if ok_size else 'FAILS'}: page {size:,} bytes < {TARGET_BYTES:,}")
    return 0 if ok_time and ok_size else 1


if __name__ == "__main__":
    sys.exit(main())
