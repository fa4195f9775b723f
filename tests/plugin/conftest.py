"""Fixtures for the plugin's pytester tests."""

from __future__ import annotations

import pytest

from ._helpers import NOTES_MEDICATION_GATE, write_claims_project


@pytest.fixture
def claims_project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(
        pytester.path,
        NOTES_MEDICATION_GATE + "[claims.classes.diagnosis]\nmax_upper = 0.5\n",
    )
    return pytester
