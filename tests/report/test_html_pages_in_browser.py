"""The pages a release manager reads, in a real headless Chromium: failures first, any size.

A failing run compared with its stored history, a 1,000-verdict report with 50
stored runs, the control run printed to PDF (read back with ``pdftotext``)
and a 390 px phone viewport.  Chromium (Debian ``chromium``) and ``pdftotext``
(Debian ``poppler-utils``) are installed by ``.ci/run``; in CI a missing one
fails the test, it never skips.
"""

from __future__ import annotations

import base64
import datetime
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.report.cli import main as report_main
from pytest_openmed.report.history import DEFAULT_KEEP, store_run
from tests.plugin._helpers import write_claims_project

from ._chromium import Chromium, evaluate, open_page
from ._helpers import CANARY, CLAIMS_GATES, run_pytest, store_pack
from ._reports import ENVIRONMENT, RUN, gate_report

PHONE = 390
SCROLL_WIDTH = "document.documentElement.scrollWidth"
FAILURES_TOP = "document.querySelector('#failures').getBoundingClientRect().top"
PLANNER_COLUMNS = (
    "scenario",
    "result",
    "proposals",
    "schema valid calls",
    "schema invalid calls",
    "out of grant proposals",
    "approval evasion retries",
    "hostile instruction compliance",
    "planner errors",
    "task completion",
    "completion rate",
    "schema-valid rate",
    "rule",
)


@pytest.fixture(scope="module")
def compared_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mixed project (failing, waived, suppressed gates) run twice; the second compares."""
    root = tmp_path_factory.mktemp("compared")
    write_claims_project(root, CLAIMS_GATES)
    store_pack(root / "pack")
    common = ("--openmed-key-env=OPENMED_TEST_KEY", "--openmed-history=hist")
    run_pytest(root, *common)
    output = run_pytest(root, *common, "--openmed-compare", "--openmed-html=page.html")
    assert "3 failed" in output, output
    return root / "page.html"


@pytest.fixture(scope="module")
def controls_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("controls")
    output = run_pytest(root, "--openmed-controls", "--openmed-html=controls.html")
    assert re.search(r"=+ \d+ passed in ", output), output
    return root / "controls.html"


def _verdict(index: int) -> dict[str, Any]:
    """One verdict of a large synthetic report: claims, planner and pack in turn, some failing."""
    kind = ("claims", "planner", "pack")[index % 3]
    failing = index % 97 == 0
    metrics: dict[str, Any] = {"claim_count": 40}
    if kind == "claims":
        rate = 0.3 if failing else (index % 10) / 100
        metrics = {
            "claim_count": 40,
            "unsupported_rate": rate,
            "lower": rate / 2,
            "upper": rate + 0.05,
            "max_unsupported_rate": 0.2,
        }
    elif kind == "planner":
        metrics = dict.fromkeys(("proposals", "schema_valid_calls", "task_completion"), 3)
        metrics.update(dict.fromkeys(("schema_invalid_calls", "planner_errors"), int(failing)))
    part = "qualification" if kind == "planner" else f"v{index}"
    return {
        "nodeid": f"gates/{'a-very-long-directory-name-' * 3}{index // 21}.openmed.toml::"
        f"{kind}(gate-{index // 21})",
        "part": part,
        "kind": kind,
        "status": ("threshold" if kind == "claims" else "critical") if failing else "passed",
        "expected": "passed",
        "reason": ("unsupported_rate" if kind == "claims" else "planner_error")
        if failing
        else "ok",
        "metrics": metrics,
        "outcome": "failed" if failing else "passed",
    }


def _large_report(verdicts: int, minute: int) -> dict[str, Any]:
    stamp = (datetime.datetime(2026, 12, 1) + datetime.timedelta(minutes=minute)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )
    run = {
        **RUN,
        "exit_status": 1,
        "timing": {"started": stamp, "duration": 2.0, "gates": {}},
        "environment": ENVIRONMENT,
    }
    return gate_report([_verdict(index) for index in range(verdicts)], version="1.2", run=run)


@pytest.fixture(scope="module")
def large_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``openmed-report html`` of a 1,000-verdict report with 50 stored runs."""
    root = tmp_path_factory.mktemp("large")
    for minute in range(DEFAULT_KEEP):
        stored = _large_report(1000, minute)
        stored["gates"][3]["metrics"]["unsupported_rate"] = 0.01 * (minute % 5)  # a moving trend
        store_run(
            root / "hist",
            json.dumps(stored),
            keep=DEFAULT_KEEP,
            now=datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
            + datetime.timedelta(minutes=minute),
            environ={},
            report=stored,
        )
    (root / "r.json").write_text(json.dumps(_large_report(1000, DEFAULT_KEEP - 1)))
    page = root / "page.html"
    code = report_main(
        ["html", str(root / "r.json"), "-o", str(page), "--history", str(root / "hist")]
    )
    assert code == 0
    return page


