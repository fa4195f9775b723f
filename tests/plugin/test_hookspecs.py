"""The two hookspecs document their parameters and carry an example that runs.

Each hookspec's docstring has a ``:param`` line for every parameter and an
example conftest; the same example is on docs/hookspecs.md, and both are run
here against a claims gate with one failing class.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_openmed.plugin import hookspecs

from ._helpers import validate_report

DOCS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "hookspecs.md"
HOOKS = (hookspecs.pytest_openmed_gate_result, hookspecs.pytest_openmed_report)


def example(hook: Callable[..., object]) -> str:
    """The indented block after the docstring's ``Example, …::`` paragraph."""
    doc = inspect.getdoc(hook) or ""
    _, _, rest = doc.partition("::\n\n")
    block = []
    for line in rest.splitlines():
        if line and not line.startswith("    "):
            break
        block.append(line)
    return textwrap.dedent("\n".join(block)).strip() + "\n"


@pytest.mark.parametrize("hook", HOOKS, ids=lambda hook: hook.__name__)
def test_every_parameter_is_documented_and_the_example_implements_the_hook(
    hook: Callable[..., object],
) -> None:
    doc = inspect.getdoc(hook) or ""
    for name in inspect.signature(hook).parameters:
        assert f":param {name}:" in doc
    assert f"def {hook.__name__}({', '.join(inspect.signature(hook).parameters)}):" in example(hook)


@pytest.mark.parametrize("hook", HOOKS, ids=lambda hook: hook.__name__)
def test_the_docs_page_shows_the_docstring_example(hook: Callable[..., object]) -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    assert f"```python\n# conftest.py\n{example(hook)}```" in page


def test_the_gate_result_example_lists_the_gates_that_did_not_pass(
    claims_project: pytest.Pytester,
) -> None:
    claims_project.makeconftest(example(hookspecs.pytest_openmed_gate_result))
    result = claims_project.runpytest()
    result.stdout.fnmatch_lines(
        ["release blocker: *claims(notes)::class?medication?: threshold (unsupported_rate)"]
    )
    assert result.stdout.str().count("release blocker:") == 1


def test_the_report_example_amends_the_written_report(claims_project: pytest.Pytester) -> None:
    claims_project.makeconftest(example(hookspecs.pytest_openmed_report))
    claims_project.runpytest("--openmed-report", "r.json")
    report = validate_report(claims_project.path / "r.json")
    assert report["extensions"]["release"] == {"train": "2026.12", "kinds": ["claims"]}
