"""Run history: gate reports stored under time-sortable names in a directory the user named.

PYTEST_DONT_REWRITE

A stored run is named ``<UTC time>-<commit>.json`` (``20261201T153000123456Z-
1a2b3c4d5e6f.json``): names sort by time, the commit comes from the CI
environment when one of :data:`COMMIT_VARIABLES` holds a hexadecimal commit id
(else ``nocommit``), and nothing of the user's paths or machine enters a
name.  Only files with such names are ever listed, compared or pruned.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_openmed.errors import InputRefused
from pytest_openmed.report.provenance import COMMIT_VARIABLES

__all__ = [
    "COMMIT_VARIABLES",
    "DEFAULT_KEEP",
    "LATEST",
    "HistoryError",
    "load_history",
    "resolve_ref",
    "run_name",
    "store_run",
    "stored_runs",
]

#: Stored runs kept by default (ini ``openmed_history_keep``).
DEFAULT_KEEP = 50
#: The ``--openmed-compare`` reference meaning the newest stored run.
LATEST = "latest"

_NAME = re.compile(r"(?P<time>[0-9]{8}T[0-9]{12}Z)-(?P<commit>[0-9a-f]{7,12}|nocommit)\.json")
_COMMIT = re.compile(r"[0-9a-fA-F]{7,64}")
_MAX_STORED_BYTES = 64 * 1024 * 1024


class HistoryError(InputRefused):
    """The history directory or a stored run cannot be used (fixed, value-free messages)."""


def run_name(now: datetime.datetime, environ: Mapping[str, str]) -> str:
    """The stored name of a run finished at ``now`` (UTC) in environment ``environ``."""
    commit = "nocommit"
    for variable in COMMIT_VARIABLES:
        value = environ.get(variable, "").strip()
        if _COMMIT.fullmatch(value):
            commit = value[:12].lower()
            break
    stamp = now.astimezone(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return f"{stamp}-{commit}.json"


def stored_runs(directory: Path) -> list[Path]:
    """Stored runs in ``directory``, oldest first; other files are ignored."""
    try:
        names = [entry.name for entry in directory.iterdir() if entry.is_file()]
    except FileNotFoundError:
        return []
    except OSError:
        raise HistoryError("the history directory could not be read") from None
    return [directory / name for name in sorted(names) if _NAME.fullmatch(name)]


def store_run(
    directory: Path,
    text: str,
    *,
    keep: int,
    now: datetime.datetime,
    environ: Mapping[str, str],
) -> Path:
    """Write one run's report into ``directory`` (created, not its parents); keep the last ``keep``.

    Raises a bare ``OSError`` (no path, no system message) when writing fails.
    """
    from pytest_openmed._canonical import atomic_write_text

    try:
        directory.mkdir(exist_ok=True)
    except OSError:
        raise OSError("could not create the history directory") from None
    target = directory / run_name(now, environ)
    atomic_write_text(target, text)
    try:
        runs = stored_runs(directory)
    except HistoryError:
        raise OSError("could not list the history directory") from None
    for old in runs[: max(0, len(runs) - keep)]:
        try:
            old.unlink(missing_ok=True)  # another run pruning the same store may be first
        except OSError:
            raise OSError("could not prune the history directory") from None
    return target


def resolve_ref(directory: Path, ref: str) -> Path:
    """The stored run ``ref`` names: ``latest`` or a stored name (with or without ``.json``)."""
    runs = stored_runs(directory)
    if ref == LATEST:
        if not runs:
            raise HistoryError(
                "--openmed-compare: the history directory holds no stored run to compare with"
            )
        return runs[-1]
    name = ref if ref.endswith(".json") else f"{ref}.json"
    if not _NAME.fullmatch(name):
        raise HistoryError(
            "--openmed-compare takes 'latest' or a stored run name such as "
            "20261201T153000123456Z-nocommit"
        )
    for run in runs:
        if run.name == name:
            return run
    raise HistoryError("--openmed-compare: no stored run has that name")


def load_history(directory: Path) -> tuple[list[tuple[str, dict[str, Any]]], int]:
    """Every readable stored run as ``(name, report)``, oldest first, and how many were unreadable.

    A stored run that is not a valid gate report is left out and counted, never guessed at.
    """
    from pytest_openmed._jsonread import read_limited
    from pytest_openmed.report.load import ReportError, parse_report

    loaded: list[tuple[str, dict[str, Any]]] = []
    unreadable = 0
    for run in stored_runs(directory):
        try:
            raw = read_limited(run, _MAX_STORED_BYTES, too_large="too large", unreadable="unread")
            loaded.append((run.name.removesuffix(".json"), parse_report(raw)))
        except (OSError, ReportError, InputRefused):
            unreadable += 1
    return loaded, unreadable
