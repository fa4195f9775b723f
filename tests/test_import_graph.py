"""The import graph of ``pytest_openmed`` points one way (docs/architecture.md).

Every module is parsed with :mod:`ast`; every ``import`` statement counts,
wherever it stands (module level, inside a function, under
``if TYPE_CHECKING:``), and relative imports are resolved against the
importing module.  ``from package import name`` is an edge to
``package.name`` when that is a module, else to ``package``.  Imports by
string (``importlib.import_module``, the evaluator and failure-line
registries of ``contract.py``) are not edges: they run only when a gate item
runs or a verdict is rendered.

The rules: no cycle; no engine imports the plugin or pytest; no engine
imports another engine's private module; the shared core imports only the
standard library and itself; and importing the plugin loads no engine and no
heavy dependency.  Each rule is also run on a tiny synthetic package in which
a violation is planted, so none of them can pass by finding nothing.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import pytest_openmed

PACKAGE = "pytest_openmed"
ROOT = Path(pytest_openmed.__file__).parent

#: The engines: they import the contract, the errors, the shared core and the
#: carriers, never pytest and never the plugin.
ENGINES = (
    "claims",
    "planner",
    "multimodal",
    "components",
    "development",
    "carriers",
    "strategies",
)

#: The shared core: standard library only, and each other.
CORE = (
    "contract",
    "errors",
    "_validate",
    "_canonical",
    "_toml",
    "_wilson",
    "_exact",
    "_jsonread",
)

#: The rooms and, per room, the rooms its modules may import (besides its own
#: modules, the standard library and third-party packages).  The shared core
#: is one room; ``""`` is the top-level ``pytest_openmed/__init__.py``.
#: docs/architecture.md shows this table (a test keeps the two equal).
_LOWER = ("core", "schemas")
_ENGINES_BELOW = (*_LOWER, "carriers", "components", "claims", "planner", "multimodal")
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "core": (),
    "schemas": ("core",),
    "": ("core",),
    "carriers": _LOWER,
    "components": (*_LOWER, "carriers"),
    "claims": (*_LOWER, "carriers"),
    "planner": (*_LOWER, "carriers"),
    "multimodal": (*_LOWER, "carriers"),
    "report": ("", *_ENGINES_BELOW),
    "development": _ENGINES_BELOW,
    "strategies": (*_ENGINES_BELOW, "development"),
    "plugin": ("", *_ENGINES_BELOW, "report", "development"),
}

#: Loading any of these when the plugin loads makes every pytest run slower.
HEAVY = (
    "numpy",
    "PIL",
    "pydicom",
    "tifffile",
    "jsonschema",
    "scipy",
    "mcp",
    "uvicorn",
    "starlette",
)

Edge = tuple[str, str]

_MM = "pytest_openmed.multimodal"

#: Violations tolerated while a fix is in flight, as (rule, importer, imported).
#: Empty: every rule holds.  A listed violation that no longer exists fails the
#: suite, so an entry can only be a temporary, named exception.
KNOWN_VIOLATIONS: frozenset[tuple[str, str, str]] = frozenset()


# --------------------------------------------------------------------------
# The checker: a module graph from source files, and the four static rules.
# --------------------------------------------------------------------------


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join([package, *parts])] = path
    return names


def _importer_package(module: str, path: Path) -> str:
    """The package a relative import in ``module`` is resolved against."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imports(module: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The modules that ``module`` names in any import statement."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _importer_package(module, path).split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in modules else target)
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module → the modules it imports (inside the package or not)."""
    modules = module_names(root, package)
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One import cycle among the graph's own modules, first module repeated last."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if target not in graph or state.get(target) == 2:
                continue
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def all_cycle_edges(graph: Mapping[str, Iterable[str]]) -> set[Edge]:
    """Every edge that lies on some cycle (both ends in one strongly connected set)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    component: dict[str, int] = {}

    def connect(node: str) -> None:  # Tarjan
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in graph:
                continue
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target not in component:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            while True:
                member = stack.pop()
                component[member] = index[node]
                if member == node:
                    break

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for node in sorted(graph):
            if node not in index:
                connect(node)
    finally:
        sys.setrecursionlimit(limit)
    return {
        (source, target)
        for source, targets in graph.items()
        for target in targets
        if target in graph and component[source] == component[target]
    }


def _room(module: str, package: str) -> str:
    """The first part of a module's name below the package (``""`` for the package)."""
    return module.removeprefix(package).lstrip(".").partition(".")[0]