def test_a_failing_run_compared_with_its_history_shows_failures_first(
    browser: Chromium, compared_run: Path
) -> None:
    session = open_page(browser, compared_run)
    text = str(evaluate(browser, session, "document.body.innerText"))
    assert "✗ GATES FAILED" in text and "What failed (3 verdicts)" in text
    assert "compared against\tstored run " in text
    assert "(this report)" in text
    top = evaluate(browser, session, FAILURES_TOP)
    assert isinstance(top, int | float) and 0 < top < 900  # in the first screen
    assert CANARY not in text
    session = open_page(browser, compared_run, width=PHONE, height=844, mobile=True)
    assert evaluate(browser, session, SCROLL_WIDTH) == PHONE


def test_a_1000_verdict_page_with_50_stored_runs(browser: Chromium, large_page: Path) -> None:
    assert large_page.stat().st_size < 3_000_000
    session = open_page(browser, large_page)
    text = str(evaluate(browser, session, "document.body.innerText"))
    assert "✗ GATES FAILED" in text and "What failed (11 verdicts)" in text
    assert "Unchanged over the stored runs" in text and "(this report)" in text
    top = evaluate(browser, session, FAILURES_TOP)
    assert isinstance(top, int | float) and 0 < top < 900
    assert evaluate(browser, session, SCROLL_WIDTH) == 1200
    session = open_page(browser, large_page, width=PHONE, height=844, mobile=True)
    assert evaluate(browser, session, SCROLL_WIDTH) == PHONE


def test_on_a_phone_the_page_never_scrolls_sideways_and_charts_keep_their_text(
    browser: Chromium, controls_page: Path
) -> None:
    session = open_page(browser, controls_page, width=PHONE, height=844, mobile=True)
    assert evaluate(browser, session, SCROLL_WIDTH) == PHONE
    heights = evaluate(
        browser,
        session,
        "Array.from(document.querySelectorAll('svg.chart text.tick'))"
        ".map(t => t.getBoundingClientRect().height)",
    )
    assert isinstance(heights, list) and heights and min(heights) >= 10


def _pdftotext() -> str:
    binary = shutil.which("pdftotext")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the print test: .ci/run installs poppler-utils with apt-get")
        pytest.skip("no pdftotext (apt-get install poppler-utils); CI installs it")
    return binary


def _words(text: str) -> str:
    """Text without whitespace and hyphens: a wrapped column header ("schema-" at a line's
    end) reads back without its hyphen, and its words on separate lines."""
    return re.sub(r"[\s\-]+", "", text)


def test_print_to_pdf_keeps_every_planner_column_and_expands_limitations(
    browser: Chromium, controls_page: Path, tmp_path: Path
) -> None:
    pdftotext = _pdftotext()
    session = open_page(browser, controls_page)
    browser.call("Emulation.setEmulatedMedia", session, media="print")
    pdf = tmp_path / "controls.pdf"
    pdf.write_bytes(base64.b64decode(browser.call("Page.printToPDF", session)["data"]))
    text = subprocess.run(
        [pdftotext, "-enc", "UTF-8", str(pdf), "-"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    printed = _words(text)
    for column in PLANNER_COLUMNS:
        assert _words(column) in printed, column
    source = controls_page.read_text()
    limitation = re.search(r'<div class="print-only"><p>Limitations:</p><ul><li>(.*?)</li>', source)
    assert limitation is not None
    assert _words(html.unescape(limitation.group(1)))[:60] in printed
