"""Every number in every shipped schema is bounded as the reading policy bounds it.

An integer lies within the policy's 64-bit range, any other number within
float64's finite range, so a document a schema accepts can be formatted and
converted anywhere downstream (``openmed-report html`` once crashed on a
400-digit integer the gate-report schema let through).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from pytest_openmed._jsonread import MAX_JSON_INT
from pytest_openmed.report.load import ReportError, parse_report
from pytest_openmed.schemas import load_schema, schema_names
from tests.report.test_history_store import report_with


def numbers(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if {"number", "integer"} & set(kinds) and "const" not in node and "enum" not in node:
            yield node
        for value in node.values():
            yield from numbers(value)
    elif isinstance(node, list):
        for value in node:
            yield from numbers(value)


@pytest.mark.parametrize("name", schema_names())
def test_every_number_is_bounded(name: str) -> None:
    for node in numbers(load_schema(name)):
        low = node.get("minimum", node.get("exclusiveMinimum"))
        high = node.get("maximum", node.get("exclusiveMaximum"))
        assert low is not None and high is not None, node
        bound = MAX_JSON_INT if "number" not in str(node["type"]) else sys.float_info.max
        assert -bound <= low and high <= bound, node


@pytest.mark.parametrize("value", [10**400, -(10**309), 2**64])
def test_the_gate_report_schema_refuses_an_unbounded_count(value: int) -> None:
    report = report_with(rate=0.1, lower=0.0, upper=0.2)
    report["summary"]["gates"] = value
    validator = jsonschema.Draft202012Validator(load_schema("gate-report"))
    assert not validator.is_valid(report)


@pytest.mark.parametrize(
    "public_report",
    [{}, {"slices": 5}, {"schema": "openmed.multimodal.public_report", "overall": []}],
)
def test_a_gate_reports_public_report_is_checked_against_its_own_schema(
    public_report: dict[str, Any],
) -> None:
    """``openmed-report`` renders what ``validate`` accepts; a malformed public report is refused."""
    report = report_with(rate=0.1, lower=0.0, upper=0.2)
    report["gates"][0]["public_report"] = public_report
    with pytest.raises(ReportError, match="public_report"):
        parse_report(json.dumps(report).encode())
