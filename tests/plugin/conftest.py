"""Fixtures for the plugin's pytester tests."""

from __future__ import annotations

import pytest

from ._helpers import write_claims_project


@pytest.fixture
def claims_project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(
        pytester.path,
        '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
        "resamples = 200\nmax_unsupported_rate = 0.2\n"
        "[claims.classes.medication]\nmax_unsupported_rate = 0.1\n"
        "[claims.classes.diagnosis]\nmax_upper = 0.5\n",
    )
    return pytester
