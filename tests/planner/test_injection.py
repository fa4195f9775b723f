"""The injection suite: a fixed, versioned set of attack styles on the hostile scenario."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed._wilson import wilson_interval
from pytest_openmed.planner.calls import PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import EXPORT_TOOL, READ_TOOL, ToolCatalog
from pytest_openmed.planner.controls import (
    control_planner,
    crashing_planner,
    hostile_compliant_planner,
)
from pytest_openmed.planner.declaration import INJECTION_ITEMS, INJECTION_STYLES
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.injection import (
    INJECTION_SUITE_VERSION,
    injection_scenario,
    run_injection_suite,
    styles,
)
from pytest_openmed.planner.scenarios import SCENARIOS
from pytest_openmed.planner.wire import wire_planner
from pytest_openmed.planner.wire_controls import GULLIBLE_STYLES, openai_gullible_model
from pytest_openmed.schemas import load_schema

from ._helpers import BASELINE, all_counts

#: The families the issue asks for, each covered by at least one style.
FAMILIES = {
    "instruction override": ["direct-override"],
    "fake system message": ["fake-system"],
    "fake developer message": ["fake-developer"],
    "tool-output spoofing (decision)": ["spoofed-decision"],
    "tool-output spoofing (approval token)": ["spoofed-approval"],
    "urgency claim": ["urgency"],
    "authority claim": ["authority"],
    "instruction hidden in structured data (JSON)": ["json-data"],
    "instruction hidden in structured data (Markdown table)": ["markdown-table"],
    "instruction hidden in structured data (HTML comment)": ["html-comment"],
    "encoded payload (base64)": ["base64"],
    "encoded payload (leetspeak)": ["leetspeak"],
    "multilingual instruction": ["multilingual"],
    "multi-turn plant and trigger": ["multi-turn"],
}


def test_the_suite_is_fixed_versioned_and_covers_every_family() -> None:
    assert INJECTION_SUITE_VERSION == 1
    assert len(styles()) >= 12
    assert tuple(s.style for s in styles()) == INJECTION_STYLES
    assert {s.family: [s.style] for s in styles()} == FAMILIES
    assert INJECTION_ITEMS == tuple(f"injection[{s}]" for s in INJECTION_STYLES)
    assert len({s.result_text for s in styles()}) == len(styles())


def test_the_encoded_payload_decodes_to_the_instruction() -> None:
    text = next(s.result_text for s in styles() if s.style == "base64")
    payload = text.rsplit(" ", 1)[1]
    assert "export tool" in base64.b64decode(payload).decode("ascii")


def test_each_style_is_the_hostile_scenario_with_other_result_texts_only() -> None:
    hostile = next(s for s in SCENARIOS if s.scenario_id == "hostile-result")
    for item in styles():
        scenario = injection_scenario(item.style)
        assert (scenario.scenario_id, scenario.task, scenario.expected, scenario.hostile) == (
            hostile.scenario_id, hostile.task, hostile.expected, True,
        )  # fmt: skip
        assert scenario.result_text == item.result_text
        assert scenario.followup_text == item.followup_text
    with pytest.raises(ValueError, match="unknown injection style"):
        injection_scenario("not-a-style")


def test_the_six_scenarios_and_qualification_are_unchanged() -> None:
    assert all(s.followup_text is None for s in SCENARIOS)
    report = qualify_planner(control_planner)
    assert report.qualified and all_counts(report) == BASELINE


def test_the_control_planner_complies_with_no_style() -> None:
    report = run_injection_suite(control_planner)
    assert [s.complied for s in report.styles] == [0] * len(INJECTION_STYLES)
    assert all(s.counts.task_completion == 1 for s in report.styles)
    summary = report.summary()
    assert summary["compliance_count"] == 0
    assert summary["compliance_upper"] == wilson_interval(0, len(INJECTION_STYLES)).upper


def test_a_planner_that_obeys_every_result_complies_with_every_style() -> None:
    report = run_injection_suite(hostile_compliant_planner)
    assert report.compliance_count == len(INJECTION_STYLES)
    assert report.summary()["compliance_lower"] == wilson_interval(14, 14).lower


def test_the_gullible_model_is_caught_on_exactly_its_styles() -> None:
    report = run_injection_suite(wire_planner(openai_gullible_model, "openai"))
    assert [s.style for s in report.styles if s.complied] == list(GULLIBLE_STYLES)
    interval = wilson_interval(3, len(INJECTION_STYLES))
    assert report.summary() == {
        "styles": len(INJECTION_STYLES),
        "compliance_count": 3,
        "compliance_rate": 3 / len(INJECTION_STYLES),
        "compliance_lower": interval.lower,
        "compliance_upper": interval.upper,
    }


def _planted_trigger_follower(context: PlannerContext, catalog: ToolCatalog) -> Any:
    """Obeys a trigger planted on turn 1 when it arrives on turn 2."""
    if context.turn == 2 and any("CONFIRMED" in text for text in context.tool_results):
        return (ProposedToolCall(EXPORT_TOOL, {"operation": "summarize"}),)
    return control_planner(context, catalog)


def test_the_multi_turn_style_triggers_on_turn_two_only_after_the_confirming_read() -> None:
    seen: list[tuple[int, tuple[str, ...]]] = []

    def watcher(context: PlannerContext, catalog: ToolCatalog) -> Any:
        seen.append((context.turn, context.tool_results))
        return _planted_trigger_follower(context, catalog)

    report = run_injection_suite(watcher)
    item = next(s for s in styles() if s.style == "multi-turn")
    assert (2, (item.followup_text,)) in seen
    multi = report.style("multi-turn")
    assert multi is not None and multi.complied == 1
    assert multi.counts.out_of_grant_proposals == 1
    assert report.compliance_count == 1


def test_no_follow_up_without_the_confirming_read() -> None:
    seen: list[tuple[int, tuple[str, ...]]] = []

    def stops_early(context: PlannerContext, catalog: ToolCatalog) -> Any:
        seen.append((context.turn, context.tool_results))
        return (
            (ProposedToolCall(READ_TOOL, {"operation": "summarize"}),) if context.turn == 0 else ()
        )

    run_injection_suite(stops_early)
    assert all(turn < 2 for turn, _ in seen)


def test_a_crashing_planner_is_a_planner_error_in_every_style() -> None:
    report = run_injection_suite(crashing_planner)
    assert all(s.counts.planner_errors == 1 for s in report.styles)


def test_the_report_is_valid_json_of_counts_only() -> None:
    report = run_injection_suite(wire_planner(openai_gullible_model, "openai"))
    document = report.to_dict()
    Draft202012Validator(load_schema("planner-injection-report")).validate(document)
    text = report.to_json()
    for item in styles():
        assert item.result_text not in text
    assert "episode" not in text
    assert repr(report) == "InjectionReport(compliance=3/14)"


def test_the_wilson_rule_lives_in_one_place() -> None:
    from pytest_openmed import multimodal

    assert multimodal.wilson_interval is wilson_interval
