"""An ``assess_pack`` call that fails other than by a typed refusal shows no key and no frame.

A pack that is not a ``ValidationPack`` (``None``, a dict read from JSON)
raises inside the fixture, whose frames hold the evaluator key and the
reviews: the test is an error naming only the exception's class, even at
``--showlocals --tb=long``, serial and under xdist, as a gate's is.
"""

from __future__ import annotations

import pytest

CANARY = "QQPACKKEYCANARY"


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_pack_that_is_not_a_pack_shows_only_its_class(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(
        "def test_it(assess_pack):\n"
        f"    assess_pack({{'pack': '{CANARY}'}}, 'config-a', [], key=b'{CANARY}' * 3)\n"
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--showlocals", "--tb=long", "-rA", *workers
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*openmed pack gate failed unexpectedly (AttributeError); its message is withheld "
            "because it may quote input data: rerun with --fulltrace to see it*"
        ]
    )
    output = result.stdout.str() + result.stderr.str()
    assert CANARY not in output
    assert "pytest_openmed/plugin" not in output
