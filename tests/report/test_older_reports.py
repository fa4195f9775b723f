"""Stored reports of an older schema minor version stay readable; a current one is complete."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_openmed.report.load import ReportError, parse_report


def _report(version: str, **run_extra: Any) -> dict[str, Any]:
    run = {
        "exit_status": 0,
        "partial_selection": False,
        "keyword_selection": False,
        "marker_selection": False,
        "last_failed": False,
        "deselected": 0,
        "stopped_early": False,
        "seed": 0,
        "resamples": 1000,
        **run_extra,
    }
    outcomes = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    statuses = {"passed": 0, "threshold": 0, "critical": 0, "blocked": 0, "hold": 0}
    items = dict.fromkeys(("failed", "passed", "skipped", "xfailed", "xpassed", "error"), 0)
    return {
        "schema_version": version,
        "generator": {"name": "pytest-openmed", "version": "0.1.0"},
        "non_diagnostic": True,
        "run": run,
        "summary": {"gates": 0, "outcomes": outcomes, "statuses": statuses, "items": items},
        "gates": [],
        "waivers": [],
        "extensions": {},
    }


TIMING = {"started": "2026-12-01T15:30:00.000000Z", "duration": 1.5, "gates": {}}
ENVIRONMENT = {"python": "3.11.7", "pytest": "9.0.3", "platform": "Linux-x86_64", "commit": None}


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
