"""Every example gives a path option with ``=``: after a space, pytest takes the path for a
test path, which can move its rootdir and lose the ini settings (docs/options.md).

pytest chooses its rootdir and ini file from the command line before any plugin
is loaded, so the plugin cannot make the space form safe; the docs say so, and
this test keeps every README, docs page, example, workflow, CI script and the
package's own help and messages on the ``=`` form.  The options checked are read
from the plugin's source: every path option, and ``--openmed-compare``
(an optional ``REF``: after a space it may also swallow a test path).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = (ROOT / "pytest_openmed" / "plugin" / "__init__.py").read_text("utf-8")

#: Every path-taking option the plugin registers, read from its source.
PATH_OPTIONS = sorted(
    {*re.findall(r'_path_option\(\s*parser,\s*group,\s*"([a-z-]+)"', PLUGIN), "compare"}
)

#: What an example may be: prose, docs, examples and their workflows, CI, and the
#: package's own sources (option help, console-script help, messages).
_EXAMPLE_SUFFIXES = {".md", ".yml", ".yaml", ".toml", ".sh", ".cfg", ".ini", ".txt", ".py"}
FILES = sorted(
    {
        ROOT / "README.md",
        ROOT / "tox.ini",
        *(ROOT / "docs").rglob("*.md"),
        *(p for p in (ROOT / "examples").rglob("*") if p.suffix in _EXAMPLE_SUFFIXES),
        *(p for p in (ROOT / ".ci").rglob("*") if p.is_file()),
        *(ROOT / "pytest_openmed").rglob("*.py"),
        *(ROOT / "benchmarks").rglob("*.py"),
    }
)

#: An option, whitespace (a YAML or shell line may continue on the next line), then a token.
_SPACED = re.compile(
    r"--openmed-(?:" + "|".join(PATH_OPTIONS) + r")(?![\w-])(?:[ \t]|\\?\n)+(?P<token>[^\s`]+)"
)
#: A token that is a value, not prose or a placeholder (``PATH``, ``DIR``, ``[REF]``):
#: it starts like a path, a variable or a quoted string, or holds a dot or a slash.
_VALUE = re.compile(r"""^(?:["'$~./\d{]|latest\b)|^[^\s]*[./][^\s]*\w""")
#: The one deliberate counter-example, on the options page.
_COUNTER_EXAMPLE = "`--openmed-report /abs/gates.json`"


def spaced_values(text: str) -> list[str]:
    """Each ``--openmed-<path option> <value>`` in ``text``."""
    return [
        match.group(0)
        for match in _SPACED.finditer(text.replace(_COUNTER_EXAMPLE, ""))
        if _VALUE.search(match.group("token"))
    ]


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_path_options_are_given_with_equals(path: Path) -> None:
    assert not spaced_values(path.read_text(encoding="utf-8")), path


def test_the_options_are_read_from_the_plugin() -> None:
    assert {"report", "markdown", "html", "sarif", "history", "baseline", "waivers"} <= set(
        PATH_OPTIONS
    )
    assert "compare" in PATH_OPTIONS


def test_the_scan_covers_examples_and_workflows() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in FILES}
    assert "examples/downstream/.github/workflows/gates.yml" in names
    assert "examples/downstream/pyproject.toml" in names
    assert "docs/options.md" in names and ".ci/run" in names


@pytest.mark.parametrize(
    "text",
    [
        "pytest --openmed-report gates.json",
        "pytest --openmed-report /abs/out/gates.json",
        "pytest --openmed-html ${{ runner.temp }}/r.html",
        'pytest --openmed-sarif "$OUT/gates.sarif"',
        "python -m pytest --openmed-history \\\n  .openmed-history",
        "pytest --openmed-compare latest",
        "pytest --openmed-compare 20261201T153000123456Z-nocommit tests/",
        "pytest --openmed-waivers ci/waivers.toml",
    ],
)
def test_the_scan_finds_a_spaced_value(text: str) -> None:
    assert spaced_values(text), text


@pytest.mark.parametrize(
    "text",
    [
        "pytest --openmed-report=gates.json",
        "pytest --openmed-history=.openmed-history --openmed-compare  # the newest",
        "`--openmed-report PATH` writes the report",
        "`--openmed-compare [REF]` uses a stored run",
        "openmed: --openmed-compare needs --openmed-history DIR (or ini openmed_history)",
        "--openmed-compare and --openmed-baseline both name a baseline",
        "a --openmed-history directory: adds trends",
        "--openmed-reporting gates.json",
    ],
)
def test_the_scan_passes_the_equals_form_and_prose(text: str) -> None:
    assert not spaced_values(text), text
