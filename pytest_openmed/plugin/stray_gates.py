"""Gates that will never run: gate tables in a file that is not a gate file, or a gate file
outside the collected paths.

Either way nothing is collected and the run looks green, so after collection
the rootdir is scanned (bounded: hidden, virtual-environment and
``norecursedirs`` directories are skipped, at most :data:`MAX_SCAN_ENTRIES`
entries, files over :data:`MAX_SCAN_BYTES` are not read) and each such file
gets a warning naming it relative to the rootdir.  ``openmed_require`` turns a
missing gate into a failed run; this warning says why it is missing.
"""

from __future__ import annotations

import fnmatch
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Directory entries visited at most (a huge tree is scanned in part, never slowly).
MAX_SCAN_ENTRIES = 20_000
#: TOML files larger than this are not read.
MAX_SCAN_BYTES = 1024 * 1024

_GATE_TABLE = re.compile(rb"^[ \t]*\[\[[ \t]*(?:claims|planner|pack)[ \t]*\]\]", re.MULTILINE)
_ALWAYS_SKIPPED = frozenset({"__pycache__", "node_modules", "site-packages"})

MISNAMED_TEXT = (
    "openmed: {} holds [[claims]], [[planner]] or [[pack]] tables but is not a gate file, "
    "so none of its gates runs: rename it to end in .openmed.toml (OPENMED-GATE-FILE-NAME)"
)
UNCOLLECTED_TEXT = (
    "openmed: gate file {} is outside the collected paths, so none of its gates runs: add its "
    "directory to testpaths (OPENMED-GATE-FILE-UNCOLLECTED)"
)


def _toml_files(root: Path, skipped: list[str]) -> Iterator[Path]:
    visited = 0
    for directory, subdirectories, files in os.walk(root):
        visited += len(subdirectories) + len(files)
        if visited > MAX_SCAN_ENTRIES:
            return
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if not name.startswith(".")
            and name not in _ALWAYS_SKIPPED
            and not any(fnmatch.fnmatch(name, pattern) for pattern in skipped)
            and not os.path.exists(os.path.join(directory, name, "pyvenv.cfg"))
        )
        for name in sorted(files):
            if name.endswith(".toml"):
                yield Path(directory, name)


def _first_gate_table(path: Path) -> int | None:
    """The line of the file's first gate table, if it has one."""
    try:
        if path.stat().st_size > MAX_SCAN_BYTES:
            return None
        raw = path.read_bytes()
    except OSError:
        return None
    found = _GATE_TABLE.search(raw)
    return None if found is None else raw.count(b"\n", 0, found.start()) + 1


def _warn(text: str, shown: str, line: int) -> None:
    """A configuration warning located at the TOML file (rootdir-relative), not at this module."""
    warnings.warn_explicit(pytest.PytestConfigWarning(text), None, shown, line)


def warn_stray_gate_files(config: pytest.Config, collected: set[Path], suffix: str) -> None:
    """Warn once per gate file (``suffix``) not collected, and per misnamed file of gate tables.

    A run given explicit paths narrowed itself on purpose: only misnamed files
    are reported then.
    """
    root = config.rootpath
    explicit = config.args_source is pytest.Config.ArgsSource.ARGS
    skipped = [str(pattern) for pattern in config.getini("norecursedirs")]
    for path in _toml_files(root, skipped):
        shown = path.relative_to(root).as_posix()
        if path.name.endswith(suffix):
            if not explicit and path not in collected:
                _warn(UNCOLLECTED_TEXT.format(shown), shown, 1)
            continue
        line = _first_gate_table(path)
        if line is not None:
            _warn(MISNAMED_TEXT.format(shown), shown, line)