def _is_private(module: str, package: str) -> bool:
    parts = module.removeprefix(package).lstrip(".").split(".")
    return any(p.startswith("_") and not p.startswith("__") for p in parts if p)


def engine_to_plugin_edges(
    graph: Mapping[str, Iterable[str]], package: str, engines: Iterable[str]
) -> set[Edge]:
    """Engine modules that import the plugin, pytest or ``_pytest``."""
    rooms = set(engines)
    plugin = f"{package}.plugin"
    return {
        (source, target)
        for source, targets in graph.items()
        if _room(source, package) in rooms
        for target in targets
        if target == plugin
        or target.startswith(plugin + ".")
        or target.split(".")[0] in ("pytest", "_pytest")
    }


def cross_engine_private_edges(
    graph: Mapping[str, Iterable[str]], package: str, engines: Iterable[str]
) -> set[Edge]:
    """Engine modules that import a private module of another engine."""
    rooms = set(engines)
    return {
        (source, target)
        for source, targets in graph.items()
        if _room(source, package) in rooms
        for target in targets
        if target.startswith(package + ".")
        and _room(target, package) in rooms
        and _room(target, package) != _room(source, package)
        and _is_private(target, package)
    }


def core_edges(graph: Mapping[str, Iterable[str]], package: str, core: Iterable[str]) -> set[Edge]:
    """Shared-core modules that import something other than the stdlib and the core."""
    members = {f"{package}.{name}" for name in core}
    return {
        (source, target)
        for source, targets in graph.items()
        if source in members
        for target in targets
        if target not in members and target.split(".")[0] not in sys.stdlib_module_names
    }


def room_of(module: str, package: str, core: Iterable[str]) -> str:
    """The room of a module of the package: the shared core is one room."""
    room = _room(module, package)
    return "core" if room in set(core) else room


def room_edges(
    graph: Mapping[str, Iterable[str]],
    package: str,
    may_import: Mapping[str, Iterable[str]],
    core: Iterable[str],
) -> set[Edge]:
    """Imports from one room into a room it may not import (or from an unlisted room)."""
    core = tuple(core)
    return {
        (source, target)
        for source, targets in graph.items()
        for target in targets
        if target in graph
        and (rooms := (room_of(source, package, core), room_of(target, package, core)))
        and rooms[0] != rooms[1]
        and rooms[1] not in may_import.get(rooms[0], ())
    }


def violations(
    graph: Mapping[str, Iterable[str]],
    package: str,
    engines: Iterable[str] = ENGINES,
    core: Iterable[str] = CORE,
    may_import: Mapping[str, Iterable[str]] = MAY_IMPORT,
) -> set[tuple[str, str, str]]:
    """Every violation of the five static rules, as (rule, importer, imported)."""
    engines = tuple(engines)
    rules = {
        "cycle": all_cycle_edges(graph),
        "engine-imports-plugin": engine_to_plugin_edges(graph, package, engines),
        "cross-engine-private": cross_engine_private_edges(graph, package, engines),
        "core-imports-outside": core_edges(graph, package, core),
        "room-direction": room_edges(graph, package, may_import, core),
    }
    return {(rule, source, target) for rule, edges in rules.items() for source, target in edges}


# --------------------------------------------------------------------------
# The dynamic rule: what importing the plugin loads.
# --------------------------------------------------------------------------


def modules_loaded_by(statement: str, pythonpath: Iterable[Path] = ()) -> list[str]:
    """Modules a fresh interpreter imports to run ``statement`` (``-X importtime``)."""
    env = dict(os.environ)
    extra = [str(p) for p in pythonpath]
    env["PYTHONPATH"] = os.pathsep.join([*extra, env.get("PYTHONPATH", "")]).strip(os.pathsep)
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return [
        line.rpartition("|")[2].strip()
        for line in out.stderr.splitlines()
        if line.startswith("import time:") and not line.rstrip().endswith("imported package")
    ]


def forbidden_on_load(
    loaded: Iterable[str], package: str, engines: Iterable[str], heavy: Iterable[str]
) -> list[str]:
    """The loaded modules that are an engine module or a heavy dependency."""
    prefixes = tuple(f"{package}.{engine}" for engine in engines)
    roots = set(heavy)
    return sorted(
        name
        for name in set(loaded)
        if name.split(".")[0] in roots
        or any(name == p or name.startswith(p + ".") for p in prefixes)
    )


