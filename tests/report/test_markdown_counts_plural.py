"""The Markdown summary counts one gate item and one verdict in the singular, as the terminal does."""

from __future__ import annotations

import pytest

ONE_GATE = """
import pytest

@pytest.mark.openmed_gate(kind="custom")
def test_signed_off():
    pass
"""


def test_one_gate_item_and_one_verdict_are_singular_in_terminal_and_markdown(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(ONE_GATE)
    result = pytester.runpytest("--openmed-markdown=s.md")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["openmed: 1 gate item: 1 passed; 1 verdict: 1 no engine verdict. *"]
    )
    markdown = (pytester.path / "s.md").read_text()
    assert "1 gate item: 1 passed; 1 verdict: 1 no engine verdict" in markdown
    assert "1 gate items" not in markdown and "1 verdicts" not in markdown
