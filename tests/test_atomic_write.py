"""Reports are written like plain files, durably, and leave nothing behind on failure."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_openmed import _canonical
from pytest_openmed._canonical import atomic_write_text


@pytest.fixture
def umask() -> Iterator[None]:
    saved = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(saved)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("umask")
@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_the_written_file_honours_the_umask(tmp_path: Path, mask: int, expected: int) -> None:
    os.umask(mask)
    target = tmp_path / "report.json"
    atomic_write_text(target, "{}\n")
    assert _mode(target) == expected
    assert target.read_text() == "{}\n"


def test_the_data_is_fsynced_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync-dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync-file")
        real_fsync(fd)

    def replace(source: str, target: str) -> None:
        events.append("replace")
        real_replace(source, target)

    monkeypatch.setattr(_canonical.os, "fsync", fsync)
    monkeypatch.setattr(_canonical.os, "replace", replace)
    atomic_write_text(tmp_path / "r.json", "{}")
    assert events == ["fsync-file", "replace", "fsync-dir"]


@pytest.mark.parametrize("failing", ["fsync", "replace", "fchmod"])
def test_a_failed_write_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    def fail(*args: object) -> None:
        raise OSError(f"secret-{tmp_path}")

    monkeypatch.setattr(_canonical.os, failing, fail)
    with pytest.raises(OSError) as caught:
        atomic_write_text(tmp_path / "r.json", "{}")
    assert str(tmp_path) not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_unencodable_text_leaves_no_temporary_file(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        atomic_write_text(tmp_path / "r.json", "\ud800")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.usefixtures("umask")
def test_the_gate_report_is_0644_under_umask_022(pytester: pytest.Pytester) -> None:
    os.umask(0o022)
    pytester.makepyfile(
        "import pytest\n@pytest.mark.openmed_gate(kind='custom')\ndef test_gate():\n    pass\n"
    )
    pytester.runpytest("--openmed-report", "r.json", "--openmed-markdown", "r.md").assert_outcomes(
        passed=1
    )
    assert _mode(pytester.path / "r.json") == 0o644
    assert _mode(pytester.path / "r.md") == 0o644


def test_a_killed_writers_temporary_file_is_removed_by_a_later_write(tmp_path: Path) -> None:
    """``kill -9`` mid-write leaves ``.openmed-*.tmp``; the next write removes it once it is stale."""
    stale = tmp_path / ".openmed-abcd1234.tmp"
    fresh = tmp_path / ".openmed-efgh5678.tmp"  # another writer's, in progress
    unrelated = tmp_path / ".openmed-notes.tmp"
    for path in (stale, fresh, unrelated):
        path.write_text("partial")
    old = time.time() - _canonical.STALE_TEMPORARY_SECONDS - 60
    os.utime(stale, (old, old))
    os.utime(unrelated, (old, old))
    atomic_write_text(tmp_path / "report.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [fresh.name, unrelated.name, "report.json"]
    )
