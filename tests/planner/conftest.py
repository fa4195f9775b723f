"""Fixtures of the planner tests."""

from __future__ import annotations

import pytest

from ._helpers import make_wire_project


@pytest.fixture
def wire_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with a wire-format model module and a ``cassettes`` folder."""
    return make_wire_project(pytester)
