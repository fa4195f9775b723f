"""The strategies package: never loaded by the plugin, documented by a runnable example."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# -- the plugin stays free of Hypothesis --------------------------------------------------------


def test_loading_the_plugin_imports_neither_hypothesis_nor_the_strategies() -> None:
    code = (
        "import sys, pytest_openmed, pytest_openmed.plugin; "
        "print(sorted(m for m in ('hypothesis', 'pytest_openmed.strategies') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


# -- the docs page shows the example project's property tests verbatim --------------------------


def test_docs_example_is_the_example_projects_property_test() -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "strategies.md").read_text("utf-8")
    source = (root / "examples" / "downstream" / "tests" / "test_properties.py").read_text("utf-8")
    blocks = page.split("```python\n")[1:]
    assert blocks, "docs/strategies.md shows no Python example"
    assert blocks[0].split("```", 1)[0] == source
