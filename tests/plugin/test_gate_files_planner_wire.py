"""Planner gate declarations: which combinations of planner, dialect, cassette and suite mean something."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_openmed.contract import ArgumentSource
from pytest_openmed.planner.declaration import (
    INJECTION_ITEMS,
    PLANNER_ITEMS,
    GateDeclaration,
    declare,
)
from pytest_openmed.plugin.gate_files import parse_gate_file


def test_a_callable_planner_keeps_its_seven_items() -> None:
    declaration = declare({"planner": "pkg.mod:plan"}, ArgumentSource())
    assert declaration == GateDeclaration(planner="pkg.mod:plan")
    assert declaration.items == PLANNER_ITEMS


def test_the_suite_adds_one_item_per_style_after_qualification() -> None:
    declaration = declare({"planner": "pkg.mod:plan", "injection_suite": True}, ArgumentSource())
    assert declaration.items == PLANNER_ITEMS + INJECTION_ITEMS
    assert len(INJECTION_ITEMS) == 14


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "needs a planner reference or a cassette"),
        ({"planner": "pkg:m", "dialect": "gemini"}, "dialect must be one of"),
        ({"planner": "pkg:m", "cassette": Path("c.json")}, "a cassette needs a dialect"),
        ({"planner": "not a reference"}, "planner reference must look like"),
        ({"planner": "pkg:m", "injection_suite": 1}, "injection_suite must be True or False"),
    ],
)
def test_meaningless_declarations_are_refused(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        declare(fields, ArgumentSource())


def test_a_gate_file_cassette_is_resolved_against_the_gate_file(tmp_path: Path) -> None:
    path = tmp_path / "g.openmed.toml"
    path.write_text(
        '[[planner]]\nname = "m"\ndialect = "anthropic"\ncassette = "c/m.json"\n'
        "injection_suite = true\n",
        encoding="utf-8",
    )
    (spec,) = parse_gate_file(path)
    assert spec.declaration == GateDeclaration(
        dialect="anthropic", cassette=(tmp_path / "c" / "m.json").resolve(), injection_suite=True
    )
    assert spec.label == "planner(m)"
