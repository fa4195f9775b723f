"""The evaluator_key and simulated_reviewers fixtures: clear errors, never the key."""

from __future__ import annotations

import pytest

KEY = "0123456789abcdef0123456789abcdef-CANARYKEY"

TEST = """
def test_key(evaluator_key):
    assert len(evaluator_key) >= 32
"""


def test_the_key_comes_from_the_configured_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELEASE_KEY", KEY)
    pytester.makepyfile(TEST)
    pytester.runpytest("-p", "openmed", "--openmed-key-env", "RELEASE_KEY").assert_outcomes(
        passed=1
    )
    pytester.makeini("[pytest]\nopenmed_key_env = RELEASE_KEY\n")
    pytester.runpytest("-p", "openmed").assert_outcomes(passed=1)


def test_no_configured_variable_is_an_error_that_says_what_to_do(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(TEST)
    result = pytester.runpytest("-p", "openmed")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no evaluator key configured: pass --openmed-key-env NAME*"])


@pytest.mark.parametrize("value", [None, "", "too-short"])
def test_an_unset_or_short_key_is_an_error_without_the_value(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv("RELEASE_KEY", raising=False)
    else:
        monkeypatch.setenv("RELEASE_KEY", value)
    pytester.makepyfile(TEST)
    result = pytester.runpytest("-p", "openmed", "--openmed-key-env", "RELEASE_KEY")
    result.assert_outcomes(errors=1)
    if value:
        result.stdout.fnmatch_lines(["*the evaluator key variable holds fewer than 32 bytes*"])
    else:  # says the variable is unset, not to set the option
        result.stdout.fnmatch_lines(["*environment variable RELEASE_KEY is unset or empty*"])
        assert "--openmed-key-env" not in result.stdout.str()
    assert "too-short" not in result.stdout.str()


def test_simulated_reviewers_refuse_an_impossible_count(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        def test_count(simulated_reviewers):
            assert len(simulated_reviewers("forms", 3)) == 3
            with pytest.raises(ValueError, match="count must be a whole number from 1 to 9"):
                simulated_reviewers("forms", 0)
        """
    )
    pytester.runpytest("-p", "openmed").assert_outcomes(passed=1)
