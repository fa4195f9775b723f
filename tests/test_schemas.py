"""Every shipped JSON Schema is itself a valid Draft 2020-12 schema."""

from __future__ import annotations

import jsonschema
import pytest

from pytest_openmed.schemas import load_schema, schema_names


def test_the_gate_report_schema_ships() -> None:
    assert "gate-report" in schema_names()


@pytest.mark.parametrize("name", schema_names())
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema(name))


@pytest.mark.parametrize("name", ["../pyproject", "a/b", ""])
def test_schema_names_are_plain(name: str) -> None:
    with pytest.raises((ValueError, FileNotFoundError)):
        load_schema(name)
