"""Gate-file, waiver, baseline and history readers refuse an oversized file before reading it.

Each is given a sparse 1 GiB file: it is refused with the reader's own
message while Python allocates far less than the file (it used to read it whole
first, a 1.06 GiB peak).
"""

from __future__ import annotations

import datetime
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_openmed.plugin.gate_files import GateFileError, parse_gate_file
from pytest_openmed.plugin.waivers import WaiverError, load_waivers
from pytest_openmed.report.baseline import BaselineError, load_baseline
from pytest_openmed.report.history import load_history

GIB = 1 << 30


def sparse(path: Path) -> Path:
    with open(path, "wb") as handle:
        handle.truncate(GIB)
    return path


def peak(read: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def refused_cheaply(read: Callable[[], object], error: type[Exception], message: str) -> None:
    def attempt() -> None:
        with pytest.raises(error, match=message):
            read()

    assert peak(attempt) < GIB // 64


def test_a_gate_file(tmp_path: Path) -> None:
    path = sparse(tmp_path / "huge.openmed.toml")
    refused_cheaply(lambda: parse_gate_file(path), GateFileError, "exceeds 1 MiB")


def test_a_waiver_file(tmp_path: Path) -> None:
    path = sparse(tmp_path / "waivers.toml")
    today = datetime.date(2026, 12, 1)
    refused_cheaply(lambda: load_waivers(path, today=today), WaiverError, "exceeds 256 KiB")


def test_a_baseline(tmp_path: Path) -> None:
    path = sparse(tmp_path / "baseline.json")
    refused_cheaply(lambda: load_baseline(path), BaselineError, "exceeds 64 MiB")


def test_a_stored_history_run(tmp_path: Path) -> None:
    sparse(tmp_path / "20261201T150000000000Z-nocommit.json")
    assert peak(lambda: load_history(tmp_path)) < GIB // 64
    assert load_history(tmp_path) == ([], 1)
