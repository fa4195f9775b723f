"""The optional extras: one list in the code, equal to pyproject.toml and to the docs table.

``pytest_openmed.errors.EXTRAS`` is what the missing-dependency errors read;
docs/quickstart.md's table is what users read.  Both are checked against the
package's own imports and ``pyproject.toml``, so an import of a new optional
library, or an extra renamed, fails here until all three agree.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

from pytest_openmed.errors import EXTRAS, missing_extra, missing_extra_text, names_a_missing_extra

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
PAGE = (ROOT / "docs" / "quickstart.md").read_text("utf-8")
#: Extras the package never imports from.
NEVER_IMPORTED = {"docs", "dev"}


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;@]", requirement, maxsplit=1)[0].lower()


def _imported_third_party() -> set[str]:
    """Top-level modules outside the standard library that any package module imports."""
    found = set()
    for path in (ROOT / "pytest_openmed").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                found.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.partition(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names} - {"pytest_openmed"}


def _table() -> dict[str, str]:
    """``{extra: its "installs (module)" cell}`` of the docs table."""
    rows = re.findall(r"^\| `([a-z]+)` \| ([^|]+) \| [^|]+ \|$", PAGE, flags=re.M)
    return {extra: cell.strip() for extra, cell in rows}


def test_every_optional_import_is_in_an_extra() -> None:
    """A module the package imports is a core dependency's or listed in EXTRAS."""
    distributions = importlib.metadata.packages_distributions()
    core = {_requirement_name(r) for r in PROJECT["dependencies"]}
    optional = {module for modules in EXTRAS.values() for module in modules}
    not_core = {
        module
        for module in _imported_third_party()
        if not {d.lower() for d in distributions.get(module, [])} & core
    }
    assert not_core - optional == set()
    assert {"PIL", "pydicom", "mcp", "hypothesis"} <= not_core  # the scan finds them


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_each_extra_installs_the_modules_listed_for_it(extra: str) -> None:
    """Each module's distribution is the extra's requirement, or a requirement of one."""
    distributions = importlib.metadata.packages_distributions()
    required = {_requirement_name(r) for r in PROJECT["optional-dependencies"][extra]}
    required |= {
        _requirement_name(r)
        for name in list(required)
        if not name.startswith("pytest-openmed")
        for r in importlib.metadata.requires(name) or ()
        if "extra ==" not in r
    }
    for module, distribution in EXTRAS[extra].items():
        assert distribution.lower() in required, (module, distribution)
        assert distribution.lower() in {d.lower() for d in distributions[module]}, module


def test_the_extras_are_those_of_pyproject() -> None:
    assert set(EXTRAS) | NEVER_IMPORTED == set(PROJECT["optional-dependencies"])


def test_the_docs_table_shows_the_code_list() -> None:
    table = _table()
    assert set(table) == set(EXTRAS) | NEVER_IMPORTED
    for extra in NEVER_IMPORTED:
        assert "never imported" in table[extra]
    for extra, modules in EXTRAS.items():
        shown = re.findall(r"`([\w-]+)`(?: \(`(\w+)`\))?", table[extra])
        listed = {(module or distribution, distribution) for distribution, module in shown}
        listed -= {(name, name) for name in EXTRAS if name != extra and name in table[extra]}
        assert listed == {(module, distribution) for module, distribution in modules.items()}


def test_an_optional_module_names_its_extra() -> None:
    error = ModuleNotFoundError("No module named 'pydicom.uid'", name="pydicom.uid")
    assert missing_extra(error) == ("pydicom", "imaging")
    text = missing_extra_text("openmed pack gate", error)
    assert text == (
        "openmed pack gate needs pydicom, which is not installed: "
        "pip install 'pytest-openmed[imaging]'"
    )
    assert names_a_missing_extra(text)
    assert missing_extra(ModuleNotFoundError("x", name="mcp_types")) == ("mcp-types", "mcp")


def test_another_import_error_is_not_a_missing_extra() -> None:
    assert missing_extra(ModuleNotFoundError("No module named 'mymodel'", name="mymodel")) is None
    assert missing_extra(ImportError("cannot import name 'x'")) is None
    assert not names_a_missing_extra("openmed pack gate input refused: ValueError: x")
