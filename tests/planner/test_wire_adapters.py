"""Dialects are a table of adapters: one object per dialect, chosen once, and symmetric."""

from __future__ import annotations

import ast
import inspect
from typing import Any

import pytest

from pytest_openmed.planner import wire, wire_controls
from pytest_openmed.planner.calls import PlannerContext
from pytest_openmed.planner.catalog import ToolCatalog
from pytest_openmed.planner.declaration import DIALECTS
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.wire import ADAPTERS, Dialect, WirePlanner, adapter


def test_there_is_one_adapter_per_declared_dialect() -> None:
    assert tuple(ADAPTERS) == DIALECTS == wire.DIALECTS
    assert all(
        isinstance(chosen, Dialect) and chosen.name == name for name, chosen in ADAPTERS.items()
    )
    assert all(adapter(name) is ADAPTERS[name] for name in DIALECTS)


@pytest.mark.parametrize("dialect", ["gemini", "", None, 3, "OpenAI"])
def test_an_unknown_dialect_is_refused_with_the_one_message(dialect: object) -> None:
    with pytest.raises(ValueError) as refused:
        adapter(dialect)
    assert str(refused.value) == "dialect must be one of: openai, anthropic, mcp"
    with pytest.raises(ValueError, match="dialect must be one of"):
        WirePlanner(lambda *args: {}, dialect)  # type: ignore[arg-type]


def test_no_wire_module_branches_on_a_dialect_name() -> None:
    """Everything dialect-specific is an adapter method, not an ``if dialect == ...``."""
    for module in (wire, wire_controls):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Compare):
                names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
                constants = [
                    n.value
                    for n in ast.walk(node)
                    if isinstance(n, ast.Constant) and n.value in DIALECTS
                ]
                assert not ("dialect" in names and constants), ast.unparse(node)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_built_response_parses_back_to_its_calls(dialect: str) -> None:
    calls = [("read_summary", {"operation": "summarize"}), ("annotate", {"note": "x"})]
    chosen = adapter(dialect)
    assert chosen.calls(chosen.response(calls)) == calls
    assert chosen.calls(chosen.response([])) == []


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_model_reads_back_the_task_and_turns_the_adapter_rendered(dialect: str) -> None:
    chosen = adapter(dialect)
    model = getattr(wire_controls, f"{dialect}_control_model")
    requests: dict[tuple[str, int], dict[str, Any]] = {}
    tasks: dict[tuple[str, int], str] = {}

    def transport(scenario_id: str, turn: int, request: dict[str, Any]) -> object:
        requests[scenario_id, turn] = request
        return model(request)

    planner = WirePlanner(transport, dialect)

    def spy(context: PlannerContext, catalog: ToolCatalog) -> object:
        tasks[context.scenario_id, context.turn] = context.task
        return planner(context, catalog)

    assert qualify_planner(spy).qualified
    assert any(turn > 0 for _, turn in requests) and requests.keys() == tasks.keys()
    for (scenario_id, turn), request in requests.items():
        task, turns = chosen.read_request(request)
        assert task == tasks[scenario_id, turn]
        assert len(turns) == turn
