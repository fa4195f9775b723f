"""The HTML report in a real headless Chromium: it renders every gate, without JavaScript or network.

Chromium comes from the system packages (Debian ``chromium``; ``.ci/run``
installs it).  The page is loaded with JavaScript disabled and the network
emulated offline; every request the page makes is recorded, and only the
page's own file may be requested.  A screenshot is saved under pytest's
temporary directory and its path printed.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

from ._chromium import Chromium, evaluate, open_page
from ._helpers import CANARY, GATES, WAIVED, MixedRun


def test_the_report_renders_in_chromium_offline_and_without_javascript(
    browser: Chromium,
    mixed_run: MixedRun,
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    session = open_page(browser, mixed_run.html_path)
    text = str(evaluate(browser, session, "document.body.innerText"))
    for gate in GATES:
        assert gate in text
    assert "GATES FAILED" in text
    assert "unsupported_rate 0.2000 > max 0.10" in text
    assert "suppressed (a cell below the publication size 5; not zero)" in text
    assert WAIVED in text and "applied (the gate failed and was waived)" in text
    assert "Non-diagnostic evaluation evidence" in text
    assert CANARY not in text
    # the charts are drawn (inline SVG has a size), not just present in the source
    widths = evaluate(
        browser,
        session,
        "Array.from(document.querySelectorAll('svg.chart')).map(s => s.getBoundingClientRect().width)",
    )
    assert isinstance(widths, list) and len(widths) == 2 and all(w > 100 for w in widths)

    requested = [
        event["params"]["request"]["url"]
        for event in browser.events
        if event.get("method") == "Network.requestWillBeSent"
    ]
    assert requested == [mixed_run.html_path.as_uri()], requested

    shot = browser.call("Page.captureScreenshot", session, format="png", captureBeyondViewport=True)
    screenshot = tmp_path / "openmed-report.png"
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # printable: the print stylesheet hides the navigation, and the page prints to PDF
    browser.call("Emulation.setEmulatedMedia", session, media="print")
    hidden = evaluate(browser, session, "getComputedStyle(document.querySelector('nav')).display")
    assert hidden == "none"
    pdf = base64.b64decode(browser.call("Page.printToPDF", session)["data"])
    assert pdf.startswith(b"%PDF")
    print(f"\nHTML report screenshot: {screenshot}")
    record_property("artefact", f"HTML report screenshot: {screenshot}")
