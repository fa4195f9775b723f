"""Data-file errors say which input and, for JSON Lines, which line; never the content or path."""

from __future__ import annotations

import pytest

from ._helpers import CANARY, write_claims_project

GATE = (
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "max_unsupported_rate = 0.2\n"
)


def test_a_bad_json_lines_record_names_the_input_and_the_line(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, GATE)
    lines = (pytester.path / "evidence.jsonl").read_text().splitlines()
    lines[6] = '{"evidence_id": "' + CANARY + '", '  # line 7 is cut short
    (pytester.path / "evidence.jsonl").write_text("\n".join(lines) + "\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["openmed claims gate input refused: ValueError: evidence input: line 7: *not a JSON*"]
    )
    assert CANARY not in result.stdout.str()


def test_a_missing_input_names_which_one(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, GATE)
    (pytester.path / "claims.json").unlink()
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*OSError: claims input: a claims gate input file could not be read"]
    )
    assert "claims.json" not in result.stdout.str().split("collected", 1)[1]
