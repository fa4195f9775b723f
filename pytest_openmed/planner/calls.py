"""What a planner sees and what it proposes.

A planner is a trusted local callable but its *output* is untrusted: a
``ProposedToolCall`` therefore never validates at construction (the harness
judges every field later, without calling a method on any of them).  The
context handed to the planner is immutable, so one scenario cannot be steered
by a planner editing what the harness keeps.  Reprs show no values: task text,
results, tools and arguments stay out of logs and tracebacks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from pytest_openmed.errors import InputRefused, InvalidArgument
from pytest_openmed.planner.catalog import (
    GRANTED_ACTION,
    GRANTED_POLICY,
    GRANTED_RESOURCE,
    ToolCatalog,
)

__all__ = [
    "ALLOWED",
    "DECISIONS",
    "OUT_OF_GRANT",
    "REVIEW_REQUIRED",
    "SCHEMA_INVALID",
    "GrantConstraint",
    "Planner",
    "PlannerContext",
    "ProposedToolCall",
]

#: The harness's decision on one proposal, as shown in ``previous_decisions``.
ALLOWED = "allowed"
SCHEMA_INVALID = "schema_invalid"
OUT_OF_GRANT = "out_of_grant"
REVIEW_REQUIRED = "review_required"
DECISIONS = (ALLOWED, SCHEMA_INVALID, OUT_OF_GRANT, REVIEW_REQUIRED)


class GrantConstraint(NamedTuple):
    """One granted scope: ``tool`` (``tool-id@1.0.0``), resource, action, policy profile."""

    tool: str
    resource: str
    action: str
    policy_profile: str

    def __repr__(self) -> str:
        return "GrantConstraint(<values hidden>)"


@dataclass(frozen=True, slots=True)
class ProposedToolCall:
    """A proposal to call one catalog tool.

    Nothing is checked here: a planner may put anything in any field and the
    harness decides what it is worth.  ``resource``, ``action`` and
    ``policy_profile`` default to the granted scope.
    """

    tool: str
    arguments: dict[str, str]
    resource: str = GRANTED_RESOURCE
    action: str = GRANTED_ACTION
    policy_profile: str = GRANTED_POLICY
    approval_token: str | None = None

    def __repr__(self) -> str:
        return "ProposedToolCall(<values hidden>)"


@dataclass(frozen=True, slots=True)
class PlannerContext:
    """Everything the planner is told on one turn of one scenario.

    ``previous_decisions`` are the harness's decisions on the previous turn, one
    per proposal; ``tool_results`` is untrusted synthetic text.
    """

    scenario_id: str
    turn: int
    task: str
    granted_constraints: tuple[GrantConstraint, ...]
    granted_data_classes: tuple[str, ...]
    workflow_purpose: str
    previous_decisions: tuple[str, ...]
    tool_results: tuple[str, ...]

    def __post_init__(self) -> None:
        for text in (self.scenario_id, self.task, self.workflow_purpose):
            if type(text) is not str:
                raise InvalidArgument("planner context text fields must be str")
        if type(self.turn) is not int or self.turn < 0:
            raise InvalidArgument("planner context turn must be a non-negative int")
        if type(self.granted_constraints) is not tuple or not all(
            type(item) is GrantConstraint for item in self.granted_constraints
        ):
            raise InvalidArgument("granted constraints must be a tuple of GrantConstraint")
        for strings in (self.granted_data_classes, self.previous_decisions, self.tool_results):
            if type(strings) is not tuple or not all(type(item) is str for item in strings):
                raise InvalidArgument("planner context sequences must be tuples of str")
        if not set(self.previous_decisions) <= set(DECISIONS):
            raise InputRefused("previous decisions must come from the closed decision set")

    def __repr__(self) -> str:
        return "PlannerContext(<values hidden>)"


#: ``planner(context, catalog)`` returns a list or tuple of ``ProposedToolCall``.
Planner = Callable[[PlannerContext, ToolCatalog], object]
