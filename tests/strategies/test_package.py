"""The strategies package: never loaded by the plugin, documented by a runnable example."""

from __future__ import annotations

from pathlib import Path

from tests._imports import modules_after

# -- the plugin stays free of Hypothesis --------------------------------------------------------


def test_loading_the_plugin_imports_neither_hypothesis_nor_the_strategies() -> None:
    loaded = modules_after("import pytest_openmed, pytest_openmed.plugin")
    assert loaded.isdisjoint({"hypothesis", "pytest_openmed.strategies"})


# -- the docs page shows the example project's property tests verbatim --------------------------


def test_docs_example_is_the_example_projects_property_test() -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "strategies.md").read_text("utf-8")
    source = (root / "examples" / "downstream" / "tests" / "test_properties.py").read_text("utf-8")
    blocks = page.split("```python\n")[1:]
    assert blocks, "docs/strategies.md shows no Python example"
    assert blocks[0].split("```", 1)[0] == source
