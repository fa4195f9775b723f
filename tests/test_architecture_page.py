"""The architecture page's map of rules points at files that exist.

docs/architecture.md tells a newcomer which one or two files hold each rule;
a path there that no longer exists sends them nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest_openmed

PACKAGE = Path(pytest_openmed.__file__).parent
PAGE = PACKAGE.parent / "docs" / "architecture.md"

#: Homes that colleagues of issue #12 are creating in parallel, named here
#: already; the test fails once they exist, so the entries are removed then.
PENDING: dict[str, str] = {}


def rule_paths() -> list[str]:
    """Every backticked package path in the "Where each rule lives" section."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Where each rule lives", 1)[1].split("\n## ", 1)[0]
    return sorted(set(re.findall(r"`([a-z_][a-z0-9_./-]*(?:\.py|\.json|/))`", section)))


def test_the_map_names_the_files_of_every_engine() -> None:
    paths = rule_paths()
    for room in ("claims/", "planner/", "multimodal/", "plugin/", "schemas/"):
        assert any(p.startswith(room) for p in paths), room
    assert len(paths) >= 30


#: Top-level folders of the repository (outside the package) the map may name.
REPOSITORY_ROOMS = ("tests", "docs", "validation", "benchmarks", PACKAGE.name)


def resolve(path: str) -> Path:
    """A package path (``claims/scoring.py``) or a repository path (``tests/…``, ``validation/…``)."""
    top = path.split("/", 1)[0]
    return (PACKAGE.parent if top in REPOSITORY_ROOMS else PACKAGE) / path


def test_every_path_in_the_map_exists() -> None:
    missing = [p for p in rule_paths() if p not in PENDING and not resolve(p).exists()]
    assert missing == []


def test_every_pending_home_is_still_pending() -> None:
    # A colleague's room landed: remove its entry from PENDING.
    assert sorted(p for p in PENDING if resolve(p).exists()) == []
    assert set(PENDING) <= set(rule_paths())
