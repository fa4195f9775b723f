"""The docs cannot drift from the plugin: every option, ini key, marker and fixture is documented.

The names are discovered from the plugin itself, through what pytest shows a
user (``--help``, ``--markers``, ``--fixtures``), never from a list kept here;
a new option without docs, or docs for a removed option, fails this test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

OPTIONS_PAGE = DOCS / "options.md"
MARKERS_PAGE = DOCS / "markers.md"
FIXTURES_PAGE = DOCS / "fixtures.md"

_OPTION_LINE = re.compile(r"^\s+(--openmed-[a-z0-9-]+)", re.MULTILINE)
_INI_LINE = re.compile(r"^\s+(openmed_[a-z0-9_]+) \(", re.MULTILINE)
_MARKER_LINE = re.compile(r"^@pytest\.mark\.(openmed_[a-z0-9_]+)", re.MULTILINE)
_FIXTURE_SECTION = re.compile(r"^-+ fixtures defined from (\S+) -+$")
_FIXTURE_LINE = re.compile(r"^(\w+)(?: \[[^\]]*\])? -- ")


def _shown(pytester: pytest.Pytester, flag: str) -> str:
    result = pytester.runpytest("-p", "openmed", flag)
    assert result.ret == 0
    return "\n".join(result.outlines)


def _plugin_fixtures(text: str) -> set[str]:
    """Fixture names listed under the ``fixtures defined from pytest_openmed…`` sections."""
    names: set[str] = set()
    ours = False
    for line in text.splitlines():
        section = _FIXTURE_SECTION.match(line)
        if section:
            ours = section.group(1).split(".")[0] == "pytest_openmed"
        elif ours and (match := _FIXTURE_LINE.match(line)):
            names.add(match.group(1))
    return names


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


@pytest.fixture
def plugin_surface(pytester: pytest.Pytester) -> dict[str, set[str]]:
    """Options, ini keys, markers and fixtures, as ``pytest --help/--markers/--fixtures`` show them."""
    help_text = _shown(pytester, "--help")
    pytester.makepyfile(test_nothing="")  # --fixtures lists what a collected module could use
    found = {
        "options": set(_OPTION_LINE.findall(help_text)),
        "ini keys": set(_INI_LINE.findall(help_text)),
        "markers": set(_MARKER_LINE.findall(_shown(pytester, "--markers"))),
        "fixtures": _plugin_fixtures(_shown(pytester, "--fixtures")),
    }
    # The discovery itself must work, or the checks below would pass vacuously.
    assert all(found.values()), found
    assert {"claim_scorer", "qualify_planner", "evaluator_key"} <= found["fixtures"]
    return found


def _docs_text() -> str:
    return "\n".join(page.read_text("utf-8") for page in sorted(DOCS.rglob("*.md")))


#: The reference page of each kind of name.
REFERENCE_PAGES = {
    "options": OPTIONS_PAGE,
    "ini keys": OPTIONS_PAGE,
    "markers": MARKERS_PAGE,
    "fixtures": FIXTURES_PAGE,
}


def test_every_plugin_name_is_on_its_reference_page(
    plugin_surface: dict[str, set[str]],
) -> None:
    missing = {
        f"{kind} (docs/{page.name})": sorted(
            name for name in plugin_surface[kind] if not _mentions(page.read_text("utf-8"), name)
        )
        for kind, page in REFERENCE_PAGES.items()
    }
    assert not any(missing.values()), f"undocumented plugin names: {missing}"


def test_the_docs_name_no_option_or_ini_key_the_plugin_lacks(
    plugin_surface: dict[str, set[str]],
) -> None:
    options = set(re.findall(r"(?<![\w-])--openmed-[a-z0-9]+(?:-[a-z0-9]+)*", _docs_text()))
    ini_keys = set(re.findall(r"`(openmed_[a-z0-9_]+)", OPTIONS_PAGE.read_text("utf-8")))
    stale = sorted(options - plugin_surface["options"]) + sorted(
        ini_keys - plugin_surface["ini keys"]
    )
    assert not stale, f"docs name options or ini keys the plugin does not register: {stale}"


def _nav_pages() -> list[str]:
    """Every ``*.md`` page named in mkdocs.yml's ``nav`` (the file is simple YAML)."""
    pages: list[str] = []
    in_nav = False
    for line in (ROOT / "mkdocs.yml").read_text("utf-8").splitlines():
        if re.match(r"^\S", line):
            in_nav = line.startswith("nav:")
            continue
        match = re.search(r"(?:^\s*-\s*|:\s*)([\w./-]+\.md)\s*$", line)
        if in_nav and match:
            pages.append(match.group(1))
    return pages


def test_every_nav_page_exists() -> None:
    pages = _nav_pages()
    assert "index.md" in pages and len(pages) >= 10  # the nav was read, not skipped
    missing = [page for page in pages if not (DOCS / page).is_file()]
    assert not missing, f"mkdocs.yml nav names pages that do not exist: {missing}"
