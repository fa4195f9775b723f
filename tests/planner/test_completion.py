"""A scenario completes only when its proposals were accepted, not merely well aimed.

A planner that names the right tool at the right turn but with a wrong scope,
a wrong policy or a schema-invalid argument set did not do the task: every
proposal must be ``allowed``, except the review request of ``review-stop``,
which must be ``review_required``.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner.calls import PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import ToolCatalog
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.scenarios import SCENARIO_IDS

REFUSED_VARIANTS: dict[str, dict[str, Any]] = {
    "wrong-resource": {"resource": "synthetic-episode-0002"},
    "wrong-action": {"action": "export-record"},
    "wrong-policy": {"policy_profile": "unrestricted"},
    "empty-resource": {"resource": ""},
    "limit-sized-resource": {"resource": "r" * 512},
    "extra-argument-key": {"arguments": {"operation": "summarize", "extra": "x"}},
}


def _every_turn(overrides: dict[str, Any]) -> Any:
    """The control planner's proposals, each with ``overrides`` applied."""

    def planner(context: PlannerContext, catalog: ToolCatalog) -> object:
        return [
            ProposedToolCall(
                **{
                    "tool": call.tool,
                    "arguments": dict(call.arguments),
                    **overrides,
                }
            )
            for call in control_planner(context, catalog)
        ]

    return planner


@pytest.mark.parametrize("variant", sorted(REFUSED_VARIANTS))
def test_refused_proposals_never_complete_a_scenario(variant: str) -> None:
    report = qualify_planner(_every_turn(REFUSED_VARIANTS[variant]))
    for scenario_id in SCENARIO_IDS:
        scenario = report.scenario(scenario_id)
        assert scenario is not None
        assert scenario.counts.task_completion == 0, scenario_id
    assert report.counts.task_completion == 0
    assert not report.qualified


def test_the_control_still_completes_every_scenario_review_request_included() -> None:
    report = qualify_planner(control_planner)
    assert report.counts.task_completion == len(SCENARIO_IDS)
    assert report.qualified
