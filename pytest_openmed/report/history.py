"""Run history: gate reports stored under time-sortable names in a directory the user named.

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
from typing import TYPE_CHECKING, Any

from pytest_openmed.errors import InputRefused

if TYPE_CHECKING:
    from pytest_openmed.report.trend_view import StoredRun
from pytest_openmed.report.provenance import COMMIT_VARIABLES

__all__ = [
    "COMMIT_VARIABLES",
    "DEFAULT_KEEP",
    "INDEX_NAME",
    "LATEST",
    "HistoryError",
    "load_history",
    "load_trends",
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
    report: Mapping[str, Any] | None = None,
) -> Path:
    """Write one run's report into ``directory`` (created, not its parents); keep the last ``keep``.

    The run's trend points go into the history's index (:data:`INDEX_NAME`),
    from ``report`` when given (else parsed from ``text``).  Raises a bare
    ``OSError`` (no path, no system message) when writing the run fails; a
    failed index write only costs the next page some speed.
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
    _index_run(directory, target.name, text, report, {run.name for run in runs[-keep:]})
    return target


#: The history's index: the trend points of each stored run (trend_view), written when
#: the run is stored, so a page reads the few numbers it draws instead of every whole
#: report (docs/history.md).  A cache: a missing, stale or damaged index is rebuilt from
#: the stored runs themselves, never trusted beyond numbers and closed flags.
INDEX_NAME = ".openmed-index.json"
_INDEX_VERSION = 2
_MAX_INDEX_BYTES = 64 * 1024 * 1024


def _index_document(directory: Path) -> dict[str, Any] | None:
    """The index as JSON (the one this process just wrote, or read); ``None`` when unusable."""
    from pytest_openmed._jsonread import loads, read_limited

    remembered = _remembered(directory)
    if remembered is not None:
        return remembered
    try:
        raw = read_limited(
            directory / INDEX_NAME, _MAX_INDEX_BYTES, too_large="index", unreadable="index"
        )
        document = loads(raw, "index")
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("version") != _INDEX_VERSION:
        return None
    return document


def _read_index(directory: Path) -> dict[str, StoredRun]:
    """Stored name -> its trend view (every value checked); an unusable index is an empty one."""
    from pytest_openmed.report.trend_view import views_from_index

    document = _index_document(directory)
    if document is None:
        return {}
    return {
        view.name: view
        for view in views_from_index(document)
        if _NAME.fullmatch(f"{view.name}.json")
    }


def _index_run(
    directory: Path,
    filename: str,
    text: str,
    report: Mapping[str, Any] | None,
    kept: set[str],
) -> None:
    """Add the stored run's view to the index and drop pruned runs; a failure costs speed only."""
    import json

    from pytest_openmed._canonical import atomic_write_text
    from pytest_openmed.report.trend_view import index_of, row_of, view_of

    name = filename.removesuffix(".json")
    try:
        document = report if report is not None else json.loads(text)
        if not isinstance(document, Mapping):
            return
        kept_names = {old.removesuffix(".json") for old in kept}
        view = view_of(name, document)
        previous = _index_document(directory)
        keys = sorted(view.points)
        if previous is not None and previous.get("keys") == keys:
            # The same verdicts as the stored runs (the common case): keep their rows as they
            # are (they are checked when read) and add this run's.
            rows = [
                row
                for row in previous.get("runs") or ()
                if isinstance(row, dict) and row.get("name") in kept_names
            ]
            index = {"version": _INDEX_VERSION, "keys": keys, "runs": [*rows, row_of(view, keys)]}
        else:
            views = [v for old, v in _read_index(directory).items() if old in kept_names]
            index = {"version": _INDEX_VERSION, **index_of([*views, view])}
        atomic_write_text(directory / INDEX_NAME, json.dumps(index, separators=(",", ":")))
        _remember(directory, index)
    except (OSError, ValueError, TypeError, RecursionError):
        pass


#: The index this process last wrote, with the file's identity then: the page rendered right
#: after storing a run reads it from memory, not from disk again.
_LAST_INDEX: list[tuple[Path, tuple[int, int, int], dict[str, Any]]] = []


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def _remember(directory: Path, document: dict[str, Any]) -> None:
    identity = _identity(directory / INDEX_NAME)
    _LAST_INDEX.clear()
    if identity is not None:
        _LAST_INDEX.append((directory.resolve(), identity, document))


def _remembered(directory: Path) -> dict[str, Any] | None:
    """The index this process wrote, if the file on disk is still that one."""
    if not _LAST_INDEX:
        return None
    where, identity, document = _LAST_INDEX[0]
    if where != directory.resolve() or _identity(directory / INDEX_NAME) != identity:
        return None
    return document


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


def load_history(
    directory: Path, newest: int | None = None
) -> tuple[list[tuple[str, dict[str, Any]]], int]:
    """Every readable stored run as ``(name, report)``, oldest first, and how many were unreadable.

    ``newest`` reads only that many of the newest runs (the trends draw no
    more).  The plugin stores only reports it validated; reading one back
    checks what a page draws from it (:func:`~pytest_openmed.report.load.parse_stored`)
    instead of the whole schema again, which cost 95 % of a 1,000-verdict page
    with 50 stored runs.  A stored run that fails the check is left out and
    counted, never guessed at.
    """
    from pytest_openmed._jsonread import read_limited
    from pytest_openmed.report.load import ReportError, parse_stored

    runs = stored_runs(directory)
    if newest is not None:
        runs = runs[-newest:] if newest > 0 else []
    loaded: list[tuple[str, dict[str, Any]]] = []
    unreadable = 0
    for run in runs:
        try:
            raw = read_limited(run, _MAX_STORED_BYTES, too_large="too large", unreadable="unread")
            loaded.append((run.name.removesuffix(".json"), parse_stored(raw)))
        except (OSError, ReportError, InputRefused):
            unreadable += 1
    return loaded, unreadable


def load_trends(directory: Path, newest: int) -> tuple[list[StoredRun], int]:
    """The trend points of the ``newest`` stored runs, oldest first, and how many were unreadable.

    Read from the index; a stored run the index does not hold (stored by an
    older version, or lost in a race between two runs) is read whole and
    checked like :func:`load_history` does.
    """
    from pytest_openmed._jsonread import read_limited
    from pytest_openmed.report.load import ReportError, parse_stored
    from pytest_openmed.report.trend_view import view_of

    runs = stored_runs(directory)[-newest:] if newest > 0 else []
    index = _read_index(directory) if runs else {}
    loaded: list[StoredRun] = []
    unreadable = 0
    for run in runs:
        name = run.name.removesuffix(".json")
        view = index.get(name)
        if view is None:
            try:
                raw = read_limited(
                    run, _MAX_STORED_BYTES, too_large="too large", unreadable="unread"
                )
                view = view_of(name, parse_stored(raw))
            except (OSError, ReportError, InputRefused):
                unreadable += 1
                continue
        loaded.append(view)
    return loaded, unreadable
