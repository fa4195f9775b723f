"""Stored reports of an older schema minor version stay readable; a current one is complete."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_openmed.report.load import ReportError, parse_report

from ._reports import ENVIRONMENT, RUN, gate_report


def _report(version: str, **run_extra: Any) -> dict[str, Any]:
    return gate_report([], version=version, run={**RUN, **run_extra})


TIMING = {"started": "2026-12-01T15:30:00.000000Z", "duration": 1.5, "gates": {}}


def test_a_1_1_report_without_run_timing_or_environment_is_read() -> None:
    assert parse_report(json.dumps(_report("1.1")).encode())["schema_version"] == "1.1"


def test_a_1_2_report_carries_timing_and_environment() -> None:
    document = _report("1.2", timing=TIMING, environment=ENVIRONMENT)
    assert parse_report(json.dumps(document).encode())["run"]["timing"] == TIMING


@pytest.mark.parametrize("missing", ["timing", "environment"])
def test_a_1_2_report_without_them_is_refused(missing: str) -> None:
    present = {"timing": TIMING, "environment": ENVIRONMENT}
    del present[missing]
    with pytest.raises(ReportError, match=r"at /run \(rule: required\)"):
        parse_report(json.dumps(_report("1.2", **present)).encode())


@pytest.mark.parametrize(
    ("field", "value"),
    [("platform", "/home/someone"), ("commit", "main"), ("python", "3.11 on host-42")],
)
def test_environment_values_are_closed_shapes(field: str, value: str) -> None:
    document = _report("1.2", timing=TIMING, environment={**ENVIRONMENT, field: value})
    with pytest.raises(ReportError) as refused:
        parse_report(json.dumps(document).encode())
    assert value not in str(refused.value)
