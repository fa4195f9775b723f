"""ProposedToolCall never validates; PlannerContext is immutable; reprs show no values."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import pytest

from pytest_openmed.planner.calls import GrantConstraint, PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import GRANTED_ACTION, GRANTED_POLICY, GRANTED_RESOURCE

from ._helpers import Recorder


def context(**changes: Any) -> PlannerContext:
    fields: dict[str, Any] = {
        "scenario_id": "in-scope",
        "turn": 0,
        "task": "CANARY-TASK-1",
        "granted_constraints": (GrantConstraint("CANARY-T", "CANARY-R", "CANARY-A", "CANARY-P"),),
        "granted_data_classes": ("CANARY-D",),
        "workflow_purpose": "CANARY-W",
        "previous_decisions": ("allowed",),
        "tool_results": ("CANARY-RESULT",),
    }
    fields.update(changes)
    return PlannerContext(**fields)


def test_proposal_defaults_to_the_granted_scope() -> None:
    call = ProposedToolCall("t", {"operation": "summarize"})
    assert (call.resource, call.action, call.policy_profile) == (
        GRANTED_RESOURCE,
        GRANTED_ACTION,
        GRANTED_POLICY,
    )
    assert call.approval_token is None


def test_proposal_never_validates_or_touches_its_fields() -> None:
    calls: list[str] = []
    junk = Recorder(calls)
    call = ProposedToolCall(cast(Any, junk), cast(Any, junk), junk, junk, junk, junk)  # type: ignore[arg-type]
    assert cast(object, call.tool) is junk
    assert repr(call) == "ProposedToolCall(<values hidden>)"
    assert calls == []


def test_proposal_is_frozen() -> None:
    call = ProposedToolCall("t", {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.tool = "u"  # type: ignore[misc]


def test_context_repr_hides_values() -> None:
    text = repr(context()) + repr(context().granted_constraints) + str(context())
    assert "CANARY" not in text


def test_context_is_immutable() -> None:
    ctx = context()
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.turn = 1  # type: ignore[misc]
    assert isinstance(ctx.granted_constraints, tuple)
    assert isinstance(ctx.previous_decisions, tuple)


@pytest.mark.parametrize(
    "changes",
    [
        {"scenario_id": 1},
        {"turn": -1},
        {"turn": True},
        {"granted_constraints": [GrantConstraint("a", "b", "c", "d")]},
        {"granted_constraints": (("a", "b", "c", "d"),)},
        {"granted_data_classes": ["x"]},
        {"previous_decisions": ("maybe",)},
        {"tool_results": (b"x",)},
    ],
)
def test_context_validates(changes: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)):
        context(**changes)
