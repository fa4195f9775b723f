"""``openmed-report`` renders every report its ``validate`` accepts, whatever finite numbers it holds.

The schema bounds every number to float64's finite range (and integers to 64
bits); a report at those bounds, or with the smallest subnormal, is read,
rendered as HTML and as Markdown without an exception.
"""

from __future__ import annotations

import json
import sys

import pytest

from pytest_openmed.report.html import render_html
from pytest_openmed.report.load import parse_report
from pytest_openmed.report.summary import render_markdown
from tests.report.test_history_store import report_with

LARGEST = sys.float_info.max
SMALLEST = 5e-324
BIGGEST_INT = 2**63 - 1


@pytest.mark.parametrize(
    ("rate", "lower", "upper"),
    [
        (LARGEST, -LARGEST, LARGEST),
        (SMALLEST, -SMALLEST, SMALLEST),
        (BIGGEST_INT, -BIGGEST_INT, BIGGEST_INT),
        (0.0, 0.0, 0.0),
    ],
)
def test_a_report_at_the_schemas_bounds_renders(rate: float, lower: float, upper: float) -> None:
    report = report_with(rate=rate, lower=lower, upper=upper)
    report["summary"]["gates"] = BIGGEST_INT
    report["gates"][0]["metrics"].update(big=BIGGEST_INT, huge=-LARGEST, tiny=SMALLEST)
    document = parse_report(json.dumps(report).encode())
    ordinary = parse_report(json.dumps(report_with(rate=0.1, lower=0.0, upper=0.2)).encode())
    stored = [
        ("20261201T150000000000Z-nocommit", ordinary),
        ("20261201T160000000000Z-nocommit", document),
    ]
    assert "<svg" in render_html(document, [])
    assert "<svg" in render_html(document, stored)  # the trend charts too
    assert render_markdown(document)
