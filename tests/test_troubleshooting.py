"""Every fixed error code and error shape the package emits is on the troubleshooting page.

The codes and shapes are read from the package's own source, never from a
list kept here, so a code added later fails this test until it is documented.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import pytest_openmed
from pytest_openmed.multimodal import errors as multimodal_errors

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
SOURCES = sorted((ROOT / "pytest_openmed").rglob("*.py"))

#: ``OPENMED-…`` codes: whole codes only (a docstring's ``OPENMED-PLANNER-…`` is no code).
_CODE = re.compile(r"\bOPENMED(?:-[A-Z0-9]+)+(?![-A-Z0-9…])")
#: Exceptions whose first argument is an error shape pytest shows.
_RAISERS = {"CollectError", "UsageError", "GateInputError", "GateFileError"}


def _codes() -> list[str]:
    found = {code for path in SOURCES for code in _CODE.findall(path.read_text("utf-8"))}
    return sorted(found)


def _shapes() -> list[str]:
    """First arguments of every collection, usage and gate-input error, ``{}`` for each value."""
    shapes = set()
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            text = node.args[0]
            if name not in _RAISERS:
                continue
            if isinstance(text, ast.JoinedStr):
                shapes.add(
                    "".join(
                        str(part.value) if isinstance(part, ast.Constant) else "{}"
                        for part in text.values
                    )
                )
            elif isinstance(text, ast.Constant) and isinstance(text.value, str):
                shapes.add(text.value)
    return sorted(shapes)


def _cli_diagnostics() -> list[tuple[str, str]]:
    """``(code, text)`` of every module of the package with a ``_DIAGNOSTICS`` table."""
    found = []
    for module in pkgutil.walk_packages(pytest_openmed.__path__, "pytest_openmed."):
        path = ROOT / (module.name.replace(".", "/") + ".py")
        if not path.exists() or "_DIAGNOSTICS" not in path.read_text("utf-8"):
            continue
        table = getattr(importlib.import_module(module.name), "_DIAGNOSTICS", {})
        found.extend(table.items())
    return sorted(found)


def test_the_catalogue_is_found() -> None:
    """The discovery itself works (so the tests below cannot pass vacuously)."""
    assert "OPENMED-PLANNER-NOT-FOUND" in _codes()
    assert "openmed gate file error: {}" in _shapes()
    assert ("E001", _cli_diagnostics()[0][1]) == _cli_diagnostics()[0]


@pytest.mark.parametrize("code", _codes())
def test_every_code_is_documented(code: str) -> None:
    assert f"`{code}`" in PAGE


@pytest.mark.parametrize("shape", _shapes())
def test_every_error_shape_is_documented(shape: str) -> None:
    for fragment in shape.split("{}"):
        assert fragment.strip() in PAGE, fragment


@pytest.mark.parametrize(("code", "text"), _cli_diagnostics())
def test_every_cli_diagnostic_is_documented(code: str, text: str) -> None:
    assert f"| `{code}` | {text} |" in PAGE


@pytest.mark.parametrize(
    "error",
    [
        cls
        for _, cls in inspect.getmembers(multimodal_errors, inspect.isclass)
        if issubclass(cls, multimodal_errors.MultimodalError)
    ],
    ids=lambda cls: cls.__name__,
)
def test_every_pack_refusal_is_documented(error: type[multimodal_errors.MultimodalError]) -> None:
    assert f"| `{error.__name__}` | {error.message} |" in PAGE
