"""A corrupt stored run is left out of the HTML trend with a warning, never the end of the run."""

from __future__ import annotations

import json

import pytest

from ._helpers import claim, evidence

GATE = (
    '[[claims]]\nname = "labs"\nclaims = "c.json"\nevidence = "e.json"\nresamples = 200\n'
    "max_upper = 1.0\n"
)


@pytest.mark.parametrize(
    "count",
    ["9" * 400, "1e400", '1, "gates": 1'],  # a huge integer, infinity, a repeated name
)
def test_a_stored_run_that_breaks_the_reading_policy_is_skipped(
    pytester: pytest.Pytester, count: str
) -> None:
    (pytester.path / "c.json").write_text(
        json.dumps([claim(i, "lab", [f"ev-{i}"]) for i in range(8)])
    )
    (pytester.path / "e.json").write_text(json.dumps([evidence(i) for i in range(8)]))
    (pytester.path / "gates.openmed.toml").write_text(GATE)
    assert pytester.runpytest("--openmed-history=hist").ret == 0
    (stored,) = (pytester.path / "hist").glob("2*.json")
    document = json.loads(stored.read_text())
    document["summary"]["gates"] = "COUNT"
    corrupt = json.dumps(document).replace('"COUNT"', count)
    (pytester.path / "hist" / "20200101T000000000000Z-nocommit.json").write_text(corrupt)
    result = pytester.runpytest("--openmed-history=hist", "--openmed-html=gates.html")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 0
    assert "Traceback" not in output and "INTERNALERROR" not in output
    result.stdout.fnmatch_lines(
        ["openmed: stored runs left out of the HTML trend (not valid gate reports): 1"]
    )
    assert (pytester.path / "gates.html").stat().st_size > 0
