"""The summary's verdict counts name every verdict: a tagged test without an engine verdict is
not "refused" and never leaves the count empty ("1 verdict: .")."""

from __future__ import annotations

import pytest

TAGGED = """
import pytest

@pytest.mark.openmed_gate(kind="custom")
def test_signed_off():
    pass

@pytest.mark.openmed_gate(kind="pack")
def test_reviewed_by_hand():
    pass
"""


def test_tagged_tests_without_an_engine_verdict_are_counted_as_such(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(TAGGED)
    result = pytester.runpytest("--openmed-markdown=s.md")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["openmed: 2 gate items: 2 passed; 2 verdicts: 2 no engine verdict. *"]
    )
    output = result.stdout.str()
    assert "refused" not in output and "verdicts: ." not in output
    assert "2 verdicts: 2 no engine verdict" in (pytester.path / "s.md").read_text()


def test_an_expected_refusal_of_the_control_run_is_counted_as_refused(
    pytester: pytest.Pytester,
) -> None:
    # The claims control's lab class is refused as underpowered, as the control expects:
    # the item passes, and its engine still gave no verdict but a refusal.
    result = pytester.runpytest("-p", "openmed", "--openmed-controls", "-k", "claims")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["openmed: 5 gate items: 5 passed; 5 verdicts: *, 1 refused. *"])
    assert "no engine verdict" not in result.stdout.str()
