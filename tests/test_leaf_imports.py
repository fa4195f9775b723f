"""A leaf import loads only what it and its packages import; an engine package no heavy one.

``import pytest_openmed.multimodal.vocabulary`` loads that module and its
parent packages (an engine's ``__init__`` imports its public modules), no
sibling engine they do not import and no heavy dependency (numpy, PIL,
pydicom, tifffile, jsonschema, scipy): those load inside the functions that
use them.  What a module imports is read from its source: its module-level
imports (not those deferred into functions or guarded by ``TYPE_CHECKING``),
followed transitively.  The cost is measured by ``benchmarks/engine_imports.py``.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import pytest_openmed
from tests._imports import HEAVY, modules_after

ROOT = Path(pytest_openmed.__file__).parent
ENGINES = ("claims", "planner", "multimodal", "components")
LEAVES = sorted(
    f"pytest_openmed.{engine}.{path.stem}"
    for engine in ENGINES
    for path in (ROOT / engine).glob("*.py")
    if not path.stem.startswith("__")
)


def _path(module: str) -> Path | None:
    """The source file of a ``pytest_openmed`` module, or ``None`` if it is not one."""
    parts = module.split(".")
    if parts[0] != "pytest_openmed":
        return None
    base = ROOT.joinpath(*parts[1:])
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _executed(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements run when the module is imported (``TYPE_CHECKING`` blocks are not)."""
    for node in body:
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from _executed(node.orelse)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for part in getattr(node, block, []):
                    yield from _executed(
                        part.body if isinstance(part, ast.ExceptHandler) else [part]
                    )
        else:
            yield node


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    path = _path(module)
    is_package = path is not None and path.name == "__init__.py"
    package = module if is_package else module.rsplit(".", 1)[0]
    for _ in range(node.level - 1):
        package = package.rsplit(".", 1)[0]
    return f"{package}.{node.module}" if node.module else package


def _direct(module: str) -> Iterator[str]:
    """Modules imported when ``module`` runs (with the packages that hold them)."""
    path = _path(module)
    assert path is not None
    for node in _executed(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            yield base
            for alias in node.names:
                if _path(f"{base}.{alias.name}") is not None:
                    yield f"{base}.{alias.name}"


def _closure(module: str) -> tuple[set[str], set[str]]:
    """The ``pytest_openmed`` modules and heavy top-level packages importing ``module`` runs."""
    ours: set[str] = set()
    heavy: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            if _path(prefix) is None:
                if prefix in HEAVY:
                    heavy.add(prefix)
                continue
            if prefix not in ours:
                ours.add(prefix)
                todo.extend(_direct(prefix))
    return ours, heavy


def _engine(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ENGINES else None


def _loaded(module: str) -> tuple[set[str], set[str]]:
    names = modules_after(f"import {module}")
    return (
        {n for n in names if n.startswith("pytest_openmed")},
        {n for n in names if n in HEAVY},
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_importing_an_engine_package_loads_no_heavy_dependency(engine: str) -> None:
    ours, heavy = _loaded(f"pytest_openmed.{engine}")
    assert heavy == set()
    assert ours == _closure(f"pytest_openmed.{engine}")[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_exported_name_is_the_object_its_module_defines(engine: str) -> None:
    package = importlib.import_module(f"pytest_openmed.{engine}")
    assert sorted(package.__all__) == sorted(set(package.__all__))
    for name in package.__all__:
        value = getattr(package, name)
        home = getattr(value, "__module__", package.__name__)
        if isinstance(home, str) and home.startswith("pytest_openmed"):
            assert getattr(importlib.import_module(home), name, value) is value


@pytest.mark.parametrize("leaf", LEAVES)
def test_a_leaf_import_loads_only_what_it_imports(leaf: str) -> None:
    ours, heavy = _loaded(leaf)
    needed, needed_heavy = _closure(leaf)
    siblings = {m for m in ours if _engine(m) not in (None, _engine(leaf))}
    assert siblings <= needed  # no sibling engine it does not import
    assert ours == needed
    # a heavy package may load the packages it depends on (numpy), never an unrelated one
    assert heavy <= (needed_heavy | {"numpy"} if needed_heavy else set())
