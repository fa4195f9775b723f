"""Every example gives a path option with ``=``: after a space, pytest takes the path for a
test path, which can move its rootdir and lose the ini settings (docs/options.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").rglob("*.md")]
)
#: A path option followed by a space and a lower-case value (``PATH``/``DIR`` are placeholders;
#: ``names …`` and ``both …`` are message text).
_SPACED = re.compile(
    r"--openmed-(?:report|markdown|html|baseline|waivers|history|sarif) "
    r"(?!names |both |and |or |\(|DIR|PATH)[a-z0-9./~\"']"
)
#: The one deliberate counter-example, on the options page.
_COUNTER_EXAMPLE = "`--openmed-report /abs/gates.json`"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_path_options_are_given_with_equals(page: Path) -> None:
    text = page.read_text(encoding="utf-8").replace(_COUNTER_EXAMPLE, "")
    spaced = [match.group(0) for match in _SPACED.finditer(text)]
    assert not spaced, spaced


def test_the_scan_finds_a_spaced_path_option() -> None:
    assert _SPACED.search("pytest --openmed-report gates.json")
    assert not _SPACED.search("pytest --openmed-report=gates.json")
