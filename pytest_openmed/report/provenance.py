"""Which run a report is: when it started, what it ran on, and the commit it ran at.

Everything here is read without a network and without a subprocess: the
commit comes from the CI's environment (:data:`COMMIT_VARIABLES`) or, failing
that, from the ``.git`` directory of the working tree (loose refs, packed
refs, worktrees and detached heads).  Nothing of the machine's paths or names
enters a report: versions, the operating system's name, the processor
architecture and a hexadecimal commit id only.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["COMMIT_VARIABLES", "environment", "read_commit", "utc_stamp"]

#: Environment variables that may hold the commit id of the run, first found wins.
COMMIT_VARIABLES = (
    "GITHUB_SHA",
    "CI_COMMIT_SHA",
    "BUILDKITE_COMMIT",
    "BUILD_SOURCEVERSION",
    "GIT_COMMIT",
)

_HEX_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ENV_COMMIT = re.compile(r"[0-9a-fA-F]{7,64}")
_REF = re.compile(r"refs/[A-Za-z0-9._/\-]{1,240}")
#: Directories searched upwards for ``.git`` (a working tree is rarely deeper).
_MAX_DEPTH = 64
#: Largest ``.git`` file read (``packed-refs`` of a big repository stays well below).
_MAX_GIT_FILE = 32 * 1024 * 1024


def utc_stamp(moment: datetime.datetime) -> str:
    """``moment`` as the report writes it: ISO 8601 in UTC with microseconds and ``Z``."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _env_commit(environ: Mapping[str, str]) -> str | None:
    for variable in COMMIT_VARIABLES:
        value = environ.get(variable, "").strip()
        if _ENV_COMMIT.fullmatch(value):
            return value.lower()
    return None


def _read_small(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            raw = handle.read(_MAX_GIT_FILE + 1)
    except OSError:
        return None
    if len(raw) > _MAX_GIT_FILE:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _git_dir(start: Path) -> Path | None:
    """The git directory of the working tree holding ``start`` (``.git`` or a worktree's)."""
    for depth, directory in enumerate((start, *start.parents)):
        if depth >= _MAX_DEPTH:
            return None
        marker = directory / ".git"
        try:
            if marker.is_dir():
                return marker
            if not marker.is_file():
                continue
        except OSError:
            return None
        text = _read_small(marker) or ""
        first = text.splitlines()[0] if text else ""
        if not first.startswith("gitdir:"):
            return None
        return directory / first.removeprefix("gitdir:").strip()
    return None


def _resolve_ref(git_dir: Path, ref: str) -> str | None:
    if not _REF.fullmatch(ref) or ".." in ref.split("/"):
        return None
    common = git_dir
    pointer = _read_small(git_dir / "commondir")
    if pointer is not None and pointer.strip():
        common = git_dir / pointer.strip()
    for where in dict.fromkeys((git_dir, common)):
        loose = _read_small(where / ref)
        if loose is not None and _HEX_COMMIT.fullmatch(loose.strip()):
            return loose.strip()
    packed = _read_small(common / "packed-refs") or ""
    for line in packed.splitlines():
        commit, _, name = line.partition(" ")
        if name == ref and _HEX_COMMIT.fullmatch(commit):
            return commit
    return None


def read_commit(start: Path, environ: Mapping[str, str]) -> str | None:
    """The commit the run is at: the CI's variable, else the working tree's ``HEAD``; else ``None``.

    Never raises: an unreadable or unusual repository just gives ``None``.
    """
    found = _env_commit(environ)
    if found is not None:
        return found
    git_dir = _git_dir(start)
    if git_dir is None:
        return None
    head = (_read_small(git_dir / "HEAD") or "").strip()
    if _HEX_COMMIT.fullmatch(head):
        return head
    if head.startswith("ref:"):
        return _resolve_ref(git_dir, head.removeprefix("ref:").strip())
    return None


def environment(pytest_version: str, commit: str | None) -> dict[str, Any]:
    """What the run ran on, as the report's ``run.environment`` records it."""
    import platform

    return {
        "python": platform.python_version(),
        "pytest": pytest_version,
        "platform": f"{platform.system() or 'unknown'}-{platform.machine() or 'unknown'}",
        "commit": commit,
    }
