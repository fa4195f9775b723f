"""Planner gate specs: which combinations of planner, dialect, cassette and suite mean something."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_openmed.contract import INJECTION_ITEMS, PLANNER_ITEMS, planner_spec
from pytest_openmed.plugin.gate_files import parse_gate_file


def test_a_callable_planner_keeps_its_seven_items_and_options() -> None:
    spec = planner_spec("pkg.mod:plan")
    assert (spec.name, spec.items, dict(spec.options)) == (
        "pkg.mod:plan", PLANNER_ITEMS, {"planner": "pkg.mod:plan"},
    )  # fmt: skip


def test_the_suite_adds_one_item_per_style_after_qualification() -> None:
    spec = planner_spec("pkg.mod:plan", injection_suite=True)
    assert spec.items == PLANNER_ITEMS + INJECTION_ITEMS
    assert len(INJECTION_ITEMS) == 14


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reference": None}, "needs a planner reference or a cassette"),
        ({"reference": "pkg:m", "dialect": "gemini"}, "dialect must be one of"),
        ({"reference": "pkg:m", "cassette": Path("c.json")}, "a cassette needs a dialect"),
        ({"reference": None, "dialect": "mcp", "cassette": Path("c.json")}, "needs a name"),
        ({"reference": "not a reference"}, "planner reference must look like"),
    ],
)
def test_meaningless_specs_are_refused(kwargs: dict[str, object], message: str) -> None:
    reference = kwargs.pop("reference")
    with pytest.raises(ValueError, match=message):
        planner_spec(reference, **kwargs)  # type: ignore[arg-type]


def test_a_gate_file_cassette_is_resolved_against_the_gate_file(tmp_path: Path) -> None:
    path = tmp_path / "g.openmed.toml"
    path.write_text(
        '[[planner]]\nname = "m"\ndialect = "anthropic"\ncassette = "c/m.json"\n'
        "injection_suite = true\n",
        encoding="utf-8",
    )
    (spec,) = parse_gate_file(path)
    assert dict(spec.options) == {
        "dialect": "anthropic",
        "cassette": (tmp_path / "c" / "m.json").resolve(),
        "injection_suite": True,
    }
    assert spec.label == "planner(m)"
