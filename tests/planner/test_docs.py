"""docs/planner.md stays faithful to the code it documents."""

from __future__ import annotations

import inspect
from pathlib import Path

from pytest_openmed.planner import cli
from pytest_openmed.planner.controls import CONTROLS, control_planner

DOC = Path(__file__).resolve().parents[2] / "docs" / "planner.md"


def test_control_planner_source_is_quoted_verbatim() -> None:
    assert inspect.getsource(control_planner) in DOC.read_text(encoding="utf-8")


def test_every_control_and_diagnostic_code_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for control in CONTROLS:
        assert control.name in text
    for code in cli._DIAGNOSTICS:
        assert f"`{code}`" in text
