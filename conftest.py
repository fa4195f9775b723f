"""Root conftest: the self-tests drive pytest in-process with ``pytester``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

pytest_plugins = ["pytester"]


def pytest_terminal_summary(terminalreporter: TerminalReporter) -> None:
    """List files a test attached as ``artefact`` user properties (e.g. the HTML screenshot)."""
    shown = [
        str(value)
        for report in terminalreporter.getreports("passed") + terminalreporter.getreports("failed")
        for name, value in getattr(report, "user_properties", ())
        if name == "artefact"
    ]
    if shown:
        terminalreporter.section("test artefacts")
        for path in shown:
            terminalreporter.write_line(path)
