"""Cost of rendering the HTML report against writing the JSON report it comes from.

Run: ``python benchmarks/html_report.py [--verdicts N]``.  Builds a synthetic
gate report (claims, planner and pack verdicts in equal parts; no data, only
the report's shape), then times ``render_html`` and, as the plain baseline
measured in the same run, ``json.dumps`` of the same report (what
``--openmed-report`` does).  Prints medians, the ratio, and the ratio with ten
stored runs as trend history.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from _reports import synthetic_report
from _timing import median_ms

from pytest_openmed._validate import MIN_CELL
from pytest_openmed.planner.report import COUNT_NAMES
from pytest_openmed.report.html import render_html


def _entry(index: int) -> dict[str, Any]:
    kind = ("claims", "planner", "pack")[index % 3]
    gate = f"gates.openmed.toml::{kind}(g{index // 21})"
    metrics: dict[str, Any]
    extra: dict[str, Any] = {}
    if kind == "claims":
        rate = (index % 10) / 10
        metrics = {
            "unsupported_rate": rate,
            "lower": rate / 2,
            "upper": min(1.0, rate + 0.1),
            "max_unsupported_rate": 0.5,
            "max_upper": None,
            "claim_count": 40,
        }
    elif kind == "planner":
        metrics = dict.fromkeys(COUNT_NAMES, 1)
    else:
        metrics = {"units": 40, "reviews": 80, "adjudications": 0}
        block = {
            "suppressed": False,
            "units": 40,
            "metrics": {
                name: {
                    "count": 20,
                    "denominator": 40,
                    "rate": 0.5,
                    "interval": {"lower": 0.35, "upper": 0.65},
                }
                for name in ("quality", "utility", "privacy", "provenance", "emission")
            },
        }
        extra["public_report"] = {
            "task": "forms",
            "review_origin": "attested",
            "min_cell": MIN_CELL,
            "limitations": [],
            "slices": {"nominal": block},
            "overall": block,
        }
    return {
        "nodeid": f"{gate}::item{index}",
        "part": None,
        "kind": kind,
        "status": "passed",
        "expected": "passed",
        "reason": "ok",
        "metrics": metrics,
        "outcome": "passed",
        **extra,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--verdicts", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    report = synthetic_report([_entry(index) for index in range(options.verdicts)])
    history = [(f"run{n}", report) for n in range(10)]
    baseline = median_ms(lambda: json.dumps(report, indent=2, sort_keys=True), options.repeat)
    page = median_ms(lambda: render_html(report), options.repeat)
    trended = median_ms(lambda: render_html(report, history), options.repeat)
    print(f"verdicts: {options.verdicts}")
    print(f"json.dumps (baseline):     {baseline:8.2f} ms")
    print(f"render_html:               {page:8.2f} ms  ratio {page / baseline:6.1f}")
    print(f"render_html + 10 runs:     {trended:8.2f} ms  ratio {trended / baseline:6.1f}")


if __name__ == "__main__":
    main()
