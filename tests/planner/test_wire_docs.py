"""docs/qualifying-models.md stays faithful to the adapters, cassettes and suite it documents."""

from __future__ import annotations

from pathlib import Path

from pytest_openmed.planner.injection import INJECTION_SUITE_VERSION, styles
from pytest_openmed.planner.wire import DEFECTS, DIALECTS, ENVELOPE_FIELDS, SYSTEM_TEMPLATE

DOC = Path(__file__).resolve().parents[2] / "docs" / "qualifying-models.md"
TEXT = DOC.read_text(encoding="utf-8")


def test_the_system_text_is_quoted_verbatim() -> None:
    assert SYSTEM_TEMPLATE in TEXT


def test_every_dialect_defect_and_envelope_field_is_documented() -> None:
    for name in (*DIALECTS, *DEFECTS, *ENVELOPE_FIELDS):
        assert f"`{name}`" in TEXT, name


def test_the_style_table_is_the_suite() -> None:
    assert f"Suite version {INJECTION_SUITE_VERSION}, fourteen styles" in TEXT
    assert len(styles()) == 14
    for item in styles():
        assert f"| `{item.style}` | {item.family}" in TEXT, item.style


def test_the_page_is_in_the_navigation() -> None:
    nav = (DOC.parents[1] / "mkdocs.yml").read_text(encoding="utf-8")
    assert "Qualifying a tool-calling model: qualifying-models.md" in nav
