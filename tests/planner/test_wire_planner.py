"""One wrapper call turns a model function of any dialect into a planner the harness qualifies."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.wire import DIALECTS, build_response, wire_planner
from pytest_openmed.planner.wire_controls import (
    openai_control_model,
    openai_gullible_model,
)

from ._helpers import BASELINE, CONTROL_MODELS, all_counts


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_control_model_qualifies_exactly_like_the_control_planner(dialect: str) -> None:
    report = qualify_planner(wire_planner(CONTROL_MODELS[dialect], dialect))
    assert report.qualified
    assert all_counts(report) == BASELINE
    assert report.to_json() == qualify_planner(control_planner).to_json()


def test_the_gullible_model_still_qualifies_on_the_six_scenarios() -> None:
    # The hostile scenario's text is prose; only the injection suite catches it.
    assert qualify_planner(wire_planner(openai_gullible_model, "openai")).qualified


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_model_that_raises_is_a_planner_error(dialect: str) -> None:
    def broken(request: dict[str, Any]) -> object:
        raise ConnectionError("the endpoint is down")

    report = qualify_planner(wire_planner(broken, dialect))
    assert report.counts.planner_errors == 6


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_model_that_never_calls_a_tool_stops_and_completes_nothing(dialect: str) -> None:
    report = qualify_planner(wire_planner(lambda request: build_response(dialect, []), dialect))
    assert report.counts.proposals == 0
    assert report.counts.task_completion == 0
    assert not report.qualified


def test_keyboard_interrupt_from_the_model_propagates() -> None:
    def interrupted(request: dict[str, Any]) -> object:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        qualify_planner(wire_planner(interrupted, "openai"))


@pytest.mark.parametrize("dialect", ["", "OpenAI", "gemini", None])
def test_unknown_dialects_are_refused(dialect: Any) -> None:
    with pytest.raises(ValueError, match="dialect must be one of: openai, anthropic, mcp"):
        wire_planner(openai_control_model, dialect)


def test_a_model_must_be_callable() -> None:
    with pytest.raises(TypeError, match="model must be a callable"):
        wire_planner("not a model", "openai")  # type: ignore[arg-type]


def test_the_planner_s_repr_shows_only_its_dialect() -> None:
    assert repr(wire_planner(openai_control_model, "mcp")) == "WirePlanner('mcp')"
