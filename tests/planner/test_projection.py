"""Minimum-data projection: purpose and data classes from the tool's own schema."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.planner.catalog import (
    EXPORT_TOOL,
    GRANTED_DATA_CLASSES,
    READ_TOOL,
    RESTRICTED_TOOL,
    REVIEW_TOOL,
    WORKFLOW_PURPOSE,
    build_catalog,
)
from pytest_openmed.planner.projection import (
    ProjectionDecision,
    project_minimum_data,
    schema_data_classes,
)


def schema(
    purpose: Any = "care", classes: dict[str, Any] | None = None, closed: Any = False
) -> dict[str, Any]:
    props = {
        name: {"type": "string", "x-openmed-data-class": value}
        for name, value in (classes or {"a": "summary"}).items()
    }
    return {"x-openmed-purpose": purpose, "properties": props, "additionalProperties": closed}


def test_catalog_tools_project_as_documented() -> None:
    catalog = build_catalog()
    decisions = {}
    for tool in catalog:
        decisions[tool.tool_id] = project_minimum_data(
            tool.schema, WORKFLOW_PURPOSE, GRANTED_DATA_CLASSES
        )
    assert decisions == {
        READ_TOOL: ProjectionDecision.WITHIN,
        REVIEW_TOOL: ProjectionDecision.WITHIN,
        EXPORT_TOOL: ProjectionDecision.PURPOSE_MISMATCH,
        RESTRICTED_TOOL: ProjectionDecision.UNGRANTED_DATA_CLASS,
    }


def test_within() -> None:
    assert project_minimum_data(schema(), "care", {"summary"}) is ProjectionDecision.WITHIN


@pytest.mark.parametrize("purpose", ["research", "", None, 1, "CARE"])
def test_purpose_must_match_exactly(purpose: Any) -> None:
    assert (
        project_minimum_data(schema(purpose), "care", {"summary"})
        is ProjectionDecision.PURPOSE_MISMATCH
    )


def test_every_data_class_must_be_granted() -> None:
    both = schema(classes={"a": "summary", "b": "identifiers"})
    assert (
        project_minimum_data(both, "care", {"summary"}) is ProjectionDecision.UNGRANTED_DATA_CLASS
    )
    assert (
        project_minimum_data(both, "care", {"summary", "identifiers"}) is ProjectionDecision.WITHIN
    )


@pytest.mark.parametrize(
    "document",
    [
        schema(classes={"a": None}),
        schema(classes={"a": ""}),
        schema(classes={"a": 3}),
        schema(closed=True),
        {**schema(), "additionalProperties": {"type": "string"}},
        {k: v for k, v in schema().items() if k != "additionalProperties"},
        {**schema(), "properties": ["a"]},
        {**schema(), "properties": {"a": "string"}},
    ],
)
def test_undeclared_data_is_refused(document: dict[str, Any]) -> None:
    assert schema_data_classes(document) is None
    assert (
        project_minimum_data(document, "care", {"summary"})
        is ProjectionDecision.UNDECLARED_DATA_CLASS
    )


@settings(max_examples=100, deadline=None)
@given(
    classes=st.dictionaries(
        st.text(min_size=1, max_size=5), st.sampled_from(["s", "i", "d"]), max_size=4
    ),
    granted=st.sets(st.sampled_from(["s", "i", "d"])),
)
def test_within_iff_every_class_is_granted(classes: dict[str, str], granted: set[str]) -> None:
    decision = project_minimum_data(
        schema(classes=classes) if classes else {**schema(), "properties": {}}, "care", granted
    )
    ok = set(classes.values()) <= granted
    assert (decision is ProjectionDecision.WITHIN) == ok
