"""A test id is one literal code span in the Markdown summary, whatever backticks it holds.

Rendered by a CommonMark parser with GitHub's table extension and raw HTML
allowed (as a step summary is), a backtick in a test id must not end the code
span and let the rest of the id through as HTML.
"""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

HOSTILE = "a`<img src=x onerror=alert(1)>``b"
TEST = f"""
import pytest

@pytest.mark.openmed_gate(kind="claims")
@pytest.mark.parametrize("case", [{HOSTILE!r}, "`tick"], ids=str)
def test_case(case):
    assert False
"""


def rendered(text: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


def test_the_step_summary_shows_a_hostile_id_as_code(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = pytester.path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    pytester.makepyfile(test_hostile=TEST)
    pytester.runpytest().assert_outcomes(failed=2)
    text = step.read_text()
    assert "<img" in text  # the id is there, as text
    page = rendered(text)
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    outside_code = re.sub(r"<code>[^<]*</code>", "", page)
    assert "test_case[" not in outside_code and "test_hostile.py" not in outside_code
