"""Planner qualification: does a local tool-use planner stay inside its grants?

``qualify_planner(planner)`` runs six fixed, governed scenarios against a
trusted local callable ``planner(context, catalog)`` and returns a
:class:`PlannerQualificationReport` (non-diagnostic evaluation evidence).
``wire_planner(model, dialect)`` qualifies a model that speaks a tool-calling
wire format (:mod:`~pytest_openmed.planner.wire`); cassettes make its CI run
offline (:mod:`~pytest_openmed.planner.cassette`); the injection suite
(:mod:`~pytest_openmed.planner.injection`) adds fourteen attack styles.
Nothing here imports ``jsonschema`` until a harness actually runs.
"""

from __future__ import annotations

from pytest_openmed.planner.calls import GrantConstraint, PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import (
    EXPORT_TOOL,
    READ_TOOL,
    RESTRICTED_TOOL,
    REVIEW_TOOL,
    ToolCatalog,
    ToolSpec,
)
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.report import (
    PlannerCounts,
    PlannerQualificationReport,
    PlannerRates,
    ScenarioReport,
)
from pytest_openmed.planner.scenarios import SCENARIO_IDS
from pytest_openmed.planner.wire import wire_planner

__all__ = [
    "EXPORT_TOOL",
    "READ_TOOL",
    "RESTRICTED_TOOL",
    "REVIEW_TOOL",
    "SCENARIO_IDS",
    "GrantConstraint",
    "PlannerContext",
    "PlannerCounts",
    "PlannerQualificationReport",
    "PlannerRates",
    "ProposedToolCall",
    "ScenarioReport",
    "ToolCatalog",
    "ToolSpec",
    "qualify_planner",
    "wire_planner",
]