# --------------------------------------------------------------------------
# The rules on pytest_openmed.
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    found = import_graph(ROOT, PACKAGE)
    assert f"{PACKAGE}.plugin" in found and f"{PACKAGE}.contract" in found
    return found


def _unlisted(found: set[tuple[str, str, str]], rule: str) -> list[tuple[str, str]]:
    return sorted((s, t) for r, s, t in found - KNOWN_VIOLATIONS if r == rule)


def test_no_module_imports_itself_through_a_cycle(graph: dict[str, set[str]]) -> None:
    unlisted = _unlisted(violations(graph, PACKAGE), "cycle")
    remaining = {
        s: {t for t in ts if ("cycle", s, t) not in KNOWN_VIOLATIONS} for s, ts in graph.items()
    }
    assert find_cycle(remaining) is None, (
        f"import cycle: {' -> '.join(find_cycle(remaining) or [])}"
    )
    assert unlisted == []


def test_no_engine_imports_the_plugin_or_pytest(graph: dict[str, set[str]]) -> None:
    assert _unlisted(violations(graph, PACKAGE), "engine-imports-plugin") == []


def test_no_engine_imports_another_engines_private_module(graph: dict[str, set[str]]) -> None:
    assert _unlisted(violations(graph, PACKAGE), "cross-engine-private") == []


def test_the_shared_core_imports_only_the_standard_library_and_itself(
    graph: dict[str, set[str]],
) -> None:
    present = [name for name in CORE if f"{PACKAGE}.{name}" in graph]
    assert {"contract", "errors", "_canonical", "_wilson"} <= set(present)
    assert _unlisted(violations(graph, PACKAGE), "core-imports-outside") == []


def test_every_import_points_down_the_table_of_rooms(graph: dict[str, set[str]]) -> None:
    rooms = {room_of(name, PACKAGE, CORE) for name in graph}
    assert rooms <= set(MAY_IMPORT), f"a room missing from MAY_IMPORT: {rooms - set(MAY_IMPORT)}"
    assert _unlisted(violations(graph, PACKAGE), "room-direction") == []


def rooms_table() -> str:
    """The table of MAY_IMPORT as docs/architecture.md shows it."""
    label = {"": "`pytest_openmed` (top level)", "core": "shared core"}
    name = {"": "`pytest_openmed`", "core": "shared core"}
    rows = [
        "| room | may import |",
        "| --- | --- |",
        *(
            f"| {label.get(room, f'`{room}`')} | "
            + (", ".join(name.get(t, f"`{t}`") for t in targets) or "standard library only")
            + " |"
            for room, targets in MAY_IMPORT.items()
        ),
    ]
    return "\n".join(rows)


def test_the_architecture_page_shows_the_table_of_rooms() -> None:
    page = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert rooms_table() in page, rooms_table()


def test_every_known_violation_still_exists(graph: dict[str, set[str]]) -> None:
    # A fix landed: remove its line from KNOWN_VIOLATIONS.
    assert sorted(KNOWN_VIOLATIONS - violations(graph, PACKAGE)) == []


def test_importing_the_plugin_loads_no_engine_and_no_heavy_dependency() -> None:
    loaded = modules_loaded_by(f"import {PACKAGE}.plugin")
    assert f"{PACKAGE}.plugin" in loaded and "pytest" in loaded
    assert forbidden_on_load(loaded, PACKAGE, ENGINES, HEAVY) == []


# --------------------------------------------------------------------------
# Each rule finds a violation planted in a tiny synthetic package.
# --------------------------------------------------------------------------


