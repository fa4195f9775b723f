"""Docstrings and comments cite pages of this repository's docs, nothing outside it.

A reader of the installed package has ``docs/`` (built into the site) but not
the design notes the project was started from, so a rule is cited by the docs
page that states it (docs/architecture.md, "Where each rule lives").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest_openmed

PACKAGE = Path(pytest_openmed.__file__).parent
DOCS = PACKAGE.parent / "docs"

#: A citation of the design file or a seed document (by section or number).
OUTSIDE = re.compile(r"DESIGN(\.md)?\b|\bseed\s*(§|0\d\d\b)|\bseeds/\d|\bthe design\b")
PAGE = re.compile(r"\bdocs/[A-Za-z0-9_/-]+\.md\b")


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_source_cites_the_design_file_or_a_seed() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in _sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert found == []


def test_every_cited_docs_page_exists() -> None:
    cited = {page for path in _sources() for page in PAGE.findall(path.read_text("utf-8"))}
    assert "docs/multimodal.md" in cited
    assert sorted(p for p in cited if not (PACKAGE.parent / p).is_file()) == []


def test_the_patterns_find_what_they_guard() -> None:
    assert OUTSIDE.search("in the precedence of DESIGN §6")
    assert OUTSIDE.search("(seed 000: a pass/fail flag)")
    assert OUTSIDE.search("see seeds/003 for the limits")
    assert not OUTSIDE.search("with the run's seed/resamples")
    assert not OUTSIDE.search("UIDs derive from the seed and slice")
    assert PAGE.findall("see docs/components/forms.md.") == ["docs/components/forms.md"]
