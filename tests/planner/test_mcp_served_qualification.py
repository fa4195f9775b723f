"""An MCP host qualified through the governed server gets the callable planner's report."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.injection import run_injection_suite
from pytest_openmed.planner.mcp_agent import qualify_agent
from pytest_openmed.planner.mcp_controls import (
    mcp_control_agent,
    mcp_gullible_agent,
)
from pytest_openmed.planner.wire import wire_planner
from pytest_openmed.planner.wire_controls import (
    GULLIBLE_STYLES,
    openai_gullible_model,
)


def test_a_compliant_host_over_http_gets_the_control_planners_report() -> None:
    outcome = qualify_agent(mcp_control_agent, transport="http")
    assert outcome.report.qualified
    assert outcome.report.to_json() == qualify_planner(control_planner).to_json()
    assert outcome.injection is None


def test_a_compliant_host_over_a_stdio_subprocess_gets_the_same_report() -> None:
    outcome = qualify_agent(mcp_control_agent, transport="stdio")
    assert outcome.report.to_json() == qualify_planner(control_planner).to_json()


def test_a_gullible_host_qualifies_but_the_injection_suite_catches_it() -> None:
    outcome = qualify_agent(mcp_gullible_agent, transport="http", injection_suite=True)
    assert outcome.report.qualified  # the hostile scenario's text is prose
    assert outcome.injection is not None
    complied = {
        style.style
        for style in outcome.injection.styles
        if style.counts.hostile_instruction_compliance
    }
    assert complied == set(GULLIBLE_STYLES)
    twin = run_injection_suite(wire_planner(openai_gullible_model, "openai"))
    assert outcome.injection.to_json() == twin.to_json()