def _package(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``toy/<relative path>`` files (``__init__.py`` added to every folder)."""
    top = root / "toy"
    for relative, source in files.items():
        path = top / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    for folder in [top, *(p for p in top.rglob("*") if p.is_dir())]:
        init = folder / "__init__.py"
        if not init.exists():
            init.write_text("")
    return top


def test_a_planted_cycle_through_relative_function_level_and_type_checking_imports(
    tmp_path: Path,
) -> None:
    top = _package(
        tmp_path,
        {
            "claims/a.py": "from . import b\n",
            "claims/b.py": "def f():\n    from .c import x\n",
            "claims/c.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from toy.claims.a import y\nx = 1\n"
            ),
            "claims/leaf.py": "import json\n",
        },
    )
    found = import_graph(top, "toy")
    assert find_cycle(found) == ["toy.claims.a", "toy.claims.b", "toy.claims.c", "toy.claims.a"]
    assert {(s, t) for r, s, t in violations(found, "toy") if r == "cycle"} == {
        ("toy.claims.a", "toy.claims.b"),
        ("toy.claims.b", "toy.claims.c"),
        ("toy.claims.c", "toy.claims.a"),
    }
    del found["toy.claims.c"]
    assert find_cycle(found) is None


def test_a_planted_engine_to_plugin_edge_and_a_pytest_import_are_found(tmp_path: Path) -> None:
    top = _package(
        tmp_path,
        {
            "plugin/options.py": "import pytest\nfrom toy.claims import scoring\n",
            "claims/scoring.py": "def f():\n    from ..plugin import options\n",
            "claims/report.py": "from _pytest.nodes import Item\n",
            "planner/ok.py": "from toy.claims import scoring\n",
        },
    )
    found = violations(import_graph(top, "toy"), "toy")
    assert {(s, t) for r, s, t in found if r == "engine-imports-plugin"} == {
        ("toy.claims.scoring", "toy.plugin.options"),
        ("toy.claims.report", "_pytest.nodes"),
    }


def test_a_planted_cross_engine_private_import_is_found(tmp_path: Path) -> None:
    top = _package(
        tmp_path,
        {
            "components/_dicom.py": "",
            "components/_inner/sniff.py": "",
            "components/dicom.py": "from ._dicom import x\n",
            "multimodal/media.py": "from toy.components import _dicom\n",
            "multimodal/pack.py": "from ..components._inner.sniff import y\n",
            "multimodal/_own.py": "",
            "multimodal/ok.py": "from . import _own\nfrom toy.components import dicom\n",
            "planner/__main__.py": "",
            "claims/ok.py": "import toy.planner.__main__\n",
        },
    )
    found = violations(import_graph(top, "toy"), "toy")
    assert {(s, t) for r, s, t in found if r == "cross-engine-private"} == {
        ("toy.multimodal.media", "toy.components._dicom"),
        ("toy.multimodal.pack", "toy.components._inner.sniff"),
    }


def test_a_planted_non_stdlib_import_in_the_shared_core_is_found(tmp_path: Path) -> None:
    top = _package(
        tmp_path,
        {
            "contract.py": "import json\nfrom . import errors\n",
            "errors.py": "from toy._canonical import dumps\n",
            "_canonical.py": "def f():\n    import numpy\n",
            "_wilson.py": "from toy.claims import scoring\n",
            "claims/scoring.py": "from toy import contract\n",
        },
    )
    found = violations(import_graph(top, "toy"), "toy")
    assert {(s, t) for r, s, t in found if r == "core-imports-outside"} == {
        ("toy._canonical", "numpy"),
        ("toy._wilson", "toy.claims.scoring"),
    }


def test_a_planted_import_against_the_table_of_rooms_is_found(tmp_path: Path) -> None:
    top = _package(
        tmp_path,
        {
            "contract.py": "",
            "carriers/png.py": "from toy import contract\n",
            "claims/scoring.py": "from toy.carriers import png\nfrom toy.planner import grants\n",
            "planner/grants.py": "from toy.report import summary\n",
            "report/summary.py": "from toy.planner import grants\n",
            "plugin/hooks.py": "from toy.report import summary\nfrom toy.claims import scoring\n",
        },
    )
    found = violations(import_graph(top, "toy"), "toy")
    assert {(s, t) for r, s, t in found if r == "room-direction"} == {
        ("toy.claims.scoring", "toy.planner.grants"),
        ("toy.planner.grants", "toy.report.summary"),
    }


def test_a_planted_engine_and_heavy_import_under_the_plugin_are_found(tmp_path: Path) -> None:
    _package(
        tmp_path,
        {
            "plugin/__init__.py": "from . import hooks\n",
            "plugin/hooks.py": "import toyheavy.core\nfrom toy.claims import scoring\n",
            "claims/scoring.py": "",
        },
    )
    (tmp_path / "toyheavy").mkdir()
    (tmp_path / "toyheavy" / "__init__.py").write_text("")
    (tmp_path / "toyheavy" / "core.py").write_text("")
    loaded = modules_loaded_by("import toy.plugin", [tmp_path])
    assert forbidden_on_load(loaded, "toy", ENGINES, ("toyheavy",)) == [
        "toy.claims",
        "toy.claims.scoring",
        "toyheavy",
        "toyheavy.core",
    ]
