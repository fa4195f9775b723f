"""Fixtures for the report tests: one mixed run per session, with JSON and HTML reports."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugin._helpers import write_claims_project

from ._chromium import Chromium, find_chromium
from ._helpers import CLAIMS_GATES, WAIVED, MixedRun, run_pytest, store_pack


@pytest.fixture(scope="session")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> MixedRun:
    """Run the project once per session (a subprocess) with --openmed-report and --openmed-html."""
    root = tmp_path_factory.mktemp("mixed")
    write_claims_project(root, CLAIMS_GATES)
    store_pack(root / "pack")
    (root / "waivers.toml").write_text(
        f'[[waiver]]\ngate = "{WAIVED}"\nexpires = 2099-12-31\nreference = "TICKET-7"\n'
    )
    output = run_pytest(
        root,
        "--openmed-key-env=OPENMED_TEST_KEY",
        "--openmed-waivers=waivers.toml",
        "--openmed-report=report.json",
        "--openmed-html=report.html",
    )
    assert "2 failed, 2 passed, 1 xfailed" in output, output
    html_path = root / "report.html"
    return MixedRun(
        path=root,
        report=json.loads((root / "report.json").read_text()),
        html=html_path.read_text(encoding="utf-8"),
        html_path=html_path,
        output=output,
    )


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Chromium]:
    """The system's headless Chromium; CI must have it (``.ci/run`` installs it)."""
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
