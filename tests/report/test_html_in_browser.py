"""The HTML report in a real headless Chromium: it renders every gate, without JavaScript or network.

Chromium comes from the system packages (Debian ``chromium``; ``.ci/run``
installs it).  The page is loaded with JavaScript disabled and the network
emulated offline; every request the page makes is recorded, and only the
page's own file may be requested.  A screenshot is saved under pytest's
temporary directory and its path printed.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ._chromium import Chromium, find_chromium
from ._helpers import CANARY, GATES, WAIVED, MixedRun


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Chromium]:
    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser test: .ci/run installs chromium with apt-get")
        pytest.skip("no system Chromium installed (apt-get install chromium); CI installs it")
    chromium = Chromium(binary, tmp_path / "profile")
    try:
        yield chromium
    finally:
        chromium.close()


def _open(browser: Chromium, page: Path) -> str:
    """Load ``page`` offline with scripts disabled; return the DevTools session id."""
    target = browser.call("Target.createTarget", url="about:blank")["targetId"]
    session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    browser.call("Network.enable", session)
    browser.call(
        "Network.emulateNetworkConditions",
        session,
        offline=True,
        latency=0,
        downloadThroughput=-1,
        uploadThroughput=-1,
    )
    browser.call("Emulation.setScriptExecutionDisabled", session, value=True)
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        session,
        width=1200,
        height=900,
        deviceScaleFactor=1,
        mobile=False,
    )
    browser.call("Page.enable", session)
    browser.call("Page.navigate", session, url=page.as_uri())
    browser.wait_for("Page.loadEventFired")
    return session


def _evaluate(browser: Chromium, session: str, expression: str) -> object:
    reply = browser.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
    return reply["result"].get("value")


def test_the_report_renders_in_chromium_offline_and_without_javascript(
    browser: Chromium,
    mixed_run: MixedRun,
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    session = _open(browser, mixed_run.html_path)
    text = str(_evaluate(browser, session, "document.body.innerText"))
    for gate in GATES:
        assert gate in text
    assert "GATES FAILED" in text
    assert "unsupported_rate 0.2000 > max 0.10" in text
    assert "suppressed (a cell below the publication size 5; not zero)" in text
    assert WAIVED in text and "applied (the gate failed and was waived)" in text
    assert "Non-diagnostic evaluation evidence" in text
    assert CANARY not in text
    # the charts are drawn (inline SVG has a size), not just present in the source
    widths = _evaluate(
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
    hidden = _evaluate(browser, session, "getComputedStyle(document.querySelector('nav')).display")
    assert hidden == "none"
    pdf = base64.b64decode(browser.call("Page.printToPDF", session)["data"])
    assert pdf.startswith(b"%PDF")
    print(f"\nHTML report screenshot: {screenshot}")
    record_property("artefact", f"HTML report screenshot: {screenshot}")
