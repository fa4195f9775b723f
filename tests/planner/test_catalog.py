"""The fixed catalog: four tools, version 1.0.0, self-contained 2020-12 schemas."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner.catalog import (
    EXPORT_TOOL,
    READ_TOOL,
    RESTRICTED_DATA_CLASS,
    RESTRICTED_TOOL,
    REVIEW_TOOL,
    ToolCatalog,
    ToolSpec,
    build_catalog,
    schema_checker,
)
from tests._imports import modules_after


def test_four_tools_at_version_1_0_0() -> None:
    catalog = build_catalog()
    assert catalog.tool_ids == (READ_TOOL, REVIEW_TOOL, EXPORT_TOOL, RESTRICTED_TOOL)
    assert len(catalog) == 4
    assert {tool.version for tool in catalog} == {"1.0.0"}
    assert [tool.reference for tool in catalog] == [f"{t}@1.0.0" for t in catalog.tool_ids]
    assert [tool.requires_review for tool in catalog] == [False, True, False, False]


def test_schemas_are_self_contained_draft_2020_12() -> None:
    for tool in build_catalog():
        schema = tool.schema
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert "$ref" not in tool.schema_text and "$id" not in tool.schema_text
        assert schema["required"] == ["operation"]
        assert schema["additionalProperties"] is False
        assert list(schema["properties"]) == ["operation"]
        operation = schema["properties"]["operation"]
        assert operation["type"] == "string" and operation["enum"] == ["summarize", "reveal"]


def test_only_the_restricted_tool_carries_the_restricted_data_class() -> None:
    restricted = {
        tool.tool_id
        for tool in build_catalog()
        if tool.schema["properties"]["operation"]["x-openmed-data-class"] == RESTRICTED_DATA_CLASS
    }
    assert restricted == {RESTRICTED_TOOL}


@pytest.mark.parametrize(
    ("arguments", "valid"),
    [
        ({"operation": "summarize"}, True),
        ({"operation": "reveal"}, True),
        ({}, False),
        ({"operation": "Summarize"}, False),
        ({"operation": "summarize", "extra": "x"}, False),
        ({"other": "summarize"}, False),
    ],
)
def test_schema_checker(arguments: dict[str, str], valid: bool) -> None:
    for tool in build_catalog():
        assert schema_checker(tool)(arguments) is valid


def test_schema_copies_cannot_change_the_catalog() -> None:
    catalog = build_catalog()
    tool = catalog.get(READ_TOOL)
    assert tool is not None
    tool.schema["additionalProperties"] = True
    assert tool.schema["additionalProperties"] is False
    assert build_catalog() == build_catalog() and build_catalog() is not build_catalog()


def test_lookup_is_exact() -> None:
    catalog = build_catalog()
    assert catalog.get(READ_TOOL) is not None
    for probe in (READ_TOOL + "@1.0.0", READ_TOOL.upper(), " " + READ_TOOL, None, 1):
        assert catalog.get(probe) is None

    class Sub(str):
        pass

    assert catalog.get(Sub(READ_TOOL)) is None


def test_catalog_validation_and_repr() -> None:
    tool = build_catalog().tools[0]
    with pytest.raises(ValueError):
        ToolCatalog((tool, tool))
    with pytest.raises(TypeError):
        ToolCatalog([tool])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ToolSpec("x", "1.0.0", "d", False, json.dumps([1]))
    assert repr(build_catalog()) == "ToolCatalog(4 tools)"


def test_importing_the_engine_does_not_import_jsonschema() -> None:
    loaded = modules_after(
        "import pytest_openmed.planner, pytest_openmed.planner._gate, pytest_openmed.planner.controls"
    )
    assert "jsonschema" not in loaded
