"""``PYTEST_DONT_REWRITE`` stands exactly where it does something: in modules with ``assert``.

pytest rewrites the ``assert`` statements of a plugin's modules so that a
failing one prints the values it compared; the package's asserts are internal
invariants whose operands may be input data, so the modules holding them opt
out, and say why.  A module without an ``assert`` has nothing to rewrite, so
the marker there would only be noise.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_openmed

PACKAGE = Path(pytest_openmed.__file__).parent


def _has_assert(tree: ast.AST) -> bool:
    return any(isinstance(node, ast.Assert) for node in ast.walk(tree))


def test_the_marker_stands_in_every_module_with_an_assert_and_nowhere_else() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_bytes())
        docstring = ast.get_docstring(tree) or ""
        marked = "PYTEST_DONT_REWRITE" in docstring
        if marked != _has_assert(tree):
            wrong.append(str(path.relative_to(PACKAGE)))
        if marked:
            assert "PYTEST_DONT_REWRITE: " in docstring, path  # the marker says why
    assert wrong == []
    assert any(_has_assert(ast.parse(p.read_bytes())) for p in PACKAGE.rglob("*.py"))
