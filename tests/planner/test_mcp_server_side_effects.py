"""Serving a qualification leaves the process as it found it: logging, files, threads."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from pytest_openmed.planner.mcp_agent import qualify_agent
from pytest_openmed.planner.mcp_controls import mcp_control_agent


def test_no_logging_configuration_no_file_no_lingering_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "mcp")
    before = {name: list(logging.getLogger(name).handlers) for name in names}
    threads = set(threading.enumerate())
    assert qualify_agent(mcp_control_agent).report.qualified
    assert {name: list(logging.getLogger(name).handlers) for name in names} == before
    assert list(tmp_path.iterdir()) == []
    lingering = [t for t in set(threading.enumerate()) - threads if t.is_alive()]
    for thread in lingering:
        thread.join(5)
    assert not [t for t in lingering if t.is_alive()]
