"""No docs page imports a private name: a newcomer copies what the docs show."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = [*sorted(DOCS.rglob("*.md")), DOCS.parent / "README.md"]
_BLOCK = re.compile(r"```python[^\n]*\n(.*?)```", re.S)
#: An import statement anywhere else on a page (inline code, other block languages).
_LINE = re.compile(r"\b(?:from\s+[\w.]+\s+import\s+[\w ,()]+|import\s+[\w., ]+)")


def private_imports(text: str) -> list[str]:
    """Dotted names imported by ``text`` that are private.

    A name is private if a part starts with ``_`` (dunders aside) or it lies
    inside the plugin package (``pytest_openmed.plugin.*``: pytest's entry point,
    whose modules are internal).
    """
    found = []
    statements: list[str] = []
    for block in _BLOCK.findall(text):
        try:
            tree = ast.parse(block)
        except SyntaxError:
            statements.extend(match.group(0) for match in _LINE.finditer(block))
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    statements.extend(match.group(0) for match in _LINE.finditer(_BLOCK.sub("", text)))
    for statement in statements:
        found.extend(re.findall(r"[\w.]+", statement.replace("import", " ").replace("from", " ")))
    return sorted(
        name
        for name in found
        if any(part.startswith("_") and not part.endswith("__") for part in name.split("."))
        or name.startswith("pytest_openmed.plugin.")
    )


def test_the_check_finds_private_imports() -> None:
    assert private_imports("```python\nfrom pytest_openmed._canonical import digest_json\n```")
    assert private_imports("```python\nfrom pytest_openmed.planner import _silence\n```")
    assert private_imports("Run `from pytest_openmed.plugin.items import GateFailed` first.")
    assert not private_imports("```python\nfrom pytest_openmed.multimodal import digest_json\n```")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_no_page_imports_a_private_name(page: Path) -> None:
    assert private_imports(page.read_text(encoding="utf-8")) == []
