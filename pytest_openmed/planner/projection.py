"""Minimum-data projection: a tool may run only for the workflow's purpose
and only over data classes the workflow was granted.

A capability grant says *which tool*; the projection says *which data*.  It
reads the tool's own schema annotations (the purpose at the top, a data class
on every field) and refuses on a purpose mismatch, an ungranted data class, a
field that declares none or a schema open to additional fields (undeclared data
is never assumed harmless).
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from typing import Any

from pytest_openmed.planner.catalog import DATA_CLASS_KEYWORD, PURPOSE_KEYWORD

__all__ = ["ProjectionDecision", "project_minimum_data", "schema_data_classes"]


class ProjectionDecision(enum.Enum):
    """The projection's answer for one tool schema under one workflow."""

    WITHIN = "within"
    PURPOSE_MISMATCH = "purpose_mismatch"
    UNGRANTED_DATA_CLASS = "ungranted_data_class"
    UNDECLARED_DATA_CLASS = "undeclared_data_class"


def schema_data_classes(schema: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The data class of every property, or ``None`` if any field may go undeclared.

    A schema that admits additional properties admits fields nobody classified.
    """
    if schema.get("additionalProperties") is not False:
        return None
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        return None
    found: list[str] = []
    for field in properties.values():
        data_class = field.get(DATA_CLASS_KEYWORD) if isinstance(field, Mapping) else None
        if type(data_class) is not str or not data_class:
            return None
        found.append(data_class)
    return tuple(sorted(set(found)))


def project_minimum_data(
    schema: Mapping[str, Any],
    workflow_purpose: str,
    granted_data_classes: Collection[str],
) -> ProjectionDecision:
    """Whether a call under ``schema`` stays inside the granted purpose and data."""
    purpose = schema.get(PURPOSE_KEYWORD)
    if type(purpose) is not str or purpose != workflow_purpose:
        return ProjectionDecision.PURPOSE_MISMATCH
    data_classes = schema_data_classes(schema)
    if data_classes is None:
        return ProjectionDecision.UNDECLARED_DATA_CLASS
    granted = set(granted_data_classes)
    if any(data_class not in granted for data_class in data_classes):
        return ProjectionDecision.UNGRANTED_DATA_CLASS
    return ProjectionDecision.WITHIN
